"""``arena replay``: export, show and check match records; ask a bot again a decision
exported from a replay; read a tournament match's bot logs."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click
from rich.console import Console

from arena.bots.factory import make_player
from arena.cli.analyse import Verdicts, print_verdicts, stored_verdicts
from arena.cli.context import runtime_and_db, user_errors
from arena.cli.render import deal_lines, literal, standings_table, unique_names
from arena.game import RecordError, check_game_record, validate_record
from arena.players.player import BotFault
from arena.readmodels.decision import load_decision
from arena.readmodels.logs import decision_lines
from arena.readmodels.records import shown_record
from arena.referee.moves import checked
from arena.store import bot_logs, get_match, version_refs
from arena.text import plural, printable

LOG_TAIL = 20  # lines of a bot's log shown when it failed before writing at the decision


@click.group()
def replay() -> None:
    """Work with saved game and match records."""


@replay.command("check")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def check(file: Path) -> None:
    """Re-play FILE from its seed and moves; report the first inconsistency."""
    record = _read_record(file)
    problem = validate_record(record)
    if problem:
        raise click.ClickException(f"{file}: {problem}")
    click.echo(f"{file}: consistent with the rules")


@replay.command("export")
@click.argument("match_id", type=int)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write it (- for stdout) [default: match-MATCH_ID.json].",
)
def export(match_id: int, output: Path | None) -> None:
    """Write the record of tournament match MATCH_ID (once it has finished) as JSON: the file
    `replay show` and `replay check` read."""
    text = _stored_record(match_id)
    if str(output) == "-":
        click.echo(text)
        return
    output = output or Path(f"match-{match_id}.json")
    output.write_text(text)
    click.echo(f"match {match_id}: record written to {output}")


@replay.command("show")
@click.argument("source")
@click.option("--game", "game_no", type=click.IntRange(1), help="Only this game (from 1).")
@click.option("--deal", "deal_no", type=click.IntRange(1), help="Only this deal (from 1).")
@click.option("--hands", is_flag=True, help="Show each seat's dealt hand too.")
@click.option(
    "--analysis",
    is_flag=True,
    help="After each deal, the master's verdict on each analysed entrant's decisions "
    "(SOURCE a match id; `arena analyse MATCH_ID` makes them).",
)
def show(
    source: str, game_no: int | None, deal_no: int | None, hands: bool, analysis: bool
) -> None:
    """Print a match record deal by deal, as `arena play` does. SOURCE is a record file (from
    `arena play --replay` or `replay export`) or the id of a finished tournament match."""
    path = Path(source)
    if path.is_file() and not analysis:
        record = _read_record(path)
    elif source.isdigit():
        record = json.loads(_stored_record(int(source)))
    else:
        what = "a match id (analyses are stored)" if analysis else "not a match id"
        raise click.ClickException(f"{source}: no such record file, and {what}")
    verdicts = _stored_verdicts(int(source)) if analysis else {}
    games = record.get("games") if isinstance(record, dict) else None
    if not isinstance(games, list):
        raise click.ClickException(f"{source}: not a match record (no games)")
    if game_no is not None and game_no > len(games):
        raise click.ClickException(f"{source}: the match has {plural(len(games), 'game')}")
    console = Console()
    for g, game_record in enumerate(games):
        if game_no is not None and g + 1 != game_no:
            continue
        try:
            deals = check_game_record(game_record).finished
        except RecordError as exc:
            raise click.ClickException(f"{source}: game {g + 1}: {exc}") from None
        if deal_no is not None and deal_no > len(deals):
            raise click.ClickException(f"{source}: a game has {plural(len(deals), 'deal')}")
        names = unique_names(game_record["players"])
        for d, deal in enumerate(deals):
            if deal_no is None or deal.index + 1 == deal_no:
                for line in deal_lines(g, deal, names, hands=hands):
                    console.print(line, highlight=False)
                print_verdicts(console, verdicts, g, d, unique_names(record["players"]))
    if game_no is None and deal_no is None:
        tenths = [round(10 * t) for t in record["totals"]]
        forfeited = ["yes" if f else "" for f in record.get("forfeited", [False] * 4)]
        table = standings_table(unique_names(record["players"]), tenths, {"forfeited": forfeited})
        console.print(table)
    for fault in record.get("faults", []):
        if (game_no is None or fault.get("game") == game_no - 1) and deal_no is None:
            who = literal(unique_names(record["players"])[fault["entrant"]])
            console.print(f"[yellow]fault[/] {who} {fault['kind']}: {literal(fault['reason'])}")


def _stored_verdicts(match_id: int) -> Verdicts:
    """The stored analyses' verdicts of the match (``arena analyse`` makes them)."""
    with user_errors():
        _, db = runtime_and_db()
        verdicts = stored_verdicts(db, match_id)
    if not verdicts:
        raise click.ClickException(
            f"match {match_id} has no finished analysis: `arena analyse {match_id}` makes one"
        )
    return verdicts


def _read_record(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"{path}: not a JSON record ({exc})") from None


def _stored_record(match_id: int) -> str:
    """A finished tournament match's record from the configured database, as JSON text:
    the record as anybody may see it (``arena.readmodels.records``), so none before the end."""
    with user_errors():
        _, db = runtime_and_db()
        with db.session(read_only=True) as s:
            record = shown_record(s, match_id)
    if record is None or record.get("progress"):
        raise click.ClickException(
            f"match {match_id} has not finished: its cards are shown once every rotation "
            "of its deals has been played"
        )
    return json.dumps(record)


@replay.command("decision")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--bot",
    "bot",
    required=True,
    help="A bot directory or zip (run in the sandbox), or a house bot name.",
)
def decision(file: Path, bot: str) -> None:
    """Ask BOT the decision exported in FILE (from the dashboard's replay viewer); print what
    it wrote to its log at that decision (its stderr, a traceback), its answer and whether
    it is legal."""
    try:
        loaded = load_decision(json.loads(file.read_text()))
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError) as exc:
        raise click.ClickException(f"{file}: {exc}") from None
    request = loaded.request
    with tempfile.TemporaryDirectory(prefix="arena-decision-") as log_dir:
        with user_errors():
            player = make_player(bot, log_dir=Path(log_dir))
        failure = None
        try:
            player.start(loaded.info, loaded.startup_ms / 1000)
            raw = player.decide(request, request.decision_ms / 1000)
            move = checked(request.kind, raw, request.observation)
        except BotFault as exc:
            failure = f"{player.name} failed: {exc.kind}: {exc.reason}"
        finally:
            player.close()  # its output is all in the log once it is stopped
        _print_log(getattr(player, "log_path", None), request.id, failure is not None)
    if failure is not None:
        raise click.ClickException(failure)
    what = "call" if request.kind == "call" else "card"
    click.echo(f"decision {request.id} ({request.kind}), {player.name} answers: {what} {move}")


def _print_log(path: Path | None, decision_id: int, failed: bool) -> None:
    """A process bot's log lines around the decision's marker; when it failed without
    writing a line once asked (at start-up, say), the end of its log instead."""
    text = path.read_text(errors="replace") if path is not None and path.exists() else ""
    lines = decision_lines(text, decision_id)
    if lines is not None:
        click.echo(f"its log at decision {decision_id}:")
    elif failed and text.strip():
        click.echo(f"its log (nothing written once asked decision {decision_id}) ends:")
        lines = [printable(line) for line in text.rstrip("\n").split("\n")[-LOG_TAIL:]]
    for line in lines or []:
        click.echo(f"  {line}")


@replay.command("logs")
@click.argument("match_id", type=int)
def logs(match_id: int) -> None:
    """What each process bot of a finished match wrote (the end of it), from the database."""
    with user_errors():
        _, db = runtime_and_db()
        with db.session(read_only=True) as s:
            get_match(s, match_id)
            texts = bot_logs(s, match_id)
            refs = version_refs(s, texts)
    if not texts:
        click.echo(f"match {match_id} has no bot logs (not finished, or house bots only)")
    for version_id, text in sorted(texts.items(), key=lambda item: refs[item[0]]):
        click.echo(f"== {refs[version_id]} ==")
        lines = text.rstrip("\n").split("\n")  # a bot wrote it: no control characters
        click.echo("\n".join(printable(line) for line in lines) or "(nothing written)")
