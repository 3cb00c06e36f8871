"""The one rule of what a match record shows: cards only once every rotation of every deal
in it has been played and the match is done; before, a progress record that keeps only
what it names (a key a later record version adds stays hidden)."""

from __future__ import annotations

import copy

from arena.players.player import LOG_LINE
from arena.readmodels.records import every_rotation_played, progress, visible


def deal(index: int) -> dict:
    return {
        "index": index,
        "seed": 99,
        "hands": ["AS KS", "QH JH", "2C 3C", "4D 5D"],
        "calls": [1, 1, 1, 1],
        "tricks": [{"leader": 0, "cards": ["AS", "QH", "2C", "4D"], "winner": 0}],
        "won": [1, 0, 0, 0],
        "points": [1, -1, -1, -1],
        "decisions": [{"id": 1, "ms": 3}],
        "future_field": "7H",
    }


def record(games: int, deals: int) -> dict:
    return {
        "format": "callbreak-match",
        "match_id": 5,
        "seed": 123,
        "players": ["a", "b", "c", "d"],
        "totals": [1, -1, -1, -1],
        "games": [
            {
                "seed": 123,
                "players": ["a", "b", "c", "d"],
                "seats": [0, 1, 2, 3],
                "scores": [1, -1, -1, -1],
                "deals": [deal(i) for i in range(deals)],
            }
            for _ in range(games)
        ],
        "faults": [
            {
                "entrant": 1,
                "kind": "illegal_card",
                "reason": f"7H is not legal{LOG_LINE}x",
                "game": 0,
                "deal": 0,
                "decision": 1,
            }
        ],
        "hidden_later": {"hands": "AS"},
    }


def test_a_finished_match_with_every_rotation_shows_everything_but_log_lines() -> None:
    whole = visible(record(4, 2), finished=True, rotations=4)
    assert whole["games"][3]["deals"][1]["hands"] == ["AS KS", "QH JH", "2C 3C", "4D 5D"]
    assert "progress" not in whole
    assert whole["faults"][0]["reason"].startswith("7H is not legal; its last log line is in")


def test_before_the_end_or_without_a_rotation_only_the_scores_show() -> None:
    for shown in (
        visible(record(4, 2), finished=False, rotations=4),  # running, however far
        visible(record(3, 2), finished=True, rotations=4),  # a rotation missing
        visible(
            {**record(4, 2), "games": [*record(3, 2)["games"], record(1, 1)["games"][0]]},
            finished=True,
            rotations=4,
        ),  # game 4 without its deal 2
    ):
        assert shown["progress"] is True
        text = repr(shown)
        for secret in ("AS", "7H", "seed", "123", "hands", "decisions", "reason", "hidden_later"):
            assert secret not in text, secret
        assert shown["games"][0]["deals"][0] == {"index": 0, "points": [1, -1, -1, -1]}
        assert shown["faults"] == [{"entrant": 1, "kind": "illegal_card", "game": 0, "deal": 0}]
        assert shown["totals"] == [1, -1, -1, -1] and shown["players"] == ["a", "b", "c", "d"]


def test_the_rule_reads_the_record_without_changing_it() -> None:
    original = record(2, 2)
    kept = copy.deepcopy(original)
    progress(original)
    assert original == kept
    assert every_rotation_played(original, 2) and not every_rotation_played(original, 3)
