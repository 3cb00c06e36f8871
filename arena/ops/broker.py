"""Asking the broker, in one round trip and a short timeout: does it answer, does it take
us, and which workers have said they are alive.

A broker that *refuses* (a wrong or missing password, Redis's protected mode ``DENIED``, an
ACL) is told apart from one that is *unreachable* (down, restarting, a partition): the first
is a setup error an operator must fix and never passes by itself; the second is waited out.

Workers' heartbeats are small Redis keys (``HEARTBEAT_PREFIX`` + the worker's name) that a
worker's main process rewrites every few seconds with a time to live: the organiser's status
page reads them in one scan, no broadcast to the workers, and a worker that died vanishes
once its key expires. They need a Redis broker (``celery[redis]`` brings the client); with
another broker, the status page says that it cannot list workers.
"""

from __future__ import annotations

import json
import math
import os
import socket
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

CHECK_TIMEOUT_S = 2.0  # each socket step of a broker question
REDIS_SCHEMES = ("redis", "rediss")
HEARTBEAT_PREFIX = "arena:worker:"
HEARTBEAT_S = 10.0  # how often a worker writes its heartbeat
HEARTBEAT_TTL_S = 3 * HEARTBEAT_S  # a worker silent this long leaves the status page
FIX_REFUSAL = (
    "check the password in ARENA_BROKER_URL or ARENA_BROKER_PASSWORD_FILE (Redis: "
    "requirepass) and that the broker lets this host in"
)
# What a broker says when it answers but will not take this client (Redis: AUTH, protected
# mode, ACLs; AMQP: access refused).
REFUSAL_WORDS = (
    "NOAUTH",
    "WRONGPASS",
    "DENIED",
    "NOPERM",
    "Authentication required",
    "invalid password",
    "invalid username-password",
    "ACCESS_REFUSED",
    "access refused",
)


@dataclass(frozen=True)
class BrokerAnswer:
    """How a broker answered: ``ok``; else ``refused`` (it answered no) or unreachable, and
    ``detail``, the broker's or the client's words in one line."""

    ok: bool
    refused: bool = False
    detail: str = "answers"

    @property
    def kind(self) -> str:
        return "ok" if self.ok else "refused" if self.refused else "unreachable"


def masked(url: str) -> str:
    """``url`` with its password replaced by ``**`` (for logs and pages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    netloc = f"{user}:**@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def is_redis(url: str) -> bool:
    return urlsplit(url).scheme in REDIS_SCHEMES


def one_line(exc: BaseException) -> str:
    """The first line of an error's text, or its class name when it has none."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _refusal(exc: BaseException) -> bool:
    import redis

    if isinstance(exc, (redis.AuthenticationError, redis.exceptions.NoPermissionError)):
        return True
    text = str(exc)
    return any(word.lower() in text.lower() for word in REFUSAL_WORDS)


def redis_client(url: str, timeout_s: float = CHECK_TIMEOUT_S) -> Any:
    """A Redis client for ``url`` that gives up after ``timeout_s`` per socket step and never
    retries: a probe reports what it found, the caller decides whether to ask again. RESP2,
    so a missing password reads "Authentication required", not RESP3's HELLO message."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(
        url,
        socket_connect_timeout=timeout_s,
        socket_timeout=timeout_s,
        retry=Retry(NoBackoff(), 0),
        protocol=2,
    )


def ping(url: str, timeout_s: float = CHECK_TIMEOUT_S) -> BrokerAnswer:
    """One round trip to the broker at ``url`` on a connection of its own (a fresh one each
    time: a password changed on the server shows at once, and no socket crosses a fork)."""
    try:
        if is_redis(url):
            client = redis_client(url, timeout_s)
            try:
                client.ping()
            finally:
                client.close()
        else:
            _kombu_ping(url, timeout_s)
    except Exception as exc:  # any failure is an answer: refused or unreachable
        return BrokerAnswer(False, _refusal(exc), one_line(exc))
    return BrokerAnswer(True)


def _kombu_ping(url: str, timeout_s: float) -> None:
    """Another transport (AMQP, ...): kombu connects once, with no retry."""
    from kombu import Connection

    with Connection(url, connect_timeout=timeout_s) as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, timeout=math.ceil(timeout_s))


@dataclass(frozen=True)
class Heartbeat:
    """What a worker says of itself every few seconds: its Celery name, host and pid, the
    queues it takes, its pool size, when it started and when it wrote this (Unix times)."""

    name: str
    host: str
    pid: int
    queues: tuple[str, ...]
    concurrency: int
    started: float
    seen: float

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "queues": list(self.queues)})

    @classmethod
    def from_json(cls, text: str | bytes) -> Heartbeat:
        data = json.loads(text)
        return cls(
            name=str(data["name"]),
            host=str(data.get("host", "")),
            pid=int(data.get("pid", 0)),
            queues=tuple(str(q) for q in data.get("queues", ())),
            concurrency=int(data.get("concurrency", 0)),
            started=float(data.get("started", 0.0)),
            seen=float(data["seen"]),
        )


def heartbeat(name: str, queues: Iterable[str], concurrency: int, started: float) -> Heartbeat:
    """This process's heartbeat, written now."""
    return Heartbeat(
        name, socket.gethostname(), os.getpid(), tuple(queues), concurrency, started, time.time()
    )


def write_heartbeat(url: str, beat: Heartbeat, ttl_s: float) -> None:
    """Store ``beat`` for ``ttl_s`` (a Redis broker; raises what the client raises)."""
    client = redis_client(url)
    try:
        client.set(HEARTBEAT_PREFIX + beat.name, beat.to_json(), ex=max(1, round(ttl_s)))
    finally:
        client.close()


def forget_heartbeat(url: str, name: str) -> None:
    """A worker stopping cleanly leaves the status page at once (best effort)."""
    try:
        client = redis_client(url)
        try:
            client.delete(HEARTBEAT_PREFIX + name)
        finally:
            client.close()
    except Exception:  # the broker away: the key expires by itself
        pass


def heartbeats(url: str) -> list[Heartbeat]:
    """The workers whose heartbeat has not expired, by name (a Redis broker; raises what
    the client raises). One SCAN and one MGET: cheap however many workers there are."""
    client = redis_client(url)
    try:
        keys = sorted(client.scan_iter(match=HEARTBEAT_PREFIX + "*", count=1000))
        values = client.mget(keys) if keys else []
    finally:
        client.close()
    found = []
    for value in values:
        if value is None:  # expired between the scan and the read
            continue
        try:
            found.append(Heartbeat.from_json(value))
        except (ValueError, KeyError, TypeError):  # not one of ours: skipped, not fatal
            continue
    return sorted(found, key=lambda beat: beat.name)
