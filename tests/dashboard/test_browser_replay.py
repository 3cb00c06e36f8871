"""The replay viewer in a real browser (Playwright driving Debian's Chromium, headless).

One finished match of house bots, 3 games of 2 deals (seats rotate each game), in which
one bot answers nonsense three times: two faults, then a third that forfeits its seat, so
the rest of the match is played for it by the referee. The numbers on the page are checked
against the record read in Python. Skipped locally without chromium or playwright; failed
under CI=true.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import pytest
from sqlalchemy import select

from arena.game import PAGAT
from arena.readmodels.records import shown_record
from arena.referee import Clock, play_match
from arena.registry import player_for
from arena.store import Match, add_bot_version, claim_match, create_tournament, record_result
from arena.tournaments.run import match_spec
from arena.tournaments.spec import TournamentSpec
from tests.dashboard import test_browser
from tests.dashboard.conftest import CLOCK, XSS
from tests.dashboard.test_browser import PHONE, shoot
from tests.views.players import Delegating

# the browser, a page of it and the dashboard it looks at (module fixtures, shared)
browser, page, served = test_browser.browser, test_browser.page, test_browser.served

BOTS = (("alpha", "heuristic"), ("beta", "random"), (XSS, "random"), ("gamma", "heuristic"))
FAULTY = 1  # beta: malformed answers at its decisions in BAD, the third one forfeits it
BAD = (2, 6, 20)  # its call is 1; 2..14 play deal 1, 15..28 deal 2 of game 1
STEPS = 56  # 4 calls and 52 cards a deal
BUTTONS = (
    "start of the deal",
    "previous trick",
    "previous step",
    "next step",
    "next trick",
    "end of the deal",
    "autoplay",
)


class Faulty(Delegating):
    """Answers its decisions numbered in ``BAD`` (from 1, across the match) with nonsense."""

    count = 0

    def decide(self, request, timeout_s):
        self.count += 1
        return "??" if self.count in BAD else self.inner.decide(request, timeout_s)


@dataclass(frozen=True)
class Replay:
    url: str
    record: dict[str, Any]


@pytest.fixture(scope="module")
def replay(served) -> Replay:
    base, db, runtime = served
    match_id = faulty_match(db, runtime)
    with db.session() as s:
        record = shown_record(s, match_id)
    assert record is not None and not record.get("progress")
    return Replay(f"{base}/matches/{match_id}", record)


def faulty_match(db, runtime) -> int:
    """A finished match of ``BOTS``, 3 games of 2 deals, played with beta ``Faulty``."""
    with db.session() as s:
        versions = [
            add_bot_version(
                s, runtime.blobs, n.encode(), {"name": n, "version": "1", "house": k}, "valid"
            )
            for n, k in BOTS
        ]
        settings = TournamentSpec(
            name="replays", rules=PAGAT.with_(deals_per_game=2), games_per_match=3, seed=3
        )
        settings = replace(settings, clock=Clock(**CLOCK))
        t = create_tournament(s, settings.columns(), versions, [(0, (0, 1, 2, 3), 11)])
        match_id = s.scalars(select(Match.id).where(Match.tournament_id == t.id)).one()
        lease = claim_match(s, match_id, "test")
    spec, ordered = match_spec(db, match_id)
    players = [player_for(db, runtime, v, i, runtime.log_dir()) for i, v in enumerate(ordered)]
    players[FAULTY] = Faulty(players[FAULTY])
    result = play_match(spec, players)
    with db.session() as s:
        record_result(s, lease, result, 0.5)
    return match_id


def visit(page, url: str) -> None:
    """A fresh load of ``url`` (a hash alone changed is no load: the page's own handling
    of it is tested apart)."""
    page.goto("about:blank")
    page.goto(url)


def step_of(page) -> tuple[int, int, int]:
    """(game, deal, step) as the step line shows them (game and deal from 1)."""
    text = page.locator("#step").inner_text()
    found = re.match(r"Game (\d+), deal (\d+), step (\d+)/56", text)
    assert found, text
    return int(found[1]), int(found[2]), int(found[3])


def at(page, game: int, deal: int, step: int) -> None:
    """The page shows that step, and its hash follows (written at most every 100 ms)."""
    assert step_of(page) == (game, deal, step)
    page.wait_for_function("h => location.hash === h", arg=f"#g{game}-d{deal}-s{step}")


def number(text: str) -> float:
    return float(text.replace("−", "-"))


def label(code: str) -> str:
    return code[:-1].replace("T", "10") + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[code[-1]]


def move_at(deal: dict, step: int) -> str:
    """The move shown at ``step`` (from 1): a call, or a card's label."""
    if step <= 4:
        return str(deal["calls"][(deal["dealer"] + step) % 4])
    trick = deal["tricks"][(step - 5) // 4]
    return label(trick["cards"][(step - 5) % 4])


def fault_step(record: dict, fault: dict) -> int:
    deal = record["games"][fault["game"]]["deals"][fault["deal"]]
    ids = [entry.get("id") for entry in deal["decisions"]]
    return ids.index(fault["decision"]) + 1


def test_a_finished_match_opens_with_all_hands_and_compact_backs_when_hidden(page, replay):
    visit(page, replay.url)
    assert page.locator("#all-hands").is_checked()
    assert step_of(page) == (1, 1, 0)
    deal = replay.record["games"][0]["deals"][0]
    shown = page.locator("#viewer .hand .card:not(.back)").all_inner_texts()
    assert sorted(shown) == sorted(label(c) for h in deal["hands"] for c in h.split())
    page.locator("#all-hands").uncheck()
    assert page.locator("#viewer .hand .card").count() == 4  # one back a seat, not 52
    assert page.locator("#viewer .hand .card.back").count() == 4
    assert page.locator("#viewer .hand .count").all_inner_texts() == ["13 cards"] * 4
    page.locator("#all-hands").check()
    assert page.locator("#viewer .hand .card:not(.back)").count() == 52


def test_the_keys_work_whatever_control_was_clicked_last(page, replay):
    visit(page, replay.url + "#g1-d1-s10")

    def focused_choice(selector: str, value: str):
        return lambda: (page.focus(selector), page.select_option(selector, value))

    controls = {
        "checkbox": lambda: page.locator("#all-hands").click(),
        "game select": focused_choice("#game", "1"),
        "deal select": focused_choice("#deal", "1"),
        "bottom select": focused_choice("#follow", "2"),
        "speed select": focused_choice("#speed", "250"),
        "button": lambda: page.get_by_role("button", name="next step").click(),
        "trick in the list": lambda: page.locator("#trick-list button").nth(2).click(),
        "deal in the scoresheet": lambda: page.locator("#sheet .deal-jump").first.click(),
        "slider": lambda: page.locator("#slider").click(),
    }
    for name, use in controls.items():
        use()
        game, deal, step = step_of(page)
        assert step < STEPS, name
        page.keyboard.press("ArrowRight")
        assert step_of(page) == (game, deal, step + 1), f"→ after the {name}"
        page.keyboard.press("ArrowDown")
        assert step_of(page)[2] % 4 == 0 and step_of(page)[2] > step + 1, f"↓ after the {name}"


def test_the_arrows_go_on_across_deals_and_games(page, replay):
    visit(page, replay.url + "#g1-d1-s56")
    at(page, 1, 1, 56)
    page.keyboard.press("ArrowRight")
    at(page, 1, 2, 0)
    page.keyboard.press("End")
    page.keyboard.press("ArrowRight")  # across the game boundary
    at(page, 2, 1, 0)
    assert page.locator("#game").input_value() == "1"
    page.keyboard.press("ArrowLeft")
    at(page, 1, 2, 56)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")  # a trick back from a deal's start: the previous deal's end
    at(page, 1, 2, 56)
    page.keyboard.press("ArrowDown")
    at(page, 2, 1, 0)
    page.keyboard.press("ArrowDown")
    at(page, 2, 1, 4)  # the calls
    page.keyboard.press("Home")
    at(page, 2, 1, 0)
    visit(page, replay.url + "#g3-d2-s56")
    page.keyboard.press("ArrowRight")  # the match's end: nowhere further
    assert step_of(page) == (3, 2, 56)


def test_a_step_url_opens_at_that_step_and_stepping_changes_it(page, replay):
    visit(page, replay.url + "#g2-d1-s9")
    assert step_of(page) == (2, 1, 9)
    assert page.locator("#viewer .trick .card").count() == 1  # the first card of trick 2
    assert page.locator("#slider").input_value() == "9"
    page.keyboard.press("ArrowRight")
    at(page, 2, 1, 10)
    page.get_by_role("button", name="next trick").click()
    at(page, 2, 1, 12)
    assert page.locator("#permalink").get_attribute("href") == "#g2-d1-s12"
    page.locator("#slider").fill("30")
    at(page, 2, 1, 30)
    page.reload()  # the link shared
    assert step_of(page) == (2, 1, 30)
    page.evaluate("location.hash = '#g3-d2-s5'")  # the hash edited in place
    page.wait_for_function(
        "document.getElementById('step').textContent.includes('Game 3, deal 2, step 5/')"
    )
    visit(page, replay.url + "#g9-d1-s3")  # no such game: the start
    assert step_of(page) == (1, 1, 0)


def test_the_scoresheet_shows_the_records_points(page, replay):
    record = replay.record
    visit(page, replay.url)
    for g, game in enumerate(record["games"]):
        page.select_option("#game", str(g))
        sheet = page.locator("#sheet")
        assert sheet.locator("thead th.num").all_inner_texts() == record["players"]
        running = [0.0] * 4
        for d, deal in enumerate(game["deals"]):
            cells = sheet.locator("tbody tr").nth(d).locator("td")
            for e in range(4):
                seat = game["seats"].index(e)
                cell = cells.nth(e)
                points = deal["points"][seat]
                running[e] += points
                assert number(cell.locator(".pts").inner_text()) == pytest.approx(points)
                assert number(cell.locator(".run").inner_text()) == pytest.approx(running[e])
                call, won = deal["calls"][seat], deal["won"][seat]
                assert cell.locator(".cw").inner_text() == f"{call}/{won}"
                sign = "+" if points > 0 else "−" if points < 0 else ""
                assert (
                    cell.get_attribute("title")
                    == f"called {call}, won {won} → {sign}{abs(points):g}"
                )
        totals = sheet.locator("tfoot tr.game-total td").all_inner_texts()
        expected = [game["scores"][game["seats"].index(e)] for e in range(4)]
        assert [number(t) for t in totals] == pytest.approx(expected)
    match = page.locator("#sheet tfoot tr.match-total td").all_inner_texts()
    assert [number(t) for t in match] == pytest.approx(record["totals"])
    assert "one more: +call" in page.locator("#scoring").inner_text()  # pagat's rule


def test_a_fault_says_what_the_referee_played(page, replay):
    record = replay.record
    faults = [f for f in record["faults"] if f["kind"] != "forfeit"]
    assert [f["kind"] for f in faults] == ["malformed"] * len(BAD)
    fault = faults[0]
    step = fault_step(record, fault)
    deal = record["games"][fault["game"]]["deals"][fault["deal"]]
    visit(page, replay.url)
    page.locator(".fault-jump").first.click()
    assert step_of(page) == (fault["game"] + 1, fault["deal"] + 1, step)
    line = page.locator("#step").inner_text()
    assert f"beta faulted (malformed): the referee played {move_at(deal, step)} for it" in line
    assert "malformed" in page.locator("#fault").inner_text()
    assert page.locator("#viewer .seat.faulted .mark.fault").inner_text() == "fault: malformed"
    assert page.locator("#viewer .seat.faulted .name").inner_text() == "beta"
    assert page.locator("#viewer .trick .card.referee").count() == 1
    page.keyboard.press("ArrowRight")
    assert page.locator("#viewer .seat .mark.fault").count() == 0


def test_a_forfeited_seat_is_marked_from_its_forfeit_on(page, replay):
    record = replay.record
    (forfeit,) = [f for f in record["faults"] if f["kind"] == "forfeit"]
    assert forfeit["entrant"] == FAULTY and forfeit["game"] == 0
    step = fault_step(record, forfeit)
    visit(page, replay.url + f"#g1-d{forfeit['deal'] + 1}-s{step - 1}")
    assert page.locator("#viewer .seat .mark.out").count() == 0
    page.keyboard.press("ArrowRight")
    assert "the seat is forfeited from here on" in page.locator("#step").inner_text()
    assert page.locator("#viewer .seat.forfeited .name").inner_text() == "beta"
    assert page.locator("#viewer .seat.forfeited .mark.out").inner_text() == "forfeited"
    visit(page, replay.url + "#g2-d1-s0")  # the next game: still out, its moves the referee's
    assert page.locator("#viewer .seat.forfeited .name").inner_text() == "beta"
    seat = record["games"][1]["seats"].index(FAULTY)
    deal = record["games"][1]["deals"][0]
    call_step = (seat - deal["dealer"] - 1) % 4 + 1
    visit(page, replay.url + f"#g2-d1-s{call_step}")
    line = page.locator("#step").inner_text()
    assert f"beta is forfeited: the referee called {deal['calls'][seat]} for it" in line


def test_a_bot_kept_at_the_bottom_stays_there_across_games(page, replay):
    record = replay.record
    visit(page, replay.url + "#g1-d2-s56")
    bottom = page.locator("#viewer .seat.pos0 .name")
    seated = []
    for g in range(3):
        page.select_option("#game", str(g))
        seated.append(bottom.inner_text())
    assert len(set(seated)) == 3  # seats rotate: by seat order the bottom changes
    page.select_option("#game", "0")
    page.select_option("#follow", label=XSS)
    assert bottom.inner_text() == XSS
    page.keyboard.press("ArrowRight")  # into game 2, where it sits in another seat
    at(page, 2, 1, 0)
    assert bottom.inner_text() == XSS
    assert page.locator("#viewer .seat.pos0").get_attribute("data-seat") == str(
        record["games"][1]["seats"].index(2)
    )
    page.select_option("#game", "2")
    assert bottom.inner_text() == XSS
    names = page.locator("#viewer .seat .name").all_inner_texts()
    assert sorted(names) == sorted(record["players"])


def test_every_button_has_a_name_and_works(page, replay):
    visit(page, replay.url + "#g1-d1-s10")
    for name in BUTTONS:
        assert page.get_by_role("button", name=name, exact=True).count() == 1, name
    button = lambda name: page.get_by_role("button", name=name, exact=True)  # noqa: E731
    button("end of the deal").click()
    at(page, 1, 1, STEPS)
    button("start of the deal").click()
    at(page, 1, 1, 0)
    button("next trick").click()
    at(page, 1, 1, 4)
    button("next step").click()
    at(page, 1, 1, 5)
    button("previous trick").click()
    at(page, 1, 1, 4)
    button("previous step").click()
    at(page, 1, 1, 3)
    assert page.get_by_role("group", name="step through the match").count() == 1
    assert page.get_by_role("slider", name="step in this deal").count() == 1


def test_autoplay_advances_and_stops(page, replay):
    visit(page, replay.url + "#g1-d1-s50")
    page.select_option("#speed", "250")
    play = page.get_by_role("button", name="autoplay")
    play.click()
    assert play.get_attribute("aria-pressed") == "true"
    page.wait_for_function("location.hash.startsWith('#g1-d2-')", timeout=30_000)  # on, across
    play.click()
    assert play.get_attribute("aria-pressed") == "false"
    paused = step_of(page)
    page.keyboard.press("Space")  # Space toggles it too (the button let go of the focus)
    assert play.get_attribute("aria-pressed") == "true"
    page.wait_for_function(
        "k => !document.getElementById('step').textContent.includes(`step ${k}/56`)",
        arg=paused[2],
        timeout=30_000,
    )
    page.keyboard.press("Space")
    assert play.get_attribute("aria-pressed") == "false"


def test_the_felt_marks_dealer_leader_turn_and_winner_apart(page, replay):
    deal = replay.record["games"][0]["deals"][0]
    visit(page, replay.url + "#g1-d1-s0")
    seat_with = lambda mark: page.locator(f"#viewer .seat:has(.mark.{mark})")  # noqa: E731
    assert seat_with("dealer").get_attribute("data-seat") == str(deal["dealer"])
    assert seat_with("act").get_attribute("data-seat") == str((deal["dealer"] + 1) % 4)
    assert seat_with("lead").count() == 0 and seat_with("won").count() == 0
    first = deal["tricks"][0]
    visit(page, replay.url + "#g1-d1-s8")  # the first trick complete
    assert seat_with("won").get_attribute("data-seat") == str(first["winner"])
    assert seat_with("act").get_attribute("data-seat") == str(first["winner"])  # leads next
    lead = seat_with("lead")
    assert lead.get_attribute("data-seat") == str(first["leader"])
    suit = label(first["cards"][0])[-1]
    assert lead.locator(".mark.lead").inner_text() == f"leads {suit}"
    assert page.locator("#viewer .trick .card.winner").count() == 1
    assert page.locator("#viewer .trick .card.lead").inner_text() == label(first["cards"][0])
    assert page.locator("#viewer .seat.acting").count() == 1
    page.keyboard.press("ArrowRight")
    assert seat_with("won").count() == 0
    assert seat_with("lead").get_attribute("data-seat") == str(first["winner"])


def test_the_trick_list_jumps_to_a_trick(page, replay):
    deal = replay.record["games"][0]["deals"][1]
    visit(page, replay.url + "#g1-d2-s0")
    rows = page.locator("#trick-list button")
    assert rows.count() == 13
    third = deal["tricks"][2]
    assert rows.nth(2).locator(".card").all_inner_texts() == [label(c) for c in third["cards"]]
    winner = replay.record["games"][0]["players"][third["winner"]]
    assert rows.nth(2).locator(".by").inner_text() == f"→ {winner}"
    rows.nth(2).click()
    at(page, 1, 2, 16)
    assert page.locator("#trick-list button[aria-current=step]").count() == 1
    assert rows.nth(2).get_attribute("aria-current") == "step"
    assert page.locator("#viewer .trick .card").all_inner_texts() == [
        label(c) for c in third["cards"]
    ]
    assert page.locator("#sheet thead th", has_text=XSS).count() == 1  # names as text
    shoot(page, "replay-viewer")


def test_the_viewer_fits_a_phone(page, replay):
    page.set_viewport_size(PHONE)
    visit(page, replay.url + "#g2-d1-s22")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    felt = page.locator("#viewer .felt").bounding_box()
    sheet = page.locator("#sheet").bounding_box()
    assert felt and sheet and sheet["y"] >= felt["y"] + felt["height"]  # stacked below
    shoot(page, "replay-viewer-phone")


def test_a_record_handed_in_by_event_is_drawn(page, replay):
    """A live match's page hands the viewer the record once the match is done (an event)."""
    visit(page, replay.url + "#g3-d2-s20")
    page.evaluate(
        """async url => {
          const record = await (await fetch(url)).json();
          record.games = record.games.slice(0, 2);
          const viewer = document.getElementById("viewer");
          viewer.dispatchEvent(new CustomEvent("record", { detail: record }));
        }""",
        replay.url + "/replay.json",
    )
    assert page.locator("#game option").count() == 2
    assert step_of(page) == (1, 1, 0)  # the hash's game 3 is not in it
    assert page.locator("#sheet caption").inner_text().startswith("Game 1 of 2:")
    assert page.locator("#follow option").count() == 5
