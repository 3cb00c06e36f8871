"""Conversions between the engine's types and the callbreak.v1 messages, for both ends."""

from __future__ import annotations

from arena.game import Observation, Ruleset, Trick, parse_card, parse_cards
from arena.game.record import points_json
from arena.players.player import DealEnd, Event, GameEnd, MatchEnd, TrickEnd
from arena.proto import bot_pb2 as pb

PROTOCOL = "callbreak.v1"
MAX_ERROR_TYPE, MAX_ERROR_MESSAGE = 64, 200  # characters of a DecisionError sent and kept
_KINDS = {"call": pb.CALL, "play": pb.PLAY}


def rules_to_proto(rules: Ruleset) -> pb.Rules:
    return pb.Rules(**rules.to_dict())


def rules_from_proto(msg: pb.Rules) -> Ruleset:
    return Ruleset.from_dict({f.name: getattr(msg, f.name) for f in msg.DESCRIPTOR.fields})


def trick_to_proto(trick: Trick, out: pb.Trick | None = None) -> pb.Trick:
    out = pb.Trick() if out is None else out
    out.leader = trick.leader
    out.cards.extend(map(str, trick.cards))
    out.winner = -1 if trick.winner is None else trick.winner
    return out


def trick_from_proto(msg: pb.Trick) -> Trick:
    winner = None if msg.winner < 0 or len(msg.cards) < 4 else msg.winner
    return Trick(msg.leader, tuple(parse_cards(msg.cards)), winner)


def observation_to_proto(obs: Observation, game: int, out: pb.Observation) -> None:
    """Fill ``out`` in place: building nested messages through their parents is the fast way."""
    out.seat, out.dealer, out.game, out.deal = obs.seat, obs.dealer, game, obs.deal
    out.hand.extend(map(str, obs.hand))
    out.calls.extend([c or 0 for c in obs.calls])
    for trick in obs.tricks:
        trick_to_proto(trick, out.tricks.add())
    trick_to_proto(obs.current, out.current)
    out.won.extend(obs.won)
    out.scores.extend([points_json(s) for s in obs.scores])


def request_to_proto(
    request_id: int, kind: str, obs: Observation, game: int, time_left_ms: int, decision_ms: int
) -> pb.RefereeMessage:
    msg = pb.RefereeMessage()
    decision = msg.decision
    decision.id, decision.kind = request_id, _KINDS[kind]
    observation_to_proto(obs, game, decision.observation)
    decision.legal_cards.extend(map(str, obs.legal_cards))
    if kind == "call":
        decision.min_call, decision.max_call = obs.rules.min_call, obs.rules.max_call
    decision.time_left_ms, decision.decision_ms = max(0, time_left_ms), max(0, decision_ms)
    return msg


def observation_from_proto(req: pb.DecisionRequest, rules: Ruleset) -> Observation:
    """Rebuild the friendly engine observation a bot author works with."""
    msg = req.observation
    calling = req.kind == pb.CALL
    return Observation(
        rules=rules,
        seat=msg.seat,
        dealer=msg.dealer,
        deal=msg.deal,
        phase="calling" if calling else "playing",
        hand=tuple(parse_cards(msg.hand)),
        calls=tuple(c or None for c in msg.calls),
        tricks=tuple(trick_from_proto(t) for t in msg.tricks),
        current=trick_from_proto(msg.current),
        won=tuple(msg.won),
        scores=tuple(round(s * 10) for s in msg.scores),
        to_act=msg.seat,
        legal_cards=tuple(parse_card(c) for c in req.legal_cards),
        legal_calls=tuple(range(req.min_call, req.max_call + 1)) if calling else (),
    )


def event_to_proto(event: Event) -> pb.RefereeMessage:
    match event:
        case TrickEnd(trick):
            msg = pb.Event(trick_end=pb.TrickEnd(trick=trick_to_proto(trick)))
        case DealEnd():
            fields = {f: list(getattr(event, f)) for f in ("won", "calls", "points", "scores")}
            msg = pb.Event(deal_end=pb.DealEnd(game=event.game, deal=event.deal, **fields))
        case GameEnd(game, scores):
            msg = pb.Event(game_end=pb.GameEnd(game=game, scores=list(scores)))
        case _:
            msg = pb.Event(match_end=pb.MatchEnd())
    return pb.RefereeMessage(event=msg)


def event_from_proto(msg: pb.Event) -> Event | None:
    """The friendly event, or None for a kind this SDK does not know yet."""
    kind = msg.WhichOneof("kind")
    if kind == "trick_end":
        return TrickEnd(trick_from_proto(msg.trick_end.trick))
    if kind == "deal_end":
        e = msg.deal_end
        parts = (tuple(e.won), tuple(e.calls), tuple(e.points), tuple(e.scores))
        return DealEnd(e.game, e.deal, *parts)
    if kind == "game_end":
        return GameEnd(msg.game_end.game, tuple(msg.game_end.scores))
    if kind == "match_end":
        return MatchEnd()
    return None


def error_to_proto(exc: BaseException) -> pb.DecisionError:
    """What a bot that raised ``exc`` tells the referee: its type and the start of its
    message (the traceback goes to the bot's log)."""
    try:
        message = str(exc)
    except Exception:  # an exception whose __str__ raises
        message = ""
    name = type(exc).__name__[:MAX_ERROR_TYPE]
    return pb.DecisionError(type=name, message=message[:MAX_ERROR_MESSAGE])
