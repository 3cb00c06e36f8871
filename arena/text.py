"""Bot-supplied text made safe to store and show: no control or format characters, capped.

A bot's name, version, log lines and handshake fields reach operators' terminals and web
pages; escape sequences (or bidi overrides) in them could rewrite what the operator sees.
Terminal output also escapes rich markup (see ``arena.cli.render.literal``).
"""

from __future__ import annotations

import unicodedata


def printable(text: str, limit: int | None = None) -> str:
    """``text`` without control, format, surrogate or unassigned characters (tabs and line
    breaks become spaces), cut to ``limit`` characters with an ellipsis."""
    cleaned = "".join(
        " " if ch in "\t\n\r" else ch
        for ch in text
        if ch in "\t\n\r" or not unicodedata.category(ch).startswith("C")
    )
    if limit is not None and len(cleaned) > limit:
        cleaned = cleaned[: max(0, limit - 1)] + "…"
    return cleaned


def plural(count: int, noun: str) -> str:
    """``1 bot``, ``2 bots``: counts in messages read as English."""
    ending = "" if count == 1 else "es" if noun.endswith(("ch", "s", "x")) else "s"
    return f"{count} {noun}{ending}"
