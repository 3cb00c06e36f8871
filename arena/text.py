"""Bot-supplied text made safe to store and show: no control or format characters, capped.

A bot's name, version, log lines and handshake fields reach operators' terminals and web
pages; escape sequences (or bidi overrides) in them could rewrite what the operator sees.
Terminal output also escapes rich markup (see ``arena.cli.render.literal``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable


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


# Characters that read alike in the fonts names are shown in, mapped to one of them; after
# case-folding, so only lower case is listed. "rn" reads as "m" and "vv" as "w" too.
_LOOKALIKE = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l", "5": "s", "$": "s"})
_SEPARATORS = str.maketrans("", "", "._- \t")


def name_key(name: str) -> str:
    """What a name reads as: case-folded (after NFKC, so full-width and styled letters are
    their plain selves), look-alike characters made one, '.', '_', '-' and spaces dropped.
    Two bots or two users whose names have one key would be taken for each other in a list
    ("AliceBot" and "alicebot", "house-random" and "h0use_random"), so a key is unique."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = text.replace("rn", "m").replace("vv", "w").translate(_LOOKALIKE)
    return text.translate(_SEPARATORS)


def reads_as_house(name: str, kinds: Iterable[str]) -> bool:
    """Whether ``name`` reads as "house" or as a house bot's (``house-KIND...``, for each of
    ``kinds``) in any spelling: only the platform may use those. "housekeeper" may."""
    key = name_key(name)
    return key == "house" or any(key.startswith("house" + name_key(kind)) for kind in kinds)
