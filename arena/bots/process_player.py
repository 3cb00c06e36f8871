"""A Player that runs a bot package as a sandboxed process and talks to it over its
manifest's protocol (``arena.bots.protocols``: gRPC, or Bhoos HTTP through a relay in the
sandbox)."""

from __future__ import annotations

import contextlib
import dataclasses
import subprocess
import tempfile
import time
from pathlib import Path

from arena.bots.package import BotPackage
from arena.players.markers import decision_label
from arena.players.player import LOG_LINE, BotDied, Event, MatchInfo, Move, Player, Request
from arena.sandbox import (
    SandboxedProcess,
    SandboxError,
    SandboxPolicy,
    SandboxUnavailable,
    UnsafeSocket,
    launch,
    resolve_mode,
)
from arena.sandbox.limits import DEFAULT_LIMITS, Limits
from arena.text import printable

_EXIT_WAIT_S = 0.5  # how long a failure waits for the bot's exit status before reporting
# Start-up is judged on the bot's own CPU time, so that a loaded host never decides it: the
# allowance is CPU seconds, and the wall clock only backs it up, at this many allowances.
STARTUP_BACKSTOP = 4


class ProcessPlayer:
    """Starts the package's command in the sandbox with the socket address as its last
    argument and in ``CALLBREAK_ADDRESS`` (as its protocol says: a ``bhoos-http`` bot runs
    behind the relay, which serves that socket, without the argument); its log is kept in
    ``log_dir``.

    Every :meth:`start` launches a fresh sandbox (the referee starts each game anew); the
    outputs of all of them go to one log file, ``log_name`` (default: the player's name),
    which is emptied at the first start; its byte cap holds for all starts together.
    """

    def __init__(
        self,
        package: BotPackage,
        name: str | None = None,
        *,
        limits: Limits = DEFAULT_LIMITS,
        policy: SandboxPolicy | None = None,
        log_dir: Path | None = None,
        log_name: str | None = None,
    ) -> None:
        self.package, self.name = package, name or package.name
        self.limits, self.policy = limits, policy
        self.log_dir = log_dir
        self.log_name = log_name or f"{self.name}.log"
        self.log_path: Path | None = None
        self._starts = 0
        self.sandbox = "bwrap"  # what the policy gives, set by start()
        self._proc: SandboxedProcess | None = None
        self._conn: Player | None = None
        self.protocol = package.speaks

    def start(self, info: MatchInfo, timeout_s: float) -> None:
        """``timeout_s``: the start-up allowance, in seconds of the bot's own CPU time (up to
        ``STARTUP_BACKSTOP`` times as long on the wall clock when the host is busy)."""
        begun = time.monotonic()
        backstop = begun + timeout_s * STARTUP_BACKSTOP
        log_path = self._open_log()
        try:
            self.sandbox = resolve_mode(self.policy)  # so a bot that fails to start is marked too
            protocol = self.protocol
            if protocol.needs_bwrap and self.sandbox != "bwrap":
                raise BotDied(
                    f"a {protocol.name} bot needs the bwrap sandbox ({protocol.needs_bwrap})"
                )
            self._proc = launch(
                [*protocol.relay, *self.package.launch_command()],
                self.package.root,
                log_path=log_path,
                limits=self._limits_left(),
                address_env="CALLBREAK_ADDRESS",
                address_arg=protocol.address_arg,
                append_log=True,
                policy=self.policy,
            )
        except SandboxUnavailable:
            raise  # the platform's problem, not the bot's
        except (SandboxError, OSError) as exc:
            raise BotDied(f"could not start: {exc}") from None
        address, deadline = self._connect_address(begun + timeout_s, backstop, timeout_s)
        self._conn = self.protocol.player(address, self.name)
        # The greeting is short work: a third of the allowance at least, within the backstop.
        now = time.monotonic()
        greeting_s = max(deadline - now, min(timeout_s / 3, backstop - now), 0.1)
        try:
            self._conn.start(info, greeting_s)
        except BotDied as exc:
            raise type(exc)(self._explain(exc.reason)) from None
        self._proc.set_turn(False)  # started: its full CPU weight and quota on its turns only

    def _open_log(self) -> Path:
        """The seat's one log: emptied at the first start, a header line before each."""
        if self.log_path is None:
            log_dir = self.log_dir or Path(tempfile.mkdtemp(prefix="arena-bot-log-"))
            log_dir.mkdir(parents=True, exist_ok=True)
            self.log_path = log_dir / self.log_name
        self._starts += 1
        with open(self.log_path, "w" if self._starts == 1 else "a") as log:
            log.write(f"[arena: start {self._starts} of {self.name}]\n")
        return self.log_path

    def _limits_left(self) -> Limits:
        """The log cap is for the whole match: each start may only use what is left."""
        used = self.log_path.stat().st_size if self.log_path else 0
        return dataclasses.replace(self.limits, log_bytes=max(1, self.limits.log_bytes - used))

    def _connect_address(
        self, deadline: float, backstop: float, allowance_s: float
    ) -> tuple[str, float]:
        """Wait for the bot's socket, then the checked address to connect to and the
        deadline reached. Past a deadline the bot's CPU time decides: one that has not used
        its allowance yet (a busy host gave it no CPU) gets time for the rest of it."""
        proc = self._proc
        assert proc is not None  # launched by start() just before
        while not proc.socket_ready():
            if not proc.alive():
                raise BotDied(self._explain("exited during start-up"))
            now = time.monotonic()
            if now > deadline:
                used = proc.usage().cpu_seconds
                if used >= allowance_s:
                    raise BotDied(
                        self._explain(
                            f"did not open its socket in time ({used:.1f} s of CPU used, "
                            f"the start-up allowance is {allowance_s:g} s)"
                        )
                    )
                if now > backstop:
                    raise BotDied(
                        self._explain(
                            f"did not open its socket in time (waited "
                            f"{STARTUP_BACKSTOP * allowance_s:g} s, {used:.1f} s of CPU used)"
                        )
                    )
                deadline = min(backstop, now + max(0.1, allowance_s - used))
            time.sleep(0.005)
        try:
            return proc.connect_address(), deadline
        except UnsafeSocket as exc:
            raise BotDied(f"refused to connect: {exc}") from None

    def decide(self, request: Request, timeout_s: float) -> Move:
        if self._conn is None or self._proc is None:
            raise BotDied("not started")
        self._proc.mark_log(decision_label(request))  # before the request: the bot's lines follow
        self._proc.set_turn(True)
        try:
            return self._conn.decide(request, timeout_s)
        except BotDied as exc:
            raise type(exc)(self._explain(exc.reason)) from None
        finally:
            self._proc.set_turn(False)

    def notify(self, event: Event) -> None:
        if self._conn is not None:
            self._conn.notify(event)

    def cpu_seconds(self) -> float | None:
        """CPU time of the bot's live processes (one /proc scan: call it per game, not per move)."""
        if self._proc is None or not self._proc.alive():
            return None
        return self._proc.usage().cpu_seconds

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            self._proc.stop()

    def _explain(self, reason: str) -> str:
        """Add what killed the bot if its memory limit did, its exit status and the last line
        of its log, which authors need."""
        parts = [reason]
        if self._proc is not None:
            # A lost connection is usually seen before the dying process has been reaped.
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=_EXIT_WAIT_S)
            if not self._proc.alive():
                if self._proc.oom_kills():  # the memory cgroup's OOM killer, not a crash
                    cap = self._proc.limits.memory_bytes >> 20
                    parts.append(f"killed by the memory limit ({cap} MiB)")
                parts.append(f"exit status {self._proc.returncode}")
                # its last words may still be in the pipe: the line authors need most
                self._proc.settle_log(_EXIT_WAIT_S)
        reason = "; ".join(parts)
        tail = _last_line(self.log_path)
        return f"{reason}{LOG_LINE}{tail}" if tail else reason


def _last_line(path: Path | None) -> str:
    if path is None or not path.exists():
        return ""
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - 2000))
        # "\n" only: splitlines() would also break at NEL, FF... that a bot chooses
        lines = f.read().decode(errors="replace").strip().split("\n")
    return printable(lines[-1], 300) if lines else ""
