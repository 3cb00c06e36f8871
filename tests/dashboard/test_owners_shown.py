"""Every list shows a bot's owner beside its name: two bots whose names a reader
could take for each other are told apart by who owns them."""

from __future__ import annotations

import re

from sqlalchemy import update

from arena.store import Bot, add_bot_version, owners_of
from tests.dashboard.users import make_user


def cells(html: str, name: str) -> list[str]:
    """The text of the table cells of the row naming ``name`` (tags stripped)."""
    row = next(r for r in re.findall(r"<tr>.*?</tr>", html, re.S) if f">{name}</a>" in r)
    return [
        re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    ]


def test_the_bot_list_and_the_standings_name_each_bots_owner(client, db, site):
    alice = make_user(db, "alice")
    with db.session() as s:  # one of the site's bots becomes alice's; another is a house bot
        s.execute(update(Bot).where(Bot.id == site.bots["alpha"]).values(owner_id=alice.id))
        add_bot_version(s, site.runtime.blobs, b"h", {"name": "house-random", "version": "1"})
    html = client.get("/bots/").get_data(as_text=True)
    assert cells(html, "alpha")[:2] == ["alpha", "alice"]
    assert cells(html, "beta")[:2] == ["beta", "operator"]
    assert cells(html, "house-random")[:2] == ["house-random", "house"]
    board = client.get(f"/tournaments/{site.tournament}").get_data(as_text=True)
    assert re.search(
        r">alpha</a>\s*<span class=\"version\">[^<]*</span>\s*<span class=\"owner\"[^>]*>alice<",
        board,
    )
    assert re.search(
        r">beta</a>\s*<span class=\"version\">[^<]*</span>\s*<span class=\"owner\"[^>]*>operator<",
        board,
    )
    page = client.get(f"/bots/{site.bots['alpha']}").get_data(as_text=True)
    assert re.search(r"<h1>alpha <span class=\"owner\"[^>]*>alice</span>", page)
    with db.session(read_only=True) as s:
        assert owners_of(s, site.bots.values())[site.bots["alpha"]] == "alice"
