"""A bot's exception, as the referee records it ("the bot raised ValueError: ..."), reaches
the match page as text: its words stay escaped inside the page's record, which the viewer
shows with textContent."""

from __future__ import annotations

import json

from sqlalchemy import select

from arena.store import load_replay
from arena.store.models import Replay
from arena.store.results import compress_replay

REASON = "the bot raised ValueError: <img src=x onerror=alert(1)> & </script>"


def test_an_exception_faults_reason_is_text_on_the_match_page(client, db, site):
    with db.session() as s:
        record = load_replay(s, site.faulty)
        fault = next(f for f in record["faults"] if f["decision"] is not None)
        record["faults"].append(fault | {"kind": "exception", "reason": REASON})
        replay = s.scalar(select(Replay).where(Replay.match_id == site.faulty))
        replay.data = compress_replay(record)
    page = client.get(f"/matches/{site.faulty}").get_data(as_text=True)
    assert "<img" not in page and "onerror=alert(1)> &" not in page
    script = page.split('<script type="application/json" id="record">', 1)[1]
    shown = json.loads(script.split("</script>", 1)[0])
    assert shown["faults"][-1]["reason"] == REASON  # the same words, once unescaped
