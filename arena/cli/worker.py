"""``arena worker``: a Celery worker for tournaments on Redis and Postgres; ``arena beat``:
the clock that has the workers recover what was lost."""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click
from sqlalchemy.engine import URL

from arena.cli.context import runtime_and_db, settings, unsafe_no_sandbox, user_errors
from arena.config import Settings
from arena.house.master import cache as master_cache
from arena.sandbox import resolve_mode
from arena.store import normalise_url
from arena.toolchains import installed
from arena.tournaments.dispatch import AUDIT_QUEUE, DEFAULT_QUEUE, RECOVERY_QUEUE, build_queue
from arena.tournaments.preflight import preflight

if TYPE_CHECKING:  # arena.ops loads prometheus_client, which must see its folder first
    from arena.ops.watch import WorkerHealth

EXAMPLE_URL = "postgresql://arena@dbhost:5432/arena"
DEFAULT_NICE = 10  # a nice-10 task weighs a tenth of an ordinary one
DEFAULT_METRICS_PORT = 9540


def lower_priority(nice: int) -> None:
    """This process and all it starts at niceness ``nice`` at least (never raised back)."""
    current = os.getpriority(os.PRIO_PROCESS, 0)
    if nice > current:
        os.setpriority(os.PRIO_PROCESS, 0, nice)


def shared_database_problem(configured: Settings) -> str | None:
    """Why these settings cannot serve a worker, in one line: workers on different machines
    must all use the platform's one database, never a SQLite file of their own."""
    if not configured.database_configured:
        return (
            "ARENA_DATABASE_URL is not set: a worker must use the platform's Postgres "
            f"database, the one the dashboard and every other worker use (e.g. {EXAMPLE_URL})"
        )
    url = normalise_url(configured.database_url)
    if url.get_backend_name() == "sqlite":
        return (
            f"ARENA_DATABASE_URL is a SQLite file ({url.render_as_string()}), which workers on "
            "other machines cannot share: set it to the platform's Postgres database "
            f"(e.g. {EXAMPLE_URL})"
        )
    return None


def refused_by_broker(url: str) -> None:
    """Refuse to start on a broker that answers but will not take this process (a wrong or
    missing password, protected mode): Celery would retry it forever. One that does not
    answer yet is waited for, as a broker restarting is."""
    from arena.ops.broker import FIX_REFUSAL, masked, ping

    answer = ping(url)
    if answer.refused:
        raise click.ClickException(
            f"the broker at {masked(url)} refuses this process ({answer.detail}): {FIX_REFUSAL}"
        )
    if not answer.ok:
        click.echo(
            f"the broker at {masked(url)} does not answer yet ({answer.detail}): waiting for it",
            err=True,
        )


def serve_health(
    configured: Settings,
    database: URL,
    name: str,
    queues: Sequence[str],
    concurrency: int,
    host: str,
    port: int,
) -> WorkerHealth:
    """This worker's broker watch and heartbeat (always), and its ``/healthz``, ``/readyz``
    and ``/metrics`` on ``host:port`` (unless 0); a port that cannot be had is said once,
    and the worker runs on without it."""
    from arena.ops.checks import DatabaseProbe
    from arena.ops.serve import HealthServer
    from arena.ops.watch import BrokerWatch, WatchCollector, WorkerHealth
    from arena.ops.worker_metrics import exposition

    watch = BrokerWatch(configured.broker_url)
    health = WorkerHealth(DatabaseProbe(database), watch, name, queues, concurrency)
    health.start()
    if port:
        extra = [WatchCollector(watch)]
        try:
            server = HealthServer(host, port, health.readiness, lambda: exposition(extra))
        except OSError as exc:
            click.echo(
                f"{name}: cannot serve health and metrics on {host}:{port} ({exc}); "
                "running without them (--metrics-port another port, or 0)",
                err=True,
            )
        else:
            server.start()
            click.echo(f"{name}: /healthz, /readyz and /metrics on http://{host}:{server.port}")
    return health


@click.command()
@click.option(
    "--concurrency", type=click.IntRange(1), default=1, show_default=True, help="Matches at once."
)
@click.option(
    "--queues",
    default=DEFAULT_QUEUE,
    show_default=True,
    help="Queues to take matches from, comma-separated (e.g. arena,arena.node where node is); "
    f"every worker also takes the beat's recovery jobs ({RECOVERY_QUEUE}).",
)
@click.option(
    "--audit/--no-audit",
    default=True,
    show_default=True,
    help=f"Also take the decision audit's judging ({AUDIT_QUEUE}), last: its jobs wait "
    f"until nothing else waits for this worker. `--queues {AUDIT_QUEUE}` makes a worker "
    "that judges only.",
)
@click.option(
    "--build/--no-build",
    default=True,
    show_default=True,
    help="Also build uploaded bots, for every toolchain installed here (queues "
    "arena.build.NAME, and arena.build for builds naming none; a build takes up to "
    "ARENA_BUILD_SECONDS, then its validation match).",
)
@click.option(
    "--nice",
    type=click.IntRange(0, 19),
    default=DEFAULT_NICE,
    show_default=True,
    envvar="ARENA_WORKER_NICE",
    help="CPU priority below the host's other work (Unix niceness; ARENA_WORKER_NICE): the "
    "referee, its builds and its bots (their cgroup weighs the same) yield to a dashboard "
    "or database on the same machine. 0 on a host of its own changes nothing.",
)
@click.option(
    "--metrics-port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_METRICS_PORT,
    show_default=True,
    envvar="ARENA_WORKER_METRICS_PORT",
    help="Serve /healthz, /readyz (the database and the broker take this worker) and "
    "/metrics (what its processes did) on this port (ARENA_WORKER_METRICS_PORT; 0: none).",
)
@click.option(
    "--metrics-host",
    default="127.0.0.1",
    show_default=True,
    help="Address of the metrics port (0.0.0.0: every interface, for a Prometheus elsewhere).",
)
@click.option("--loglevel", default="INFO", show_default=True)
@unsafe_no_sandbox
def worker(
    concurrency: int,
    queues: str,
    audit: bool,
    build: bool,
    nice: int,
    metrics_port: int,
    metrics_host: str,
    loglevel: str,
) -> None:
    """Run matches sent by `arena tournament run ID --backend celery` (ARENA_BROKER_URL,
    ARENA_DATABASE_URL) until stopped, and judge finished matches for the fair-play
    audit when nothing else waits."""
    lower_priority(nice)
    with user_errors():
        if problem := shared_database_problem(settings()):
            raise click.ClickException(problem)
        runtime, db = runtime_and_db()  # refuse a bad or stale database before taking any job
        refused_by_broker(runtime.settings.broker_url)  # and a broker that will not take it
        resolve_mode(runtime.policy)  # and a machine that cannot sandbox bots
        names = [q.strip() for q in queues.split(",") if q.strip()]
        if problem := preflight(runtime, names):  # or start them: bots would pay for it
            raise click.ClickException(f"this machine cannot start bots: {problem}")
        if not master_cache.is_built():
            click.echo("building the master bot's search cache for this machine (30-45 s)...")
            master_cache.ensure_built()
        if metrics_port:  # before the pool forks, and before the jobs' modules count anything
            from arena.ops.worker_metrics import enable_multiprocess

            enable_multiprocess()
        from workers.app import app  # Celery is loaded only for this command
        from workers.client.matches import broker_problem
        from workers.identity import identity_of, serve
        from workers.tasks import use_settings

        use_settings(runtime.settings)  # the pool's processes are forked from this one
        identity = identity_of(db)  # jobs stamped for another database are refused
        db.dispose()  # no connection crosses the fork
        serve(identity)

        if problem := broker_problem(connect=False):
            raise click.ClickException(problem)

    builds = [build_queue(), *map(build_queue, installed())] if build else []
    extra = [RECOVERY_QUEUE, *([AUDIT_QUEUE] if audit else [])]
    taken = ",".join(dict.fromkeys([*names, *builds, *extra]))
    name = f"arena-{os.getpid()}@{socket.gethostname()}"
    where = db.url.render_as_string(hide_password=True)
    click.echo(f"{name}: database {where} (identity {identity}), queues {taken}")
    health = serve_health(
        runtime.settings, db.url, name, taken.split(","), concurrency, metrics_host, metrics_port
    )
    from workers.health import follow_consumer

    follow_consumer(health)  # ready once Celery's consumer takes jobs
    try:
        app.worker_main(
            [
                "worker",
                f"--concurrency={concurrency}",
                f"--queues={taken}",
                f"--loglevel={loglevel}",
                f"--hostname={name}",
                "--without-gossip",
                "--without-mingle",
            ]
        )
    finally:
        health.stop()


@click.command()
@click.option("--loglevel", default="INFO", show_default=True)
def beat(loglevel: str) -> None:
    """Have the workers recover what was lost, every third of a lease (ARENA_LEASE_SECONDS,
    ARENA_BROKER_URL): matches whose worker or job was lost are sent again, tournaments that
    are over are finished, lost bot validations restarted. One per cluster; more are
    harmless."""
    with user_errors():
        configured = settings()  # refuse bad ARENA_* values before starting
        from workers.app import app  # Celery is loaded only for this command
        from workers.client.matches import broker_problem

        if problem := broker_problem(connect=False):
            raise click.ClickException(problem)
        refused_by_broker(configured.broker_url)
    app.start(["beat", f"--loglevel={loglevel}"])
