"""``arena audit``: the fair-play audit, a table per bot and per pair."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from arena.cli.context import runtime_and_db, user_errors
from arena.cli.render import literal
from arena.ratings.audit import FAMILY_ALPHA, NEEDS
from arena.tournaments.audit import AuditLine, AuditReport, audit_report

COLUMNS = ("advantage", "95% CI", "SE", "p", "matches", "")


@click.command("audit")
@click.argument("tournament_id", type=int, required=False)
@click.option(
    "--all-pairs",
    is_flag=True,
    help="Test every two bots that shared a table, not only two bots of one owner.",
)
def audit_command(tournament_id: int | None, all_pairs: bool) -> None:
    """Fair-play audit: bots that gain on a deal's later rotations, pairs that gain together.

    Of one tournament, or of every tournament when no id is given. Advantages are in points
    per deal; FLAG marks a p-value under the threshold that keeps an honest field's chance
    of any flag at 1% (docs/audit.md).
    """
    with user_errors():
        _, db = runtime_and_db()
        with db.session(read_only=True) as s:
            report = audit_report(s, tournament_id, all_pairs)
    print_report(report)


def print_report(report: AuditReport) -> None:
    console = Console()
    scope = (
        "every tournament"
        if report.tournament_id is None
        else (f"tournament {report.tournament_id}")
    )
    if not report.tests:
        console.print(f"too little data to audit {scope}: {NEEDS}")
        return
    who = "every pair that shared a table" if report.all_pairs else "pairs of one owner"
    console.print(
        f"Fair-play audit of {scope}: {report.tests} tests; FLAG at p <= "
        f"{report.threshold:.2g} ({100 * FAMILY_ALPHA:g}% / {report.tests})"
    )
    console.print(_table("Rotation advantage: later rotations minus the first", report.rotation))
    if report.pairs:
        console.print(_table(f"Pair advantage ({who}): together minus apart", report.pairs))
    else:
        console.print(f"no pairs to test ({who} that shared a table)")
    flagged = len(report.flagged)
    console.print(
        f"{flagged} flagged. A flag is evidence to look into (the bot's matches, faults, "
        "replays), not proof; rows without a p-value have too few matches."
    )


def _table(title: str, lines: list[AuditLine]) -> Table:
    table = Table(title=title, box=None, padding=(0, 1, 0, 0), pad_edge=False)
    table.add_column("bot" if lines and lines[0].finding.kind == "rotation" else "pair")
    for column in COLUMNS:
        table.add_column(column, justify="right", no_wrap=True)
    for line in lines:
        f = line.finding
        matches = str(f.matches)
        if f.kind == "pair":
            matches += f" ({'/'.join(map(str, f.apart))} apart)"
        if f.p is None:
            cells = ["", "", "", "–", matches, "too few"]
        else:
            low, high = f.ci
            cells = [
                f"{f.estimate:+.2f}",
                f"{low:+.2f}…{high:+.2f}",
                f"{f.se:.2f}",
                f"{f.p:.2g}",
                matches,
                "[bold red]FLAG[/]" if f.flagged else "",
            ]
        table.add_row(literal(" + ".join(line.refs)), *cells)
    return table
