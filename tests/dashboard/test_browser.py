"""The dashboard in a real browser: Playwright driving Debian's Chromium, headless.

A small tournament of house bots runs in a thread while the browser watches its page; then
the leaderboard, a bot page and a match are opened, a trick is stepped through with the
keyboard, all hands are shown, and a decision is exported and replayed through the random
sample bot in the sandbox. Screenshots of the main pages go to $ARENA_SCREENSHOTS
(docs/screenshots/ for the README).
Skipped locally without chromium or playwright; failed under CI=true.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select
from werkzeug.serving import make_server

from arena.cli import main
from arena.config import Settings
from arena.referee import Clock
from arena.runtime import Runtime
from arena.sandbox import SandboxPolicy
from arena.store import (
    BotVersion,
    Database,
    create_tournament,
    pending_matches,
    set_tournament_status,
    upgrade,
)
from arena.tournaments.cache import CACHE
from arena.tournaments.run import run_match
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import snapshot
from dashboard import create_app
from tests.dashboard.conftest import CLOCK, RULES, XSS, fill
from tests.support import need, need_sandbox
from tests.views.players import PauseAfter, first_player_paused

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
# The README's screenshots: refreshed with ARENA_SCREENSHOTS=docs/screenshots; otherwise
# they are still taken, into a scratch folder, so that a test run leaves the tree clean.
SHOTS = Path(os.environ.get("ARENA_SCREENSHOTS") or tempfile.mkdtemp(prefix="arena-shots-"))
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def browser():
    need(Path(CHROMIUM).exists(), f"no chromium at {CHROMIUM} (apt install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        need(False, "the playwright package is missing (pip install -e '.[dev]')")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[str, Database, Runtime]]:
    """The dashboard on a SQLite file, served on a free loopback port."""
    tmp = tmp_path_factory.mktemp("browser")
    url = f"sqlite:///{tmp / 'arena.db'}"
    upgrade(url)
    db = Database(url)
    runtime = Runtime(Settings(url, tmp / "data", ""))
    CACHE.clear()
    server = make_server("127.0.0.1", 0, create_app(Database(url), runtime), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", db, runtime
    server.shutdown()
    db.dispose()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    yield page
    context.close()
    assert not dialogs, f"a script ran: {dialogs}"  # e.g. the bot named <script>alert(1)</script>


def live_tournament(db: Database) -> int:
    """A running tournament of the four stored bots: four tables, not played yet."""
    tables = [(i, tuple((i + k) % 4 for k in range(4)), 300 + i) for i in range(4)]
    with db.session() as s:
        versions = list(s.scalars(select(BotVersion).order_by(BotVersion.id)))
        spec = TournamentSpec(name="live cup", rules=RULES, games_per_match=2, seed=9)
        spec = replace(spec, clock=Clock(**CLOCK))
        t = create_tournament(s, spec.columns(), versions, tables)
        set_tournament_status(s, t.id, "running")
        return t.id


def play_slowly(db: Database, runtime: Runtime, tournament_id: int, delay: float) -> None:
    """Play the matches one at a time, ``delay`` seconds apart, as a slow executor would."""
    with db.session(read_only=True) as s:
        todo = [m.id for m in pending_matches(s, tournament_id)]
    for match_id in todo:
        time.sleep(delay)
        run_match(db, runtime, match_id, "browser-test")
    snapshot(db, tournament_id)
    with db.session() as s:
        set_tournament_status(s, tournament_id, "done")


def shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_the_dashboard_in_a_browser(page, served, tmp_path):
    base, db, runtime = served
    site = fill(db, runtime)
    live = live_tournament(db)
    player = threading.Thread(target=play_slowly, args=(db, runtime, live, 2.0))
    player.start()
    try:
        watch_progress(page, f"{base}/tournaments/{live}")
    finally:
        player.join()
    page.reload()
    assert page.locator("#progress .status").inner_text() == "done"
    shoot(page, "tournament")

    page.goto(base + "/leaderboard")
    assert page.locator("#board-title").inner_text() == f"#{live} live cup"
    assert page.locator("table.board tbody tr").count() == 4
    assert page.get_by_role("link", name=XSS).count() == 1  # the name is text, not a tag
    shoot(page, "leaderboard")

    page.goto(f"{base}/bots/{site.bots[XSS]}")
    assert page.locator("h1").inner_text() == f"{XSS} operator"  # its name, and whose it is

    step_through_a_trick(page, f"{base}/matches/{site.faulty}")
    shoot(page, "replay")
    export_and_replay(page, tmp_path)
    page.set_viewport_size(PHONE)
    page.locator("#all-hands").uncheck()
    shoot(page, "replay-phone")
    page.goto(base + "/leaderboard")
    shoot(page, "leaderboard-phone")
    page.set_viewport_size(DESKTOP)
    watch_a_running_match(page, base, db, runtime)


def watch_progress(page, url: str) -> None:
    """The progress count moves while the page stays loaded (no navigation)."""
    page.goto(url)
    page.evaluate("window.loadedOnce = true")
    first = page.locator('[data-field="count"]').inner_text()
    page.wait_for_function(
        "first => document.querySelector('[data-field=count]').textContent !== first",
        arg=first,
        timeout=20_000,
    )
    assert page.evaluate("window.loadedOnce") is True
    page.wait_for_function(
        "document.querySelector('[data-field=count]').textContent.startsWith('4 / 4')",
        timeout=30_000,
    )
    assert page.locator("#board table.board tbody tr").count() == 4  # swapped in live
    # a snapshot after every match (4 tables: a tenth is 1), each bot a dot in each
    page.wait_for_function("document.querySelectorAll('#chart circle.dot').length === 16")
    assert page.evaluate("window.loadedOnce") is True


def watch_a_running_match(page, base: str, db: Database, runtime: Runtime) -> None:
    """A match played by the match job: its page shows the points of the finished deal and
    no card, gains the next deal's points without a reload, then turns into the finished
    match's page with its replay."""
    with db.session(read_only=True) as s:
        match_id = pending_matches(s, live_tournament(db))[0].id
    pause = PauseAfter(deals=1, decisions=2)  # entrant 0, early in the 2nd deal
    status: list[str] = []
    job = threading.Thread(target=lambda: status.append(run_match(db, runtime, match_id, "b")))
    rows = "document.querySelectorAll('#deal-scores tbody tr').length"
    with first_player_paused(pause):
        job.start()
        try:
            assert pause.paused.wait(30)
            page.goto(f"{base}/matches/{match_id}")
            page.evaluate("window.loadedOnce = true")
            assert page.locator("#match-status").inner_text() == "running"
            assert page.locator("#viewer").is_hidden()
            assert page.evaluate(rows) == 2  # deal 1 and the total so far
            assert page.locator(".card").count() == 0
            pause.release(then_after=2)
            page.wait_for_function(f"{rows} === 3")  # game 1's deal 2 has ended
            assert page.locator(".card").count() == 0
        finally:
            pause.release()
            job.join(60)
    assert status == ["done"]
    page.wait_for_function("document.getElementById('match-status').textContent === 'done'")
    page.wait_for_function("document.querySelectorAll('#game option').length === 2")
    assert page.locator("#viewer").is_visible() and page.locator("#deal-scores").is_hidden()
    assert page.locator("#live-note").is_hidden()
    assert page.evaluate("window.loadedOnce") is True


def step_through_a_trick(page, url: str) -> None:
    page.goto(url)
    assert page.locator("#viewer .name", has_text=XSS).count() == 1  # a seat name, as text
    assert page.locator("#viewer .trick .card").count() == 0
    assert page.locator("#viewer .hand .card:not(.back)").count() == 52  # a finished match's
    page.locator("#all-hands").uncheck()
    assert page.locator("#viewer .hand .card:not(.back)").count() == 0  # hands face down
    for _ in range(8):  # four calls, then the four cards of the first trick
        page.keyboard.press("ArrowRight")
    assert page.locator("#viewer .trick .card").count() == 4
    assert page.locator("#viewer .trick .card.winner").count() == 1
    assert "step 8/56" in page.locator("#step").inner_text()
    page.keyboard.press("ArrowLeft")
    assert page.locator("#viewer .trick .card").count() == 3
    page.keyboard.press("ArrowDown")  # completes the trick
    assert "step 8/56" in page.locator("#step").inner_text()
    page.keyboard.press("ArrowDown")  # the whole next trick
    assert "step 12/56" in page.locator("#step").inner_text()
    page.locator("#all-hands").check()
    assert page.locator("#viewer .hand .card:not(.back)").count() == 52 - 12 + 4
    page.locator(".fault-jump").first.click()
    assert "malformed" in page.locator("#fault").inner_text()


def export_and_replay(page, tmp_path: Path) -> None:
    """Download the faulty decision and ask the random sample bot, sandboxed, again."""
    with page.expect_download() as download:
        page.locator("#export").click()
    path = tmp_path / "decision.json"
    download.value.save_as(path)
    exported = json.loads(path.read_text())
    assert exported["played"]["fault"] == "malformed"
    need_sandbox(SandboxPolicy(mode="bwrap"))
    bot = str(ROOT / "sample_bots" / "random")
    result = CliRunner().invoke(main, ["replay", "decision", str(path), "--bot", bot])
    assert result.exit_code == 0, result.output
    assert f"decision {exported['request']['id']}" in result.output
    assert "answers:" in result.output
