"""A Player that drives a Bhoos "Smart Bots" HTTP bot, under the referee's clock and fault
policy like any other: every decision is one ``POST /bid`` or ``POST /play``, in game
order, to the same bot process; nothing else (the protocol has no events)."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from arena.players.bhoos.client import Endpoint, call, tcp_endpoint, unix_endpoint
from arena.players.bhoos.wire import move_from, plays_bhoos, request_body
from arena.players.player import BotDied, BotFault, Event, MatchInfo, Move, Request

_HI_POLL_S = 0.02


class BhoosPlayer:
    """Referee side of a Bhoos bot at ``unix:/path`` (a sandboxed bot's relay) or
    ``http://host:port`` (a remote bot)."""

    sandbox = "remote"

    def __init__(self, target: str, name: str) -> None:
        self.target, self.name = target, name
        self._endpoint = endpoint_of(target)

    def start(self, info: MatchInfo, timeout_s: float) -> None:
        """Poll ``GET /hi`` until the bot says hello (it may still be starting)."""
        if not plays_bhoos(info.rules):
            raise BotDied(
                f"a bhoos-http bot plays the bhoos rules only (this match: {info.rules.name})"
            )
        deadline = time.monotonic() + timeout_s
        last = "no answer"
        while time.monotonic() < deadline:
            try:
                answer = call(self._endpoint, "GET", "/hi", None, deadline)
            except BotFault as exc:
                last = exc.reason
            else:
                if answer == {"value": "hello"}:
                    return
                last = f'GET /hi answered {str(answer)[:60]!r}, not {{"value": "hello"}}'
            time.sleep(_HI_POLL_S)
        raise BotDied(f"not ready within {timeout_s:.1f}s: {last}")

    def decide(self, request: Request, timeout_s: float) -> Move:
        path = "/bid" if request.kind == "call" else "/play"
        deadline = time.monotonic() + timeout_s
        answer = call(self._endpoint, "POST", path, request_body(request), deadline)
        return move_from(request.kind, answer)

    def notify(self, event: Event) -> None:
        """The protocol has no events: each request carries the deal so far."""

    def cpu_seconds(self) -> float | None:
        return None

    def close(self) -> None:
        """Nothing held between requests: every request has its own connection."""


def endpoint_of(target: str) -> Endpoint:
    """``unix:/path`` or ``http://host:port[/prefix]``; anything else is refused."""
    if target.startswith("unix:"):
        return unix_endpoint(target.removeprefix("unix:"))
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname or url.query or url.fragment:
        raise ValueError(f"{target}: expected http://host:port (or unix:/path)")
    return tcp_endpoint(url.hostname, url.port or 80, url.path)
