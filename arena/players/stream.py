"""What every stream protocol's Player shares: callbreak.v1 messages one at a time each way,
whatever carries them (a gRPC stream, JSON lines on a socket).

A reader thread moves the bot's messages into a queue so every wait has a deadline; replies
to decisions that already timed out are dropped without a second strike. At most one message
waits per seat: the reader stops reading while one is pending, so the transport's flow
control holds the bot back, and an unasked-for message is a stale-reply strike when the next
decision finds it. A transport subclass opens and closes the connection and runs the reader
(``_put`` each message, a ``BotFault`` for a bad one, a ``BotDied`` when it ends).
"""

from __future__ import annotations

import queue
import threading
import time

from arena.players.player import (
    BadReply,
    BotDied,
    BotFault,
    BotRaised,
    BotTimeout,
    Event,
    MatchInfo,
    Move,
    Request,
    StaleReply,
)
from arena.players.wire import (
    MAX_ERROR_MESSAGE,
    MAX_ERROR_TYPE,
    PROTOCOL,
    event_to_proto,
    request_to_proto,
    rules_to_proto,
)
from arena.proto import bot_pb2 as pb
from arena.text import printable

CLOSE = object()  # the outbox's end: the transport ends the referee's side
MAX_MESSAGE_BYTES = 64 * 1024  # a DecisionReply or HelloReply is a few dozen bytes
MAX_HELLO_FIELD = 64  # characters kept of HelloReply.name
_PUT_POLL_S = 0.1
_CLOSE_GRACE_S = 0.5  # for the bot to read the last events and end its side


class StreamPlayer:
    """Referee side of one stream of callbreak.v1 messages to a bot at ``target``."""

    sandbox = "remote"

    def __init__(self, target: str, name: str) -> None:
        self.target, self.name = target, name
        self.bot_name = ""
        self._open = False
        self._reset()

    def _reset(self) -> None:
        """Fresh stream state: a player is started again for every game."""
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._inbox: queue.Queue = queue.Queue(maxsize=1)
        self._closed = threading.Event()
        self._reader_done = threading.Event()
        self._timed_out: set[int] = set()
        self._dead: str | None = None

    # -- the transport's part ----------------------------------------------------------
    def _connect(self, timeout_s: float) -> None:
        """Connect, and start the reader and whatever drains ``_outbox``."""
        raise NotImplementedError

    def _disconnect(self) -> None:
        """Drop the connection (the outbox has been ended, the grace is over); also after
        a ``_connect`` that failed half-way."""
        raise NotImplementedError

    # -- lifecycle ---------------------------------------------------------------------
    def start(self, info: MatchInfo, timeout_s: float) -> None:
        self._reset()
        self._open = True  # from here close() drops what _connect made, even if it failed
        self._connect(timeout_s)
        hello = pb.Hello(
            protocol=PROTOCOL,
            match_id=info.match_id,
            rules=rules_to_proto(info.rules),
            decision_ms=info.decision_ms,
            bank_ms=info.bank_ms,
        )
        self._outbox.put(pb.RefereeMessage(hello=hello))
        try:
            reply = self._next(time.monotonic() + timeout_s, "the handshake")
        except BadReply as exc:
            raise BotDied(f"bad handshake: {exc.reason}") from None
        if reply.WhichOneof("kind") != "hello" or reply.hello.protocol != PROTOCOL:
            raise BotDied(f"bad handshake: expected HelloReply speaking {PROTOCOL}")
        self.bot_name = printable(reply.hello.name, MAX_HELLO_FIELD)

    def _put(self, item: object) -> bool:
        """Wait until the one slot is free (False once the player is closed)."""
        while not self._closed.is_set():
            try:
                self._inbox.put(item, timeout=_PUT_POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def close(self) -> None:
        """End the referee's side, give the bot a moment to read the last events (GameEnd)
        and end its side, then drop the connection."""
        if not self._open:
            return
        self._outbox.put(CLOSE)
        if not self._dead:  # a bot that keeps sending fills the one slot and gets no grace
            self._reader_done.wait(_CLOSE_GRACE_S)
        self._closed.set()
        self._disconnect()
        self._open = False

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
        if isinstance(item, BotFault):
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
    if which == "error":
        raise BotRaised(_raised(reply.error))
    return getattr(reply, which)


def _raised(error: pb.DecisionError) -> str:
    """The fault's reason: the bot's words made printable and short (public pages show it)."""
    kind = printable(error.type, MAX_ERROR_TYPE) or "an error"
    message = printable(error.message, MAX_ERROR_MESSAGE)
    return f"the bot raised {kind}: {message}" if message else f"the bot raised {kind}"
