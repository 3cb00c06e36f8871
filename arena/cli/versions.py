"""``arena bot compare``, ``arena bot current`` and ``arena bot promotion``: is a new version
better, which version plays, and when the next one takes over; here (the local database,
played on this machine) or on a server (``--server``, with an API token), printing the
same figures either way."""

from __future__ import annotations

import time
import urllib.parse

import click
from rich.console import Console
from rich.table import Table

from arena.cli.api_client import ApiError, Client, find_token
from arena.cli.context import runtime_and_db, unsafe_no_sandbox, user_errors
from arena.comparisons.play import play_comparison
from arena.comparisons.promotion import make_current, set_promotion
from arena.comparisons.start import start_comparison
from arena.ladders.entrants import ANCHORS
from arena.ratings.sprt import Bounds, Summary
from arena.readmodels.comparisons import comparison_view
from arena.store.models import PROMOTIONS, Comparison

POLL_S = 3.0
DEFAULT_MATCHES = 2 * Bounds().cap
server_option = click.option(
    "--server",
    envvar="ARENA_SERVER",
    help="Do it on this dashboard (e.g. http://arena.example:8000; or ARENA_SERVER) with your "
    "API token, instead of in the local database.",
)


@click.command("compare")
@click.argument("baseline")
@click.argument("candidate")
@click.option(
    "--matches",
    type=click.IntRange(2, 200),
    default=DEFAULT_MATCHES,
    show_default=True,
    help="At most this many matches (pairs of two).",
)
@click.option(
    "--opponents",
    default=",".join(ANCHORS),
    show_default=True,
    help="Three opponents (house bots, or NAME@VERSION of other owners' bots); local only.",
)
@click.option("--workers", type=click.IntRange(1), default=2, show_default=True)
@server_option
@unsafe_no_sandbox
def compare_command(
    baseline: str, candidate: str, matches: int, opponents: str, workers: int, server: str | None
) -> None:
    """Is CANDIDATE (NAME@VERSION) better than BASELINE (NAME@VERSION, or the VERSION alone)?
    Pairs of matches on the same deals, seats and opponents, one with each version, until a
    sequential test says better, worse or not separated (within 0.5 points a deal of each
    other), or --matches are played. Exit status 0 unless the candidate is found worse."""
    if "@" not in baseline and "@" in candidate:
        baseline = f"{candidate.split('@', 1)[0]}@{baseline}"
    if server:
        view = _compare_on(server, baseline, candidate, matches // 2)
    else:
        with user_errors():
            view = _compare_here(baseline, candidate, matches // 2, opponents, workers)
    print_comparison(view)
    if view["verdict"] == "worse":
        raise SystemExit(1)


def _compare_here(baseline: str, candidate: str, pairs: int, opponents: str, workers: int) -> dict:
    runtime, db = runtime_and_db()
    rivals = [name.strip() for name in opponents.split(",") if name.strip()]
    comparison_id = start_comparison(
        db, runtime, baseline, candidate, bounds=Bounds(cap=pairs), opponents=rivals
    )
    console = Console(stderr=True)
    shown = [-1]

    def progress(summary: Summary) -> None:
        if summary.pairs != shown[0]:
            shown[0] = summary.pairs
            console.print(f"pair {summary.pairs} of at most {pairs}: {_delta(summary.to_dict())}")

    play_comparison(db, runtime, comparison_id, workers, progress)
    with db.session(read_only=True) as s:
        return comparison_view(s, s.get_one(Comparison, comparison_id)).as_dict()


def _compare_on(server: str, baseline: str, candidate: str, pairs: int) -> dict:
    name, _, old = baseline.partition("@")
    new = candidate.partition("@")[2]
    path = f"/api/v1/bots/{urllib.parse.quote(name, safe='')}/comparisons"
    console = Console(stderr=True)
    try:
        client = Client(server, find_token())
        view = client.post(path, {"baseline": old, "candidate": new, "pairs": pairs})
        shown = -1
        while view["status"] == "running":
            if view["pairs"] != shown:
                shown = view["pairs"]
                console.print(f"pair {shown} of at most {pairs}: {_delta(view)}")
            time.sleep(POLL_S)
            listed = client.get(path)["comparisons"]
            view = next(c for c in listed if c["id"] == view["id"])
        return view
    except ApiError as exc:
        raise click.ClickException(str(exc)) from None


def print_comparison(view: dict) -> None:
    """The figures the bot page shows, as a table."""
    table = Table(title=f"{view['candidate']} against {view['baseline']}", title_justify="left")
    table.add_column("figure")
    table.add_column("value")
    bounds = view["bounds"]
    table.add_row(
        "matches", f"{view['matches']} ({view['pairs']} pairs, at most {view['pairs_cap']})"
    )
    table.add_row("Δ points a deal", _delta(view))
    elo = view["elo"]
    if elo is not None:
        table.add_row("Elo difference", f"{elo:+.0f} ± {view['elo_half_width']:.0f} (pairs won)")
    faults = ", ".join(f"{ref}: {n}" for ref, n in view["faults"].items()) or "none"
    table.add_row("faults", faults)
    verdict = view["verdict"] or "not yet"
    table.add_row("verdict", verdict + (" (took the ladder seat)" if view["promoted"] else ""))
    Console().print(table)
    click.echo(
        f"test: better or worse by {bounds['delta']} points a deal, "
        f"α = {bounds['alpha']}, β = {bounds['beta']} (docs/comparisons.md)"
    )


def _delta(view: dict) -> str:
    if view.get("delta") is None or not view.get("pairs"):
        return "no pair played yet"
    half = view.get("half_width")
    spread = f" ± {half:.2f}" if half is not None else ""
    return f"{view['delta']:+.2f}{spread} (95% interval)"


@click.command("current")
@click.argument("ref")
@server_option
def current_command(ref: str, server: str | None) -> None:
    """Make REF (NAME@VERSION, a valid version) the one its bot's ladders seat: a rollback,
    or promoting a version its policy kept back."""
    if server:
        name, _, version = ref.partition("@")
        reply = _post(server, f"{name}/current", {"version": version})
        click.echo(reply["message"])
        return
    with user_errors():
        _, db = runtime_and_db()
        click.echo(make_current(db, ref, None))


@click.command("promotion")
@click.argument("name")
@click.argument("policy", type=click.Choice(PROMOTIONS))
@server_option
def promotion_command(name: str, policy: str, server: str | None) -> None:
    """When a new valid version of NAME takes its ladder seat: now (at once), if-not-worse
    (unless its comparison with the current one finds it worse) or keep (when you make it
    current). Every new version is compared with the current one whatever the policy."""
    if server:
        _post(server, f"{name}/promotion", {"promotion": policy})
    else:
        with user_errors():
            _, db = runtime_and_db()
            set_promotion(db, name, policy, None)
    click.echo(f"{name}: promotion {policy}")


def _post(server: str, path: str, data: dict) -> dict:
    try:
        return Client(server, find_token()).post(f"/api/v1/bots/{path}", data)
    except ApiError as exc:
        raise click.ClickException(str(exc)) from None
