"""What a request may name: a page to go to next, an id in a URL. Plain functions and a
URL converter, so that every view that redirects or takes an id checks it the same way."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from werkzeug.routing import IntegerConverter, Map

MAX_ID = 2**31 - 1  # ids are Integer columns: 32-bit signed on Postgres (64 on SQLite)


def local_path(target: str) -> str | None:
    """``target`` when a browser would take it for a path on this site, else None.

    Browsers drop tabs and newlines anywhere, read a backslash as a slash and ``//host`` as
    another site (so ``/\\t/evil.example`` goes there), and resolve ``..``: anything of the
    kind is refused rather than cleaned, as are whitespace, control characters and schemes.
    """
    if target[:1] != "/" or target[:2] == "//" or any(_suspect(c) for c in target):
        return None
    parts = urlsplit(target)
    segments = [unquote(s) for s in parts.path.split("/")[1:]]
    if parts.scheme or parts.netloc or "" in segments[:-1] or {".", ".."} & set(segments):
        return None  # "" before the last segment: "//" somewhere in the path
    return target


def _suspect(char: str) -> bool:
    return char == "\\" or char.isspace() or not char.isprintable()


class IdConverter(IntegerConverter):
    """``<int:...>`` on every route: a number beyond the database's ids matches no route
    (404) instead of overflowing the driver (500)."""

    def __init__(
        self,
        map: Map,
        fixed_digits: int = 0,
        min: int | None = None,
        max: int = MAX_ID,
        signed: bool = False,
    ) -> None:
        super().__init__(map, fixed_digits, min, max, signed)
