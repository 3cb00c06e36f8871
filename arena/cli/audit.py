"""``arena audit``: the fair-play audit, decisions first (judging what the scope still has
queued in this process), then points; a table per bot and per pair."""

from __future__ import annotations

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from arena import audits
from arena.cli.context import runtime_and_db, user_errors
from arena.cli.render import literal
from arena.config import Settings
from arena.ratings.audit import FAMILY_ALPHA, MIN_PAIR_MATCHES, NEEDS
from arena.store import Database
from arena.tournaments.audit import MAX_EVIDENCE, AuditLine, AuditReport, audit_report
from arena.tournaments.executor import worker_name

COLUMNS = ("advantage", "95% CI", "SE", "p", "matches", "")
MEMORY_COLUMNS = ("later games", "first games", "difference", "p", "matches", "")
PAIR_COLUMNS = ("partner's hand", "others' hands", "difference", "p", "matches", "")
EXPLAINED = (
    "Decision tests count the telling decisions (where the best option under the true deal "
    "is not the best under what the seat could know) at which the bot followed the truth, "
    "out of those where it followed the truth or its knowledge: x/n = followed the truth x "
    "times out of n. Per bot: in its matches' later games (when it may remember the hands) "
    "against the first games. Per pair: each bot judged with its partner's hand added "
    "against with any other tablemate's. difference: the first rate minus the second; p: "
    "one-sided (Fisher per bot, Cochran-Mantel-Haenszel per pair); matches: the bot's "
    "judged matches, or the pair's together."
)
# Pairs tested by points without --all-pairs (arena.tournaments.audit): an account's two
# bots, or two bots of no account (house bots and those added here), which are the operator's.
OWNERS = (
    "two bots of one account, or two of no account: house bots and bots added from the "
    "command line, the operator's"
)
POINTS_EXPLAINED = (
    "Points tables: advantage in points per deal (rotation: the bot's later rotations of a "
    "deal minus its first; pair: the two at one table minus each one without the other), "
    "its 95% CI and standard error (SE); p: one-sided t test; matches: the bot's, or the "
    "pair's together, then (x/y apart): the matches each of the two played without the "
    f"other, first bot first (a pair test needs {MIN_PAIR_MATCHES} together and "
    f"{MIN_PAIR_MATCHES} of each apart)."
)


@click.command("audit")
@click.argument("tournament_id", type=int, required=False)
@click.option(
    "--all-pairs",
    is_flag=True,
    help="Test every two bots that shared a table by points too, not only two bots of one "
    "owner (decisions test every such pair anyway).",
)
@click.option(
    "--no-judge",
    is_flag=True,
    help="Do not judge the scope's queued matches here first: audit what is judged.",
)
def audit_command(tournament_id: int | None, all_pairs: bool, no_judge: bool) -> None:
    """Fair-play audit: bots that follow hidden cards or gain on a deal's later rotations,
    pairs that follow each other's hands or gain together.

    Of one tournament, or of every tournament when no id is given. The decision tests need
    the finished matches judged by the master (the workers' audit queue does it; this
    command first judges, in this process, what is still queued). Advantages are in points
    per deal; FLAG marks a p-value under the threshold that keeps an honest field's chance
    of any flag at 1% (docs/audit.md).
    """
    with user_errors():
        runtime, db = runtime_and_db()
        if not no_judge:
            judge(db, tournament_id, runtime.settings)
        with db.session(read_only=True) as s:
            report = audit_report(s, tournament_id, all_pairs)
    print_report(report)


def judge(db: Database, tournament_id: int | None, settings: Settings) -> None:
    """Judge the scope's queued hindsights here, with a progress bar (on stderr)."""
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
    console = Console(stderr=True)
    with Progress(*columns, TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("judging finished matches", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        ended = audits.work_out(db, tournament_id, worker_name(), settings, advance)
    if ended:
        parts = ", ".join(f"{n} {status}" for status, n in sorted(ended.items()))
        console.print(f"judged here: {parts}")


def print_report(report: AuditReport) -> None:
    console = Console()
    scope = (
        "every tournament"
        if report.tournament_id is None
        else (f"tournament {report.tournament_id}")
    )
    if not report.tests:
        console.print(f"too little data to audit {scope}: {NEEDS}")
        console.print(_coverage(report))
        return
    who = "every pair that shared a table" if report.all_pairs else OWNERS
    console.print(
        f"Fair-play audit of {scope}: {report.tests} tests; FLAG at p <= "
        f"{report.threshold:.2g} ({100 * FAMILY_ALPHA:g}% / {report.tests})"
    )
    console.print(_coverage(report))
    console.print(
        "  (tests counted: those with data enough to reach that threshold at all (Tarone); "
        "rows without a p-value have too little data)"
    )
    if report.decisions:
        console.print(_decision_table("Follows the truth: later games vs first games", report))
        console.print(_evidence(report.decisions, "followed the truth in a later game"))
    if report.decision_pairs:
        title = "Follows the partner's hand (every two judged bots that shared a table)"
        console.print(_decision_table(title, report, pairs=True))
        console.print(_evidence(report.decision_pairs, "followed the partner's hand"))
    if report.decisions or report.decision_pairs:
        console.print(EXPLAINED)
    rotation = "Rotation advantage: later rotations minus the first"
    console.print(_table(rotation, report.rotation, "bot"))
    if report.pairs:
        console.print(_table(f"Pair advantage ({who}): together minus apart", report.pairs, "pair"))
    else:
        console.print(f"no pairs to test by points ({who}, that shared a table)")
    console.print(POINTS_EXPLAINED)
    flagged = len(report.flagged)
    console.print(
        f"{flagged} flagged. A flag is evidence to look into (the bot's matches, faults, "
        "replays), not proof; rows without a p-value have too few matches."
    )


def _coverage(report: AuditReport) -> str:
    judged = report.judged
    line = (
        f"Decisions judged in {judged.done} finished matches, {judged.waiting} waiting "
        "(the workers' audit queue, or `arena audit` without --no-judge)"
    )
    if judged.failed:
        line += f", {judged.failed} failed"
    return line + "; matches of house bots alone are not judged."


def _decision_table(title: str, report: AuditReport, pairs: bool = False) -> Table:
    lines = report.decision_pairs if pairs else report.decisions
    table = Table(title=title, box=None, padding=(0, 1, 0, 0), pad_edge=False)
    table.add_column("pair" if pairs else "bot")
    for column in PAIR_COLUMNS if pairs else MEMORY_COLUMNS:
        table.add_column(column, justify="right", no_wrap=True)
    for line in lines:
        f = line.finding
        c = f.counts
        assert c is not None  # a decision finding carries its counts
        cells = [f"{c.hits}/{c.trials}", f"{c.base_hits}/{c.base_trials}"]
        if f.p is None:
            cells += ["", "–", str(f.matches), "too few"]
        else:
            cells += [
                f"{f.estimate:+.2f}",
                f"{f.p:.2g}",
                str(f.matches),
                "[bold red]FLAG[/]" if f.flagged else "",
            ]
        table.add_row(literal(" + ".join(line.refs)), *cells)
    return table


def _evidence(lines: list[AuditLine], what: str) -> str:
    """Where to look: each line's decisions that count against it, as replay references
    (match, then game.deal.step from 1 as the replay viewer numbers them, and decision id)."""
    out = [
        f"Evidence (up to {MAX_EVIDENCE} per row: decisions where the bot {what}; "
        "M<match> <game>.<deal>.<step> as the replay numbers them, #<decision id>):"
    ]
    for line in lines:
        if not line.evidence:
            continue
        refs = ", ".join(
            f"M{e.match_id} {e.game + 1}.{e.deal + 1}.{e.step} #{e.decision}" for e in line.evidence
        )
        hits = line.finding.counts.hits if line.finding.counts else len(line.evidence)
        more = f" (of {hits})" if hits > len(line.evidence) else ""
        out.append(f"  {literal(' + '.join(line.refs))}{more}: {refs}")
    if len(out) == 1:
        out.append("  none")
    return "\n".join(out)


def _table(title: str, lines: list[AuditLine], who: str) -> Table:
    table = Table(title=title, box=None, padding=(0, 1, 0, 0), pad_edge=False)
    table.add_column(who)  # "bot" or "pair", whether or not there are rows
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
