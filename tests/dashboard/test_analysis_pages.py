"""Match analyses on the pages (Flask test client): a finished match's page shows each
entrant's analyses (queued, running with its progress, failed with its reason, done with its
summary) and a request button only to the owner of the entrant's bot and organisers; the
button's POST asks the service (queued and handed to the workers; another user's refused
with the logs' 404; the hour's quota shown as a flash); a done analysis is embedded for the
replay viewer; the bot page pools the bot's analysed matches into its mean loss."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select

from arena import analysis_runs
from arena.analysis import DEFAULT_SAMPLES, Analysis
from arena.readmodels.analyses import pooled
from arena.store import BlobStore, BotVersion, Database, Match
from arena.store.analyses import claim_analysis, fail_analysis, save_progress
from arena.store.models import MatchAnalysis
from tests.analysis_runs.site import Played, play, played_match
from tests.dashboard.test_analysis_api import app_client
from tests.dashboard.users import log_in, post_form

SAMPLES = 64  # the smallest budget: a real analysis of a one-deal match in about a second
ASK = re.compile(
    r'<input type="hidden" name="entrant" value="(\d+)"><button type="submit">Request analysis'
)
EMBEDDED = re.compile(r'<script type="application/json" id="analyses">(.*?)</script>', re.S)


@pytest.fixture
def played(db: Database, tmp_path: Path) -> Played:
    return played_match(db, BlobStore(tmp_path / "blobs"))


@pytest.fixture
def client(db: Database, tmp_path: Path, played: Played) -> FlaskClient:
    return app_client(db, tmp_path, analyses_per_hour=1)


@pytest.fixture
def sent(client: FlaskClient) -> list[int]:
    """The analyses the app hands to its workers (none is worked out)."""
    handed: list[int] = []
    client.application.extensions["arena_analyses"] = handed.append
    return handed


def html(client: FlaskClient, url: str) -> str:
    reply = client.get(url)
    assert reply.status_code == 200, url
    return reply.get_data(as_text=True)


def buttons(client: FlaskClient, match_id: int) -> list[int]:
    """The entrants the page offers the reader to have analysed."""
    return [int(e) for e in ASK.findall(html(client, f"/matches/{match_id}"))]


def row_of(page: str, entrant: int) -> str:
    """The analyses section's first row of ``entrant`` (``page``: the match page or the
    section alone)."""
    section = page[page.find('<table class="analyses-table">') :]
    found = re.search(rf'<tr data-entrant="{entrant}".*?</tr>', section, re.S)
    assert found, f"no row of entrant {entrant}"
    return found.group(0)


def analysed(db: Database, match_id: int, entrant: int, samples: int = SAMPLES) -> int:
    """A real analysis, small, asked for by the operator and worked out here: its id."""
    row = analysis_runs.request(db, match_id, entrant, samples)
    assert analysis_runs.run(db, row.id, "test") == "done"
    return row.id


def test_only_the_owner_and_organisers_see_the_request_button(client, db, played):
    m = played.match_id
    page = html(client, f"/matches/{m}")
    assert 'id="analysis-title"' in page
    assert [row_of(page, e).count("not analysed") for e in range(4)] == [1] * 4
    assert buttons(client, m) == []  # a visitor
    expected = {"alice": [0], "bob": [1], "carol": [0, 1, 2, 3]}  # carol: an organiser
    for name, entrants in expected.items():
        reader = client.application.test_client()
        log_in(reader, name)
        assert buttons(reader, m) == entrants, name
    assert 'id="analysis-title"' not in html(client, f"/matches/{played.pending_id}")


def ask(client: FlaskClient, match_id: int, entrant: object):
    page = f"/matches/{match_id}"
    return post_form(client, f"{page}/analyse", {"entrant": entrant}, page=page)


def test_the_owners_request_queues_an_analysis_and_hands_it_to_the_workers(
    client, db, played, sent
):
    m = played.match_id
    log_in(client, "alice")
    reply = ask(client, m, 0)
    assert reply.status_code == 303
    assert reply.headers["Location"].endswith(f"/matches/{m}#analysis-title")
    with db.session(read_only=True) as s:
        [row] = s.scalars(select(MatchAnalysis))
        assert (row.entrant, row.status, row.samples, row.seed) == (0, "queued", DEFAULT_SAMPLES, 0)
        assert row.requested_by == played.users["alice"].id
    assert sent == [row.id]
    page = html(client, f"/matches/{m}")
    assert "The analysis of entrant 0 is queued" in page
    assert 'data-status="queued"' in row_of(page, 0) and "waiting for a worker" in row_of(page, 0)
    assert buttons(client, m) == []  # asked: asking again would only find it
    assert ask(client, m, 0).status_code == 303  # free: the same analysis
    with db.session(read_only=True) as s:
        assert len(s.scalars(select(MatchAnalysis)).all()) == 1
    assert sent == [row.id]  # sent once


def test_another_users_request_is_refused_as_their_logs_are(client, db, played, sent):
    m = played.match_id
    visitor = post_form(client, f"/matches/{m}/analyse", {"entrant": 0})  # a token of /login
    assert visitor.status_code == 302 and "/login" in visitor.headers["Location"]
    log_in(client, "bob")
    refused = ask(client, m, 0)
    assert refused.status_code == 404
    assert "whose play you may have analysed" in refused.get_data(as_text=True)
    with db.session(read_only=True) as s:
        alices = s.get_one(BotVersion, s.get_one(Match, m).seats[0]).bot_id
    assert client.get(f"/bots/{alices}/logs/").status_code == 404  # as for its logs
    assert ask(client, m, "zero").status_code == 400
    assert ask(client, 99999, 1).status_code == 404
    unfinished = ask(client, played.pending_id, 1)
    assert unfinished.status_code == 303
    assert "has not finished" in html(client, f"/matches/{played.pending_id}")
    with db.session(read_only=True) as s:
        assert s.scalars(select(MatchAnalysis)).all() == []
    assert sent == []


def test_the_hours_quota_is_shown_with_when_to_try_again(client, db, played, sent):
    m = played.match_id
    analysis_runs.request(db, m, 0, SAMPLES, played.users["alice"])  # her one of the hour
    log_in(client, "alice")
    assert ask(client, m, 0).status_code == 303
    page = html(client, f"/matches/{m}")
    flash = re.search(r'<p class="flash error" role="status">(.*?)</p>', page)
    assert flash, "no refusal shown"
    assert flash.group(1) == "1 analyses per hour is the limit; try again in 60 minute(s)"
    with db.session(read_only=True) as s:
        assert [r.samples for r in s.scalars(select(MatchAnalysis))] == [SAMPLES]
    assert buttons(client, m) == [0]  # still hers to ask for, later
    assert sent == []


@pytest.mark.databases("sqlite", "postgres")  # JSON read in SQL
def test_each_state_of_an_analysis_on_the_match_page(client, db, played):
    m = played.match_id
    done = analysed(db, m, 1)
    running = analysis_runs.request(db, m, 0, SAMPLES).id
    failed = analysis_runs.request(db, m, 2, SAMPLES).id
    with db.session() as s:
        lease = claim_analysis(s, running, "test")
        assert lease is not None and save_progress(s, lease, 3, 14)
        lease = claim_analysis(s, failed, "test")
        assert lease is not None and fail_analysis(s, lease, "the analysis failed: <b>boom</b>")
        result = Analysis.from_dict(s.get_one(MatchAnalysis, done).result)
    page = html(client, f"/matches/{m}")

    summary = result.summary()
    row = row_of(page, 1)
    mean, se = summary["overall"]["mean"], summary["overall"]["se"]
    assert f"{mean:.2f} ± {se:.2f}" in row and f"({summary['overall']['count']})" in row
    assert f'call-loss">{summary["calls"]["mean"]:.2f}<' in row
    assert f'card-loss">{summary["cards"]["mean"]:.2f}<' in row
    labels = summary["labels"]
    assert f"{labels['inaccuracy']} / {labels['mistake']} / {labels['blunder']}" in row
    assert '<progress max="14" value="3">' in row_of(page, 0) and "3 / 14 decisions" in page
    assert "&lt;b&gt;boom&lt;/b&gt;" in row_of(page, 2) and "<b>boom" not in page
    fragment = html(client, f"/matches/{m}/analyses")
    assert fragment.lstrip().startswith('<div class="scroll"><table class="analyses-table">')
    assert row_of(fragment, 1) == row

    [embedded] = json.loads(EMBEDDED.search(page).group(1))
    assert embedded["id"] == done
    assert Analysis.from_dict(embedded) == result
    bigger = analysed(db, m, 1, 2 * SAMPLES)  # the viewer shows the one with more samples
    [embedded] = json.loads(EMBEDDED.search(html(client, f"/matches/{m}")).group(1))
    assert (embedded["id"], embedded["samples"]) == (bigger, 2 * SAMPLES)


@pytest.mark.databases("sqlite", "postgres")  # JSON read in SQL
def test_the_bot_page_pools_its_analysed_matches(client, db, played):
    play(db, played.pending_id)  # a second finished match of the same bots
    matches = (played.match_id, played.pending_id)
    ids = [analysed(db, m, 1) for m in matches]
    analysed(db, played.match_id, 1, 2 * SAMPLES)  # counted instead of the first
    with db.session(read_only=True) as s:
        counted = [
            s.scalars(
                select(MatchAnalysis)
                .where(MatchAnalysis.match_id == m, MatchAnalysis.status == "done")
                .order_by(MatchAnalysis.samples.desc())
            ).first()
            for m in matches
        ]
        assert counted[1].id == ids[1] and counted[0].samples == 2 * SAMPLES
        results = [Analysis.from_dict(row.result) for row in counted]
        bot_id = s.get_one(BotVersion, s.get_one(Match, played.match_id).seats[1]).bot_id
    page = html(client, f"/bots/{bot_id}")
    for part, kind in (("all", None), ("calls", "call"), ("cards", "play")):
        losses = [
            v.loss
            for r in results
            for v in r.verdicts
            if v.counts and (kind is None or v.kind == kind)
        ]
        mean = sum(losses) / len(losses)
        se = math.sqrt(sum((x - mean) ** 2 for x in losses) / (len(losses) - 1) / len(losses))
        row = re.search(rf'<tr data-part="{part}">(.*?)</tr>', page, re.S)
        assert row, part
        cells = re.findall(r'<td class="num[^"]*">([^<]*)</td>', row.group(1))
        assert float(cells[0]) == pytest.approx(mean, abs=2e-3), part
        assert float(cells[1].removeprefix("± ")) == pytest.approx(1.96 * se, abs=5e-3), part
        assert int(cells[2]) == len(losses), part
    for m in matches:
        assert f'<a href="/matches/{m}">#{m}</a></td><td>1</td>' in page
    assert "in 2 analysed matches" in page
    assert "No analysed match yet" in html(client, "/bots/1")  # alice's bot


def test_pooled_means_agree_with_the_decisions_taken_together():
    groups = [[0.0, 1.0, 4.0], [2.0], [0.5, 0.25]]
    parts = []
    for losses in groups:
        n = len(losses)
        m = sum(losses) / n
        se = None if n < 2 else math.sqrt(sum((x - m) ** 2 for x in losses) / (n - 1) / n)
        parts.append({"mean": m, "se": se, "count": n})
    every = [x for losses in groups for x in losses]
    mean = sum(every) / len(every)
    var = sum((x - mean) ** 2 for x in every) / (len(every) - 1)
    found = pooled([*parts, {"mean": None, "se": None, "count": 0}])
    assert found.mean == pytest.approx(mean)
    assert found.se == pytest.approx(math.sqrt(var / len(every)))
    assert found.count == len(every)
    assert pooled([{"mean": 2.0, "se": None, "count": 1}]).se is None
    assert pooled([]).mean is None
