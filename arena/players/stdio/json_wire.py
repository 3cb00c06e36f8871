"""callbreak.v1 messages as one JSON object a line: the protobuf field names, every field
present (zeros and empty lists too, so a bot in a language without a JSON library can find
them by position-free lookup), enums by name, integers as JSON numbers."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from arena.players.player import BadReply
from arena.proto import bot_pb2 as pb


def message_json(msg: Message) -> dict:
    """``msg`` as a dict: all fields of the message, only the member set of a oneof."""
    out: dict = {}
    for field in msg.DESCRIPTOR.fields:
        oneof = field.containing_oneof
        if oneof is not None and msg.WhichOneof(oneof.name) != field.name:
            continue
        value = getattr(msg, field.name)
        if field.is_repeated:
            out[field.name] = [_value(field, item) for item in value]
        else:
            out[field.name] = _value(field, value)
    return out


def _value(field: Any, value: object) -> object:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return message_json(value)  # type: ignore[arg-type]
    if field.type == FieldDescriptor.TYPE_ENUM:
        return field.enum_type.values_by_number[value].name
    return value


def line_of(msg: pb.RefereeMessage) -> bytes:
    """The line the bot reads for ``msg``."""
    return json.dumps(message_json(msg), separators=(",", ":")).encode() + b"\n"


def bot_message(line: bytes) -> pb.BotMessage:
    """The message of one line the bot wrote; ``BadReply`` names what is wrong with it."""
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadReply(f"a line on stdout is not JSON ({_short(exc)})") from None
    except RecursionError:
        raise BadReply("a line on stdout is not JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise BadReply("a line on stdout is not a JSON object")
    try:
        return json_format.ParseDict(data, pb.BotMessage(), ignore_unknown_fields=True)
    except (json_format.ParseError, RecursionError) as exc:
        raise BadReply(f"a line on stdout is not a BotMessage ({_short(exc)})") from None


def _short(exc: BaseException) -> str:
    return str(exc)[:120]
