"""A Player that talks callbreak.v1 to a bot over one bidirectional gRPC stream.

A reader thread moves the bot's messages into a queue so every wait has a deadline;
replies to decisions that already timed out are dropped without a second strike.
"""

from __future__ import annotations

import queue
import threading
import time

import grpc

from arena.bots.player import (
    BadReply,
    BotDied,
    BotTimeout,
    Event,
    MatchInfo,
    Move,
    Request,
    StaleReply,
)
from arena.bots.wire import PROTOCOL, event_to_proto, request_to_proto, rules_to_proto
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc

_CLOSE = object()


class GrpcPlayer:
    """Referee side of the stream to a bot at a gRPC target (``unix:/path`` or ``host:port``)."""

    def __init__(self, target: str, name: str) -> None:
        self.target, self.name = target, name
        self.bot_name = ""
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._channel: grpc.Channel | None = None
        self._timed_out: set[int] = set()
        self._dead: str | None = None

    # -- lifecycle ---------------------------------------------------------------------
    def start(self, info: MatchInfo, timeout_s: float) -> None:
        self._channel = grpc.insecure_channel(self.target)
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout_s)
        except grpc.FutureTimeoutError:
            raise BotDied(f"no gRPC server at {self.target} within {timeout_s:.1f}s") from None
        responses = pb_grpc.BotStub(self._channel).Play(iter(self._outbox.get, _CLOSE))
        threading.Thread(target=self._read, args=(responses,), daemon=True).start()
        hello = pb.Hello(
            protocol=PROTOCOL,
            match_id=info.match_id,
            rules=rules_to_proto(info.rules),
            decision_ms=info.decision_ms,
            bank_ms=info.bank_ms,
        )
        self._outbox.put(pb.RefereeMessage(hello=hello))
        reply = self._next(time.monotonic() + timeout_s, "the handshake")
        if reply.WhichOneof("kind") != "hello" or reply.hello.protocol != PROTOCOL:
            raise BotDied(f"bad handshake: expected HelloReply speaking {PROTOCOL}")
        self.bot_name = reply.hello.name

    def _read(self, responses) -> None:
        try:
            for msg in responses:
                self._inbox.put(msg)
            self._inbox.put(BotDied("the bot closed the stream"))
        except grpc.RpcError as exc:
            self._inbox.put(BotDied(f"connection lost: {exc.code().name} {exc.details() or ''}"))

    def close(self) -> None:
        self._outbox.put(_CLOSE)
        if self._channel is not None:
            self._channel.close()
            self._channel = None

    # -- decisions ---------------------------------------------------------------------
    def decide(self, request: Request, timeout_s: float) -> Move:
        msg = request_to_proto(
            request.id,
            request.kind,
            request.observation,
            request.game,
            request.time_left_ms,
            request.decision_ms,
        )
        self._outbox.put(msg)
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                reply = self._next(deadline, f"decision {request.id}")
            except BotTimeout:
                self._timed_out.add(request.id)
                raise
            if reply.WhichOneof("kind") != "decision":
                raise BadReply("expected a DecisionReply")
            got = reply.decision
            if got.id == request.id:
                return _move(got)
            if got.id not in self._timed_out:
                raise StaleReply(f"reply echoes decision id {got.id}, expected {request.id}")

    def _next(self, deadline: float, what: str) -> pb.BotMessage:
        if self._dead:
            raise BotDied(self._dead)
        try:
            item = self._inbox.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise BotTimeout(f"no answer to {what} in time") from None
        if isinstance(item, BotDied):
            self._dead = item.reason
            raise item
        return item

    def notify(self, event: Event) -> None:
        if not self._dead:
            self._outbox.put(event_to_proto(event))

    def cpu_seconds(self) -> float | None:
        return None


def _move(reply: pb.DecisionReply) -> Move:
    which = reply.WhichOneof("move")
    if which is None:
        raise BadReply("the reply holds neither a call nor a card")
    return getattr(reply, which)
