"""A bot's log page shows the platform's decision markers apart from the bot's lines: each
marker a highlighted line with the replay step's id, linking to that step of the match's
replay; a line the bot wrote is text, however much it looks like a marker."""

from __future__ import annotations

import re

from sqlalchemy import insert, select, update

from arena.store import Bot, BotLog, BotVersion
from tests.dashboard.users import log_in, make_user

MARK = "\x1e── game 1 · deal 2 · step 7 · decision 31 (play, trick 1) ──"
FORGED = "── game 1 · deal 2 · step 9 · decision 40 (play, trick 2) ──"
LOG = "\n".join(
    [
        "[arena: start 1 of alpha]",
        MARK,
        "thinking <b>hard</b>",
        FORGED,
        "\x1b[31m<script>alert(1)</script>",
        MARK,  # the same step twice (two seats' logs joined): one anchor
        "",
    ]
)


def test_markers_are_shown_apart_and_link_to_the_replay(client, db, site):
    alice = make_user(db, "alice")
    bot_id = site.bots["alpha"]
    match_id = site.done[0]
    with db.session() as s:
        s.execute(update(Bot).where(Bot.id == bot_id).values(owner_id=alice.id))
        version = s.scalar(select(BotVersion.id).where(BotVersion.bot_id == bot_id))
        s.execute(insert(BotLog).values(match_id=match_id, bot_version_id=version, text=LOG))
    log_in(client, "alice")
    page = client.get(f"/bots/{bot_id}/logs/1/matches/{match_id}").get_data(as_text=True)
    log = re.search(r'<pre class="log">(.*?)</pre>', page, re.S)[1]
    marks = re.findall(r'<span class="mark"( id="[^"]*")?>(.*?)</span>', log, re.S)
    assert [anchor for anchor, _ in marks] == [' id="g1-d2-s7"', ""]
    href = f'<a href="/matches/{match_id}#g1-d2-s7">{MARK[1:]}</a>'
    assert marks[0][1] == href
    assert marks[1][1] == MARK[1:]  # no second element with that id: the link is the first's
    assert "\x1e" not in log and "\x1b" not in log
    assert f"\n{FORGED}\n" in log  # the bot's imitation: a plain line
    assert "thinking &lt;b&gt;hard&lt;/b&gt;" in log
    assert "&lt;script&gt;" in log and "<script>" not in log
