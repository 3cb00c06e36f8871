"""No card of a deal is shown before every rotation of it has been played (fair play): a
running match, half played by the real match job, and a match whose record lacks a
rotation show their scores only, on the page, the API, the downloads and the CLI; once the
match is done, everything."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner
from sqlalchemy import update

from arena.cli import main
from arena.store import Replay, load_replay
from arena.store.results import compress_replay
from tests.dashboard.conftest import playing
from tests.views.players import PauseAfter

CARD = re.compile(r'"(?:[2-9TJQKA][SHDC])(?: [2-9TJQKA][SHDC])*"')  # a card or a hand
CARD_KEYS = ('"hands"', '"calls"', '"tricks"', '"decisions"', '"seed"', '"reason"', '"won"')


def cli(db, *args: str):
    """``arena ARGS`` on the test's database, as an operator would type it."""
    env = {"ARENA_DATABASE_URL": db.url.render_as_string(hide_password=False)}
    return CliRunner().invoke(main, list(args), env=env)


def readers(client, db, match_id: int) -> dict[str, str]:
    """What every reader of a match's record hands out, as text."""
    decision = f"/api/v1/matches/{match_id}/games/1/decisions/1"
    return {
        "page": client.get(f"/matches/{match_id}").get_data(as_text=True),
        "api": client.get(f"/api/v1/matches/{match_id}/replay").get_data(as_text=True),
        "download": client.get(f"/matches/{match_id}/replay.json").get_data(as_text=True),
        "progress": client.get(f"/matches/{match_id}/progress").get_data(as_text=True),
        "decision": client.get(decision).get_data(as_text=True),
        "export": cli(db, "replay", "export", str(match_id), "-o", "-").output,
        "show": cli(db, "replay", "show", str(match_id), "--hands").output,
    }


def assert_no_card(shown: dict[str, str], final: dict) -> None:
    for name, text in shown.items():
        assert not CARD.search(text), name
        assert not any(key in text for key in CARD_KEYS), name
        for game in final["games"]:
            for deal in game["deals"]:
                assert not any(hand in text for hand in deal["hands"]), name
    for command in ("export", "show"):
        assert "has not finished: its cards are shown once every rotation" in shown[command]


def test_a_running_match_shows_scores_and_no_card_until_it_ends(client, site, db):
    with playing(db, site, PauseAfter(deals=1, decisions=2)) as pause:
        assert pause.paused.wait(30)  # game 1, deal 2: deal 1 is over (its cards all played)
        running = readers(client, db, site.running)
        shown = client.get(f"/api/v1/matches/{site.running}/replay").get_json()
    with db.session(read_only=True) as s:
        final = load_replay(s, site.running)

    assert_no_card(running, final)
    assert client.get(f"/api/v1/matches/{site.running}/games/1/decisions/1").status_code == 200
    assert shown["progress"] and shown["partial"]
    first = final["games"][0]
    assert shown["games"] == [
        {
            "players": first["players"],
            "seats": first["seats"],
            "scores": first["deals"][0]["points"],  # after one deal
            "deals": [{"index": 0, "points": first["deals"][0]["points"]}],
        }
    ]
    assert json.loads(running["download"]) == shown
    assert '<script type="application/json" id="record">null</script>' in running["page"]
    assert "<caption>Game 1</caption>" in running["progress"] and "viewer" in running["page"]
    assert "<caption>Game 2</caption>" not in running["progress"]

    done = readers(client, db, site.running)
    whole = json.loads(done["api"])
    assert "progress" not in whole and whole["games"] == final["games"]
    assert json.loads(done["export"]) == whole
    assert (
        final["games"][1]["deals"][1]["hands"][0]
        in json.loads(re.search(r'id="record">(.*?)</script>', done["page"], re.S)[1])["games"][1][
            "deals"
        ][1]["hands"]
    )
    assert "deal-scores" not in done["page"]
    assert json.loads(done["decision"])["format"] == "callbreak-decision"


def test_a_finished_match_missing_a_rotation_shows_scores_only(client, site, db):
    """Partially recorded: the stored record lacks game 2, whose rotation of the deals
    was (as far as the record tells) never played."""
    match_id = site.done[0]
    with db.session() as s:
        final = load_replay(s, match_id)
        cut = {**final, "games": final["games"][:1]}
        s.execute(
            update(Replay).where(Replay.match_id == match_id).values(data=compress_replay(cut))
        )
    shown = readers(client, db, match_id)
    assert_no_card(shown, final)
    assert json.loads(shown["api"])["progress"] is True
    assert "decisions are not public yet" in shown["decision"]
    assert "<caption>Game 1</caption>" in shown["page"]  # its scores, in the page
