"""``arena replay export`` and ``arena replay show``: a tournament match's record out of the
database without SQL, and any record printed deal by deal by the renderer ``arena play``
uses. The tournament plays a sample bot for real in the sandbox."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.cli.test_cli import SAMPLE_BOTS, ok, one_line_error

DEAL_HEADER = re.compile(r"^Game \d+, deal \d+ — ", re.M)


def _deal_blocks(output: str) -> list[str]:
    """The printed deals (header to points line), in order."""
    starts = [m.start() for m in DEAL_HEADER.finditer(output)]
    blocks = []
    for start in starts:
        end = output.index("\n", output.index("  points", start))
        blocks.append(output[start:end])
    return blocks


def test_show_prints_a_play_record_exactly_as_play_printed_it(arena, tmp_path):
    record = tmp_path / "m.json"
    bots = ("random", "heuristic", "random", "heuristic")
    played = ok(
        arena("play", *bots, "--games", "2", "--deals", "2", "--seed", "5", "--replay", record)
    )
    shown = ok(arena("replay", "show", record))
    assert len(_deal_blocks(played)) == 4
    assert _deal_blocks(shown) == _deal_blocks(played)
    totals = played.split("Match standings", 1)[1].split("│ house")[1:]
    assert len(totals) == 4
    for row in totals:  # same points per bot in both tables
        name, points = row.split("│")[0].strip(), row.split("│")[1].strip()
        assert re.search(rf"house{re.escape(name)}\s+│\s+{re.escape(points)} ", shown)


def test_show_picks_a_game_and_a_deal_and_shows_hands(arena, tmp_path):
    record = tmp_path / "m.json"
    ok(
        arena(
            "play",
            "random",
            "random",
            "random",
            "random",
            "--games",
            "2",
            "--deals",
            "3",
            "--seed",
            "8",
            "--replay",
            record,
            "--quiet",
        )
    )
    out = ok(arena("replay", "show", record, "--game", "2", "--deal", "3", "--hands"))
    assert [b.split(" — ")[0] for b in _deal_blocks(out)] == ["Game 2, deal 3"]
    data = json.loads(record.read_text())
    dealt = data["games"][1]["deals"][2]["hands"]
    for seat, name in enumerate(data["games"][1]["players"]):
        assert f"  {name}: {dealt[seat]}\n" in out
    assert "Match standings" not in out
    one_line_error(arena("replay", "show", record, "--game", "3"), "the match has 2 games")
    one_line_error(arena("replay", "show", record, "--deal", "4"), "a game has 3 deals")


def test_show_refuses_what_it_cannot_show(arena, tmp_path):
    one_line_error(arena("replay", "show", "nope.json"), "nope.json: no such record file")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    one_line_error(arena("replay", "show", bad), "not a JSON record")
    bad.write_text(json.dumps({"games": [{"format": "x"}]}))
    one_line_error(arena("replay", "show", bad), "game 1: not a callbreak-game")
    one_line_error(arena("replay", "show", "42"), "no match with id 42")


def test_export_and_show_a_tournament_match(arena, sandbox, home, tmp_path):
    ok(arena("bot", "add", SAMPLE_BOTS / "random"))  # its validation match is match 1
    created = ok(
        arena(
            "tournament",
            "create",
            "--bots",
            "random",
            "--deals",
            "1",
            "--games-per-match",
            "2",
            "--seed",
            "4",
        )
    )
    tournament = re.match(r"tournament (\d+):", created)[1]
    match = "2"  # the tournament's one match, after the validation match
    one_line_error(arena("replay", "export", match), f"match {match} has not finished")
    ok(arena("tournament", "run", tournament, "--workers", "1"))
    out = tmp_path / "one.json"
    exported = ok(arena("replay", "export", match, "-o", out))
    assert f"match {match}: record written to {out}" in exported
    record = json.loads(out.read_text())
    assert record["format"] == "callbreak-match" and "random@1.0.0" in record["players"]
    assert record["match_id"] == f"t{tournament}-m{match}"
    assert "consistent with the rules" in ok(arena("replay", "check", out))
    assert json.loads(ok(arena("replay", "export", match, "-o", "-"))) == record
    from_file, from_db = ok(arena("replay", "show", out)), ok(arena("replay", "show", match))
    assert from_file == from_db and len(_deal_blocks(from_db)) == 2
    assert "random@1.0.0" in from_db
    default = Path(f"match-{match}.json")
    try:
        ok(arena("replay", "export", match))
        assert json.loads(default.read_text()) == record
    finally:
        default.unlink(missing_ok=True)
    one_line_error(arena("replay", "export", "99"), "no match with id 99")
