"""The Celery app: broker from ``ARENA_BROKER_URL``, settings for jobs that must survive
lost workers.

- Late acks, prefetch 1, and a job re-queued when its worker process is lost: a job is
  removed from the queue only once its match is recorded.
- The visibility timeout (``ARENA_VISIBILITY_TIMEOUT``, default 2 h) must exceed the
  longest match, or Redis hands a running job to a second worker (harmless: the match is
  leased, the second job only waits for the lease — but wasteful).
- No result backend: results go to the database; tasks report nothing back.
- The beat (``arena beat``) sends ``arena.recover`` every third of a lease to the recovery
  queue, which every worker takes beside its match queues; a tick not taken within its
  period expires (the next one does its work). Its schedule is in memory: no file, and
  any number of beats may run (a second one only makes the recovery run twice as often).
- Every job carries the identity of the database it was sent for, and a worker on another
  database refuses it (``workers.identity``: the app's task class).
"""

from __future__ import annotations

from celery import Celery
from kombu.exceptions import ChannelError, OperationalError

from arena.config import Settings
from arena.tournaments.dispatch import DEFAULT_QUEUE, RECOVERY_QUEUE, recovery_every_s


def make_app(settings: Settings | None = None) -> Celery:
    settings = settings or Settings.from_env()
    app = Celery(
        "arena",
        broker=settings.broker_url,
        include=["workers.tasks"],
        task_cls="workers.identity:DatabaseBoundTask",
    )
    every_s = recovery_every_s(settings.lease_s)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        task_default_queue=DEFAULT_QUEUE,
        task_serializer="json",
        accept_content=["json"],
        # every priority its own step (Redis has 0, 3, 6, 9 by default): ``dispatch``'s
        broker_transport_options={
            "visibility_timeout": settings.visibility_timeout_s,
            "priority_steps": list(range(10)),
        },
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # a worker waits out a broker restart
        task_publish_retry_policy={"max_retries": 3, "interval_start": 0.2, "interval_step": 0.5},
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        task_routes={"arena.recover": {"queue": RECOVERY_QUEUE}},
        beat_scheduler="celery.beat:Scheduler",  # in memory
        beat_schedule={
            "recover": {
                "task": "arena.recover",
                "schedule": every_s,
                "options": {"queue": RECOVERY_QUEUE, "expires": every_s},
            }
        },
    )
    return app


def queue_idle(app: Celery, queue: str) -> bool:
    """No job waits in ``queue`` (False when the broker cannot say: it is away)."""
    try:
        with app.connection_for_read() as conn:
            return waiting(conn.default_channel, queue) == 0
    except OperationalError:
        return False


def waiting(channel, queue: str) -> int:
    """Jobs waiting in ``queue`` (not those a worker holds)."""
    try:
        return channel.queue_declare(queue, passive=True).message_count
    except ChannelError:  # never declared: nothing was ever sent to it
        return 0


app = make_app()
