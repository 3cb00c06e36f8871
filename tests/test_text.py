"""Bot-supplied text on terminals: control characters gone, markup shown as typed."""

from __future__ import annotations

from rich.console import Console

from arena.cli.render import literal
from arena.text import printable

HOSTILE = "a\x1b[2Jb\x1b]0;title\x07c\x9b31m\u202eevil\x00[bold red]pwned[/]\tend\r\n"


def test_printable_drops_controls_and_bidi_overrides():
    text = printable(HOSTILE)
    assert text == "a[2Jb]0;titlec31mevil[bold red]pwned[/] end  "
    assert not any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in text)


def test_printable_caps_the_length():
    assert printable("x" * 50, 10) == "x" * 9 + "…"
    assert printable("short", 10) == "short"


def test_literal_markup_is_printed_as_typed():
    console = Console(record=True, width=200, color_system="truecolor", force_terminal=True)
    console.print(f"[yellow]fault[/] {literal(HOSTILE)}", highlight=False)
    out = console.export_text(styles=False)
    assert "[bold red]pwned[/]" in out
    raw = console.export_text(styles=True)
    assert "\x1b[2J" not in raw and "\x07" not in raw
