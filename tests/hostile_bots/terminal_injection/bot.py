"""Dies before serving, leaving a last log line written for the operator's terminal:
ESC[2J (clear the screen), an OSC 8 hyperlink, an OSC 0 window title ended by BEL, C1
controls (CSI U+009B; OSC U+009D ended by ST U+009C) and rich markup. The platform puts the
last log line in the fault reason that `arena bot add` and `arena play` print. (NEL U+0085
would end the line for Python's splitlines, so it sits on the line before.)"""

import sys

LINE = (
    "fatal: \x1b[2J\x1b[H"
    "\x1b]8;;https://evil.example/\x07click me\x1b]8;;\x07 "
    "\x1b]0;pwned title\x07"
    "\x9b31m C1 \x9d0;c1 title\x9c "
    "[bold red]pwned[/] [link=https://evil.example]here[/link] end\x1b[0m"
)
print("starting (hostile test bot)\x85", file=sys.stderr)
print(LINE, file=sys.stderr, flush=True)
sys.exit(1)
