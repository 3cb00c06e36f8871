"""The committed stubs match the .proto, and the wire format tolerates growth."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

from arena.proto import bot_pb2

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "protos" / "callbreak" / "v1" / "bot.proto"
STALE = "stubs are stale: run python scripts/gen_protos.py"


def _load_generator():
    spec = importlib.util.spec_from_file_location("gen_protos", ROOT / "scripts" / "gen_protos.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_stubs_match_a_fresh_generation(tmp_path: Path) -> None:
    gen = _load_generator()
    for fresh in gen.generate(tmp_path):
        committed = gen.OUT_DIR / fresh.name
        assert committed.exists(), f"{STALE} ({committed.name} is missing)"
        old = committed.read_text(encoding="utf-8")
        new = fresh.read_text(encoding="utf-8")
        if old != new:
            diff = difflib.unified_diff(
                old.splitlines(), new.splitlines(), "committed", "fresh", lineterm="", n=1
            )
            excerpt = "\n".join(list(diff)[:20])
            raise AssertionError(f"{STALE} ({fresh.name} differs)\n{excerpt}")


def test_js_sample_bot_carries_an_identical_proto() -> None:
    copy = ROOT / "sample_bots" / "js_lowcard" / "bot.proto"
    assert copy.read_bytes() == PROTO.read_bytes(), (
        f"{copy.relative_to(ROOT)} differs from {PROTO.relative_to(ROOT)}: copy it over"
    )


def _request() -> bot_pb2.DecisionRequest:
    return bot_pb2.DecisionRequest(
        id=2**40 + 7,
        kind=bot_pb2.PLAY,
        observation=bot_pb2.Observation(
            seat=2,
            dealer=1,
            game=0,
            deal=3,
            hand=["AS", "7S", "2H", "AH", "KD"],
            calls=[3, 2, 4, 2],
            tricks=[bot_pb2.Trick(leader=2, cards=["QC", "AC", "3C", "4C"], winner=3)],
            current=bot_pb2.Trick(leader=3, cards=["5H", "KH", "9H"], winner=-1),
            won=[0, 0, 0, 1],
            scores=[4.0, -2.0, 3.1, 0.0],
        ),
        legal_cards=["2H", "AH"],
        time_left_ms=9500,
        decision_ms=200,
    )


def test_decision_request_round_trips() -> None:
    request = _request()
    parsed = bot_pb2.DecisionRequest.FromString(request.SerializeToString())
    assert parsed == request
    assert parsed.observation.current.winner == -1
    assert list(parsed.observation.scores) == [4.0, -2.0, 3.1, 0.0]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _unknown_fields() -> bytes:
    """Field 99 as a varint and field 100 as a length-delimited blob: numbers v1 never used."""
    blob = b"from the future"
    return _varint(99 << 3 | 0) + _varint(42) + _varint(100 << 3 | 2) + _varint(len(blob)) + blob


def test_unknown_fields_are_tolerated() -> None:
    request = _request()
    parsed = bot_pb2.DecisionRequest.FromString(request.SerializeToString() + _unknown_fields())
    assert parsed.id == request.id
    assert parsed.observation == request.observation
    assert list(parsed.legal_cards) == ["2H", "AH"]


def test_unknown_oneof_member_reads_as_no_kind() -> None:
    """A referee message kind added later parses as 'nothing set', which a bot can skip."""
    parsed = bot_pb2.RefereeMessage.FromString(_unknown_fields())
    assert parsed.WhichOneof("kind") is None
