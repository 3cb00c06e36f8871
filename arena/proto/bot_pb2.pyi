from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    CALL: _ClassVar[DecisionKind]
    PLAY: _ClassVar[DecisionKind]
DECISION_KIND_UNSPECIFIED: DecisionKind
CALL: DecisionKind
PLAY: DecisionKind

class RefereeMessage(_message.Message):
    __slots__ = ("hello", "decision", "event")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    decision: DecisionRequest
    event: Event
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., event: _Optional[_Union[Event, _Mapping]] = ...) -> None: ...

class BotMessage(_message.Message):
    __slots__ = ("hello", "decision")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    hello: HelloReply
    decision: DecisionReply
    def __init__(self, hello: _Optional[_Union[HelloReply, _Mapping]] = ..., decision: _Optional[_Union[DecisionReply, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("protocol", "match_id", "rules", "decision_ms", "bank_ms")
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    protocol: str
    match_id: str
    rules: Rules
    decision_ms: int
    bank_ms: int
    def __init__(self, protocol: _Optional[str] = ..., match_id: _Optional[str] = ..., rules: _Optional[_Union[Rules, _Mapping]] = ..., decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class HelloReply(_message.Message):
    __slots__ = ("protocol", "name", "version")
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    protocol: str
    name: str
    version: str
    def __init__(self, protocol: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class Rules(_message.Message):
    __slots__ = ("name", "min_call", "max_call", "must_head", "must_trump", "scoring", "deals_per_game", "redeal", "bonus_call", "bonus_points")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MIN_CALL_FIELD_NUMBER: _ClassVar[int]
    MAX_CALL_FIELD_NUMBER: _ClassVar[int]
    MUST_HEAD_FIELD_NUMBER: _ClassVar[int]
    MUST_TRUMP_FIELD_NUMBER: _ClassVar[int]
    SCORING_FIELD_NUMBER: _ClassVar[int]
    DEALS_PER_GAME_FIELD_NUMBER: _ClassVar[int]
    REDEAL_FIELD_NUMBER: _ClassVar[int]
    BONUS_CALL_FIELD_NUMBER: _ClassVar[int]
    BONUS_POINTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    min_call: int
    max_call: int
    must_head: str
    must_trump: bool
    scoring: str
    deals_per_game: int
    redeal: str
    bonus_call: int
    bonus_points: int
    def __init__(self, name: _Optional[str] = ..., min_call: _Optional[int] = ..., max_call: _Optional[int] = ..., must_head: _Optional[str] = ..., must_trump: _Optional[bool] = ..., scoring: _Optional[str] = ..., deals_per_game: _Optional[int] = ..., redeal: _Optional[str] = ..., bonus_call: _Optional[int] = ..., bonus_points: _Optional[int] = ...) -> None: ...

class Trick(_message.Message):
    __slots__ = ("leader", "cards", "winner")
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    winner: int
    def __init__(self, leader: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., winner: _Optional[int] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("seat", "dealer", "game", "deal", "hand", "calls", "tricks", "current", "won", "scores")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    dealer: int
    game: int
    deal: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    calls: _containers.RepeatedScalarFieldContainer[int]
    tricks: _containers.RepeatedCompositeFieldContainer[Trick]
    current: Trick
    won: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, seat: _Optional[int] = ..., dealer: _Optional[int] = ..., game: _Optional[int] = ..., deal: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., calls: _Optional[_Iterable[int]] = ..., tricks: _Optional[_Iterable[_Union[Trick, _Mapping]]] = ..., current: _Optional[_Union[Trick, _Mapping]] = ..., won: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[float]] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("id", "kind", "observation", "legal_cards", "min_call", "max_call", "time_left_ms", "decision_ms")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_CARDS_FIELD_NUMBER: _ClassVar[int]
    MIN_CALL_FIELD_NUMBER: _ClassVar[int]
    MAX_CALL_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    id: int
    kind: DecisionKind
    observation: Observation
    legal_cards: _containers.RepeatedScalarFieldContainer[str]
    min_call: int
    max_call: int
    time_left_ms: int
    decision_ms: int
    def __init__(self, id: _Optional[int] = ..., kind: _Optional[_Union[DecisionKind, str]] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal_cards: _Optional[_Iterable[str]] = ..., min_call: _Optional[int] = ..., max_call: _Optional[int] = ..., time_left_ms: _Optional[int] = ..., decision_ms: _Optional[int] = ...) -> None: ...

class DecisionReply(_message.Message):
    __slots__ = ("id", "call", "card", "error")
    ID_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    id: int
    call: int
    card: str
    error: DecisionError
    def __init__(self, id: _Optional[int] = ..., call: _Optional[int] = ..., card: _Optional[str] = ..., error: _Optional[_Union[DecisionError, _Mapping]] = ...) -> None: ...

class DecisionError(_message.Message):
    __slots__ = ("type", "message")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    type: str
    message: str
    def __init__(self, type: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("trick_end", "deal_end", "game_end", "match_end")
    TRICK_END_FIELD_NUMBER: _ClassVar[int]
    DEAL_END_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    trick_end: TrickEnd
    deal_end: DealEnd
    game_end: GameEnd
    match_end: MatchEnd
    def __init__(self, trick_end: _Optional[_Union[TrickEnd, _Mapping]] = ..., deal_end: _Optional[_Union[DealEnd, _Mapping]] = ..., game_end: _Optional[_Union[GameEnd, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ...) -> None: ...

class TrickEnd(_message.Message):
    __slots__ = ("trick",)
    TRICK_FIELD_NUMBER: _ClassVar[int]
    trick: Trick
    def __init__(self, trick: _Optional[_Union[Trick, _Mapping]] = ...) -> None: ...

class DealEnd(_message.Message):
    __slots__ = ("game", "deal", "won", "calls", "points", "scores")
    GAME_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    WON_FIELD_NUMBER: _ClassVar[int]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    game: int
    deal: int
    won: _containers.RepeatedScalarFieldContainer[int]
    calls: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[float]
    scores: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, game: _Optional[int] = ..., deal: _Optional[int] = ..., won: _Optional[_Iterable[int]] = ..., calls: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[float]] = ..., scores: _Optional[_Iterable[float]] = ...) -> None: ...

class GameEnd(_message.Message):
    __slots__ = ("game", "scores")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    game: int
    scores: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, game: _Optional[int] = ..., scores: _Optional[_Iterable[float]] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
