"""The dashboard says which model produced the Elo and what it is relative to, and labels
its columns (page and API), for a tournament and for the all-games ladder."""

from __future__ import annotations

import re

from sqlalchemy import update

from arena.store import Tournament
from arena.tournaments.cache import CACHE


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_leaderboard_page_names_model_scale_and_columns(client, site):
    page = _text(client.get(f"/leaderboard?tournament={site.tournament}").get_data(as_text=True))
    assert "Elo by margin model (points against the table, Elo-calibrated)" in page
    assert "relative to this tournament: the mean of its bots is 1500" in page
    assert "Calls made: share of its calls (one per deal) the bot made" in page
    ladder = _text(client.get("/leaderboard?tournament=all").get_data(as_text=True))
    assert "relative to every game played (tournaments and ladders)" in ladder


def test_the_api_carries_the_model_and_follows_the_tournament(client, site, db):
    url = f"/api/v1/tournaments/{site.tournament}/standings"
    body = client.get(url).get_json()
    assert body["model"] == "margin" and "relative to this tournament" in body["scale"]
    board = client.get(f"/api/v1/leaderboard?tournament={site.tournament}").get_json()
    assert board["model"] == "margin" and board["scale"] == body["scale"]
    elo = {row["bot_version_id"]: row["elo"] for row in body["rows"]}

    with db.session() as s:  # the same games under the other model
        s.execute(
            update(Tournament)
            .where(Tournament.id == site.tournament)
            .values(rating_model="bradley-terry")
        )
    CACHE.clear()
    other = client.get(url).get_json()
    assert other["model"] == "bradley-terry" and "Bradley-Terry" in other["scale"]
    assert {row["bot_version_id"]: row["elo"] for row in other["rows"]} != elo
