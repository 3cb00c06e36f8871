"""Text renderings of deals and standings for the terminal."""

from __future__ import annotations

from collections.abc import Sequence

from rich.markup import escape
from rich.table import Table

from arena.game import Deal
from arena.game.cards import cards_of, format_cards
from arena.game.record import points_json
from arena.text import printable


def literal(text: object) -> str:
    """Bot-supplied text for rich output: no control characters, markup shown as typed."""
    return escape(printable(str(text)))


def unique_names(names: Sequence[str]) -> list[str]:
    """Suffix repeated names (#1, #2, ...) so four copies of a bot can be told apart."""
    out = []
    for i, name in enumerate(names):
        same = [j for j, n in enumerate(names) if n == name]
        out.append(f"{name}#{same.index(i) + 1}" if len(same) > 1 else name)
    return out


def deal_lines(game: int, deal: Deal, names: Sequence[str], hands: bool = False) -> list[str]:
    """A deal as a grid by seat: calls, each trick (led card marked ›, the winner's card
    marked * and in bold: piped output has no bold), result; with ``hands``, each seat's
    dealt hand first."""
    names = [literal(n) for n in names]
    w = max(8, *(len(n) for n in names)) + 2
    row = "  {:<9}" + "".join(f"{{:>{w}}}" for _ in range(4))
    lines = [f"[bold]Game {game + 1}, deal {deal.index + 1}[/] — dealer {names[deal.dealer]}"]
    if hands:
        for seat, hand in enumerate(deal.dealt):
            lines.append(f"  {names[seat]}: {format_cards(cards_of(hand))}")
    lines.append(row.format("", *names))
    lines.append(row.format("call", *deal.calls))
    for t, trick in enumerate(deal.tricks, 1):
        cells = [""] * 4
        for i, card in enumerate(trick.cards):
            seat = trick.seat_of(i)
            led, won = "›" if i == 0 else "", "*" if seat == trick.winner else ""
            cells[seat] = f"{led}{card}{won}"
        bold = [f"[bold]{c}[/]" if s == trick.winner else c for s, c in enumerate(cells)]
        lines.append(_pad(row.format(f"trick {t}", *cells), bold, cells))
    points = [f"{points_json(p):+g}" for p in deal.points()]
    lines.append(row.format("won", *deal.won))
    lines.append(row.format("points", *points))
    return lines


def _pad(line: str, marked: list[str], plain: list[str]) -> str:
    """Swap plain cells for marked-up ones after alignment, so markup does not skew widths."""
    for m, p in zip(marked, plain, strict=True):
        if m != p:
            head, sep, tail = line.rpartition(p)
            line = head + m + tail if sep else line
    return line


def _order(first: int) -> list[int]:
    return [(first + k) % 4 for k in range(4)]


def standings_table(
    names: Sequence[str], totals: Sequence[int], extra: dict[str, Sequence]
) -> Table:
    """Entrants sorted by total points (tenths), with any extra columns."""
    table = Table(title="Match standings")
    table.add_column("#", justify="right")
    table.add_column("bot")
    table.add_column("points", justify="right")
    for column in extra:
        table.add_column(column, justify="right")
    for rank, e in enumerate(sorted(range(len(names)), key=lambda e: -totals[e]), 1):
        cells = [str(rank), literal(names[e]), f"{points_json(totals[e]):g}"]
        table.add_row(*cells, *(str(values[e]) for values in extra.values()))
    return table
