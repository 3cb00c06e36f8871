"""A Player that talks callbreak.v1 to a bot over one bidirectional gRPC stream.

Nothing a bot sends can grow the platform's memory: a message over ``MAX_MESSAGE_BYTES``
ends the stream (gRPC refuses it before it is buffered), and the one-message inbox
(``stream.py``) lets HTTP/2 flow control hold the bot back.
"""

from __future__ import annotations

import threading

import grpc

from arena.players.player import BotDied, Oversized
from arena.players.stream import CLOSE, MAX_MESSAGE_BYTES, StreamPlayer
from arena.proto import bot_pb2_grpc as pb_grpc

_CHANNEL_OPTIONS = (
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.http2.bdp_probe", 0),  # keep the flow-control window small: no buffering ahead
)


class GrpcPlayer(StreamPlayer):
    """Referee side of the stream to a bot at a gRPC target (``unix:/path`` or ``host:port``)."""

    _channel: grpc.Channel | None = None

    def _connect(self, timeout_s: float) -> None:
        self._channel = grpc.insecure_channel(self.target, options=_CHANNEL_OPTIONS)
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout_s)
        except grpc.FutureTimeoutError:
            raise BotDied(f"no gRPC server at {self.target} within {timeout_s:.1f}s") from None
        responses = pb_grpc.BotStub(self._channel).Play(iter(self._outbox.get, CLOSE))
        threading.Thread(target=self._read, args=(responses,), daemon=True).start()

    def _read(self, responses) -> None:
        try:
            for msg in responses:
                if not self._put(msg):
                    return
            self._put(BotDied("the bot closed the stream"))
        except grpc.RpcError as exc:
            self._put(_lost(exc))
        finally:
            self._reader_done.set()

    def _disconnect(self) -> None:
        if self._channel is not None:
            self._channel.close()
            self._channel = None


def _lost(exc: grpc.RpcError) -> BotDied:
    if exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return Oversized(f"sent a message over the {MAX_MESSAGE_BYTES} byte limit")
    return BotDied(f"connection lost: {exc.code().name} {exc.details() or ''}")
