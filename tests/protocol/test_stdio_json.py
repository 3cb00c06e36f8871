"""The stdio-json wire (``arena.players.stdio.json_wire``): the lines a bot reads hold every
field with enums by name, and the exchange docs/protocol.md §8 shows is what the referee
writes, byte for byte, and what it reads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from google.protobuf import json_format

from arena.players.player import BadReply
from arena.players.stdio.json_wire import bot_message, line_of
from arena.proto import bot_pb2 as pb

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def documented_exchange() -> list[str]:
    section = DOC.read_text().split("## 8. The stdio-json protocol", 1)[1]
    found = re.search(r"^```jsonl\n(.*?)^```", section, re.M | re.S)
    assert found, "protocol.md §8 shows an exchange"
    return found.group(1).splitlines()


def test_the_documented_lines_are_the_referees_own():
    referee = [line for line in documented_exchange() if not line.startswith("◄ ")]
    assert len(referee) >= 6  # hello, a call, a card and the events
    for line in referee:
        msg = json_format.Parse(line, pb.RefereeMessage())
        assert line_of(msg) == line.encode() + b"\n"


def test_the_documented_replies_are_read_as_the_doc_says():
    replies = [line[2:] for line in documented_exchange() if line.startswith("◄ ")]
    kinds = [bot_message(line.encode()) for line in replies]
    assert [m.WhichOneof("kind") for m in kinds] == ["hello", "decision", "decision"]
    assert kinds[0].hello.protocol == "callbreak.v1"
    assert (kinds[1].decision.id, kinds[1].decision.call) == (4, 2)
    assert (kinds[2].decision.id, kinds[2].decision.card) == (8, "6D")


def test_every_field_is_written_zeros_included_and_enums_by_name():
    msg = pb.RefereeMessage(decision=pb.DecisionRequest(id=2**60, kind=pb.PLAY))
    data = json.loads(line_of(msg))
    assert list(data) == ["decision"]  # the oneof's member only
    decision = data["decision"]
    assert decision["id"] == 2**60 and decision["kind"] == "PLAY"
    assert decision["legal_cards"] == [] and decision["min_call"] == 0
    assert decision["observation"]["current"] == {"leader": 0, "cards": [], "winner": 0}
    assert decision["observation"]["scores"] == []


def test_unknown_keys_are_ignored_and_other_lines_refused_with_the_reason():
    reply = bot_message(b'{"decision":{"id":3,"card":"AS","thinking":"deep"},"extra":1}')
    assert (reply.decision.id, reply.decision.card) == (3, "AS")
    refused = {
        b'{"decision": {"id": ': "a line on stdout is not JSON",
        b"[1, 2, 3]": "a line on stdout is not a JSON object",
        b'{"decision": {"id": "x", "card": 5}}': "a line on stdout is not a BotMessage",
        b"\xff\xfe": "a line on stdout is not JSON",
        b"[" * 100_000: "a line on stdout is not JSON",
    }
    for line, reason in refused.items():
        with pytest.raises(BadReply) as bad:
            bot_message(line)
        assert bad.value.reason.startswith(reason), (line[:40], bad.value.reason)
