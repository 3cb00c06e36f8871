"""Why a rating moved, on the bot page and in its JSON: every rating snapshot of each
version with the matches of that version recorded since the one before, or the re-fit
line when it played none but moved; one chart per tournament or ladder (Elo with its
interval band), drawn on the server.

Matches are really played (house bots through the match job) on a copy of the dashboard's
site; the ladder's history is read on the ladder site, whose own feeder scheduled it."""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path

import pytest
from sqlalchemy import func, select

from arena.config import Settings
from arena.readmodels.bots import MOVED, RatedScope, version_rating_history
from arena.runtime import Runtime
from arena.store import (
    BotVersion,
    Database,
    GameScore,
    Match,
    add_bot_version,
    claim_match,
    create_tournament,
    record_result,
)
from arena.tournaments.cache import CACHE
from arena.tournaments.run import play_stored_match, run_match
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import snapshot
from dashboard import create_app
from dashboard.api import SPEC
from dashboard.charts import line_chart
from tests.dashboard.conftest import RULES, Site, copy_of, house, played_once
from tests.dashboard.ladder_site import LadderSite, build
from tests.dashboard.test_api import check

# Entrant indices (alpha is entrant 0): alpha sits out table 1, and table 3 is recorded
# with no snapshot after it.
TABLES = [
    (0, (0, 1, 2, 3), 200),
    (1, (1, 2, 3, 4), 201),
    (2, (0, 1, 2, 3), 202),
    (3, (0, 2, 3, 4), 203),
]


def refit_cup(db: Database, site: Site) -> tuple[int, list[int]]:
    """A second tournament of the site's four bots and a fifth: tables 0-2 played by the
    match job, which takes a snapshot after each (a tenth of its four matches is one),
    table 3 recorded with none after it. Its id and its match ids, by table."""
    with db.session() as s:
        query = select(BotVersion).where(BotVersion.bot_id.in_(site.bots.values()))
        entries = list(s.scalars(query.order_by(BotVersion.id)))  # alpha first
        delta = add_bot_version(s, site.runtime.blobs, b"delta", house("delta", "random"), "valid")
        spec = TournamentSpec(name="refit cup", rules=RULES, games_per_match=2, seed=11)
        t = create_tournament(s, spec.columns(), [*entries, delta], TABLES)
        query = select(Match.id).where(Match.tournament_id == t.id)
        matches = list(s.scalars(query.order_by(Match.table_index)))
    for match_id in matches[:3]:
        assert run_match(db, site.runtime, match_id, "test") == "done"
    with db.session() as s:
        lease = claim_match(s, matches[3], "test")
    result, _ = play_stored_match(db, site.runtime, matches[3], site.runtime.log_dir(), lease)
    with db.session() as s:
        record_result(s, lease, result, 1.0)
    return t.id, matches


def scope_of(scopes: list[RatedScope], tournament_id: int) -> RatedScope:
    (scope,) = [x for x in scopes if x.tournament == tournament_id]
    return scope


def section(html: str) -> str:
    return html.partition("<h2>Rating history</h2>")[2].partition("<h2>")[0]


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_each_snapshot_lists_the_matches_since_the_last_or_says_it_was_refitted(client, db, site):
    cup, matches = refit_cup(db, site)
    alpha = site.bots["alpha"]
    with db.session(read_only=True) as s:
        version = s.scalars(select(BotVersion).where(BotVersion.bot_id == alpha)).one()
        scopes = version_rating_history(s, [version])
    assert [x.tournament for x in scopes] == [site.tournament, cup]
    (rated,) = scope_of(scopes, cup).versions
    assert (rated.bot_version_id, rated.version) == (version.id, "1")
    first, sat_out, back = rated.steps
    assert (first.matches, first.change, first.refit) == ([matches[0]], None, False)
    assert sat_out.matches == [] and sat_out.games == first.games  # table 1 was not its own
    assert abs(sat_out.change) >= MOVED and sat_out.refit  # ... yet delta's arrival moved it
    assert sat_out.change == pytest.approx(sat_out.elo - first.elo)
    assert back.matches == [matches[2]] and not back.refit and back.games == first.games + 2
    assert [step.done for step in rated.steps] == [1, 2, 3]
    assert rated.unrated == [matches[3]]  # recorded, in no snapshot yet
    # the site's own tournament: its three finished matches, in the order recorded
    site_steps = scope_of(scopes, site.tournament).versions[0].steps
    assert [m for step in site_steps for m in step.matches] == [*site.done, site.faulty]

    html = client.get(f"/bots/{alpha}").get_data(as_text=True)
    part = section(html)
    cup_part = part.partition(f'<h3 id="rating-{cup}">')[2]
    assert f">#{cup} refit cup</a></h3>" in cup_part
    rows = re.findall(r'<tr data-version="\d+"[^>]*>(.*?)</tr>', cup_part, re.S)
    assert len(rows) == 4  # three snapshots and the unrated match
    assert f'<a href="/matches/{matches[0]}">#{matches[0]}</a>' in rows[0]
    assert f"first rating, 1 match: #{matches[0]}" in text(rows[0])
    refitted = f"re-fitted: opponents' results changed the scale ({sat_out.change:+.1f} Elo)"
    assert refitted in text(rows[1])
    assert f"{sat_out.change:+.1f}" in text(rows[1]) and "/matches/" not in rows[1]
    assert f'<a href="/matches/{matches[2]}">#{matches[2]}</a>' in rows[2]
    assert "re-fitted" not in rows[2]
    assert "not in a snapshot yet" in rows[3] and f'href="/matches/{matches[3]}"' in rows[3]
    # the table of latest ratings keeps what it showed: the cup's latest snapshot
    latest = part.partition("</table>")[0]
    assert f">#{cup} refit cup</a>" in latest and f"{back.elo:.0f}" in text(latest)

    body = client.get(f"/api/v1/bots/{alpha}").get_json()
    check(body, SPEC["components"]["schemas"]["Bot"])
    assert body["version_history"] == [asdict(x) for x in scopes]
    (listed,) = [h for h in body["history"] if h["tournament"] == cup]
    assert (listed["elo"], listed["rated_at"]) == (back.elo, back.rated_at)


def test_the_page_draws_each_versions_rating_with_its_interval_band(client, db, site):
    cup, _ = refit_cup(db, site)
    beta = site.bots["beta"]
    html = client.get(f"/bots/{beta}").get_data(as_text=True)
    part = section(html)
    charts = re.findall(r'<svg class="chart".*?</svg>', part, re.S)
    assert len(charts) == 2  # one per tournament it was rated in
    cup_chart = part.partition(f'<h3 id="rating-{cup}">')[2].partition("</svg>")[0]
    (band,) = re.findall(r'<polygon class="band" points="([^"]+)"', cup_chart)
    (line,) = re.findall(r'<polyline points="([^"]+)"', cup_chart)
    assert len(band.split()) == 2 * len(line.split()) == 2 * 3  # high side out, low side back
    tops = [float(p.split(",")[1]) for p in band.split()[:3]]
    bottoms = [float(p.split(",")[1]) for p in band.split()[3:]][::-1]
    mids = [float(p.split(",")[1]) for p in line.split()]
    assert all(t <= m <= b for t, m, b in zip(tops, mids, bottoms, strict=True))  # y grows down
    assert "The shaded band around a line is its 95% interval" in text(part)
    assert "version 1" in text(cup_chart)


def test_a_snapshot_saved_after_its_result_shows_without_a_new_result(client, db, site):
    """The page is cached per results version; a snapshot comes just after the result
    it covers, and must not wait for the next result to show."""
    cup, matches = refit_cup(db, site)
    gamma = site.bots["gamma"]
    before = client.get(f"/bots/{gamma}").get_data(as_text=True)
    assert "not in a snapshot yet" in before
    assert snapshot(db, cup)
    after = section(client.get(f"/bots/{gamma}").get_data(as_text=True))
    assert "not in a snapshot yet" not in after
    assert f'<a href="/matches/{matches[3]}">#{matches[3]}</a>' in after


def test_a_band_leaves_a_gap_where_the_data_bound_no_side():
    chart = line_chart(
        [
            {
                "bot": "v",
                "points": [[1, 1500], [2, 1510], [3, 1505], [4, 1520]],
                "band": [[1, 1400, 1600], [2, None, 1550], [3, 1480, 1530], [4, 1490, 1550]],
            }
        ]
    )
    assert chart is not None
    (line,) = chart.lines
    assert [len(b.split()) for b in line.bands] == [2, 4]  # a bar, then a band over 3 and 4
    values = [v for v, _ in chart.y_ticks]
    assert min(values) <= 1400 and max(values) >= 1600  # the band is in the plot
    (plain,) = line_chart([{"bot": "v", "points": [[1, 1500]]}]).lines
    assert plain.bands == []


@pytest.fixture(scope="module")
def ladder_built(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path):
    folder = tmp_path_factory.mktemp("ladder-history")
    return folder, played_once(folder, sqlite_template, build)


def test_a_ladders_history_accounts_for_every_match_of_the_version_once(
    ladder_built: tuple[Path, LadderSite], tmp_path: Path
):
    """Each step's matches hold exactly the games its snapshot added; together with the
    unrated ones they are all the version's ladder matches, in the order recorded."""
    folder, ladder = ladder_built
    db = Database(copy_of(folder, tmp_path))
    CACHE.clear()
    try:
        with db.session(read_only=True) as s:
            for name in ("ann", "bea", "cat"):
                query = select(BotVersion).where(BotVersion.bot_id == ladder.bots[name])
                version = s.scalars(query).one()
                (scope,) = version_rating_history(s, [version])
                assert (scope.tournament, scope.ladder) == (ladder.tournament_id, "pagat")
                (rated,) = scope.versions
                games = dict(
                    s.execute(
                        select(GameScore.match_id, func.count(GameScore.game_index.distinct()))
                        .where(GameScore.bot_version_id == version.id)
                        .group_by(GameScore.match_id)
                    ).all()
                )
                listed = [m for step in rated.steps for m in step.matches] + rated.unrated
                assert listed == [m for m in ladder.played if m in games]
                previous = 0
                for step in rated.steps:
                    assert sum(games[m] for m in step.matches) == step.games - previous
                    assert step.refit == (not step.matches and abs(step.change or 0) >= MOVED)
                    previous = step.games
        runtime = Runtime(
            Settings(db.url.render_as_string(hide_password=False), tmp_path / "d", "")
        )
        app = create_app(db, runtime, TESTING=True)
        html = app.test_client().get(f"/bots/{ladder.bots['ann']}").get_data(as_text=True)
        part = section(html)
        link = '<a href="/ladders/pagat">ladder pagat</a></h3>'
        assert f'<h3 id="rating-{ladder.tournament_id}">{link}' in part
        assert '<polygon class="band"' in part
    finally:
        db.dispose()
