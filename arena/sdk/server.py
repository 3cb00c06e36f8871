"""Serve a ``Bot`` on the address the platform gives, over the callbreak.v1 stream."""

from __future__ import annotations

import logging
import os
import random
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from concurrent import futures

import grpc

from arena.game import Ruleset
from arena.players.wire import (
    PROTOCOL,
    error_to_proto,
    event_from_proto,
    observation_from_proto,
    rules_from_proto,
)
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.sdk.bot import Bot

log = logging.getLogger("arena.sdk")


class _Servicer(pb_grpc.BotServicer):
    def __init__(self, bot: Bot, done: threading.Event) -> None:
        self.bot, self.done = bot, done

    def Play(
        self, request_iterator: Iterator[pb.RefereeMessage], context: grpc.ServicerContext
    ) -> Iterator[pb.BotMessage]:
        rules: Ruleset | None = None
        try:
            for msg in request_iterator:
                kind = msg.WhichOneof("kind")
                if kind == "hello":
                    rules = rules_from_proto(msg.hello.rules)
                    self.bot.match_id = msg.hello.match_id
                    self.bot.rng = random.Random(msg.hello.match_id)  # repeatable, not the seed
                    reply = pb.HelloReply(
                        protocol=PROTOCOL, name=self.bot.name, version=self.bot.version
                    )
                    yield pb.BotMessage(hello=reply)
                elif kind == "decision" and rules is not None:
                    yield pb.BotMessage(decision=self._decide(msg.decision, rules))
                elif kind == "event":
                    event = event_from_proto(msg.event)
                    if event is not None:
                        self.bot.on_event(event)
        finally:
            self.done.set()

    def _decide(self, req: pb.DecisionRequest, rules: Ruleset) -> pb.DecisionReply:
        bot = self.bot
        bot.time_left_ms, bot.decision_ms, bot.game = (
            req.time_left_ms,
            req.decision_ms,
            req.observation.game,
        )
        obs = observation_from_proto(req, rules)
        try:
            if req.kind == pb.CALL:
                return pb.DecisionReply(id=req.id, call=int(bot.call(obs)))
            return pb.DecisionReply(id=req.id, card=str(bot.play(obs)))
        except Exception as exc:  # an author's bug must not kill the bot: the referee records it
            traceback.print_exc()  # the whole story, to the bot's log (its owner's only)
            sys.stderr.flush()
            return pb.DecisionReply(id=req.id, error=error_to_proto(exc))


def address_from_environment(argv: list[str] | None = None) -> str:
    argv = sys.argv[1:] if argv is None else argv
    address = argv[-1] if argv else os.environ.get("CALLBREAK_ADDRESS", "")
    if not address:
        raise SystemExit("no address: pass it as the last argument or set CALLBREAK_ADDRESS")
    return address


def serve(bot: Bot, address: str | None = None) -> None:
    """Serve until the game's stream ends or SIGTERM arrives."""
    serve_servicer(lambda done: _Servicer(bot, done), address)


def serve_servicer(
    servicer_for: Callable[[threading.Event], pb_grpc.BotServicer],
    address: str | None = None,
    threads: int = 2,
) -> None:
    """Serve a raw callbreak.v1 servicer, for authors who want the messages themselves, until
    it sets the event it was made with (at the end of its stream) or SIGTERM arrives."""
    done = threading.Event()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=threads))
    pb_grpc.add_BotServicer_to_server(servicer_for(done), server)
    server.add_insecure_port(address or address_from_environment())
    server.start()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    done.wait()
    server.stop(grace=0.5).wait()
