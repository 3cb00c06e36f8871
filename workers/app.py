"""The Celery app: broker from ``ARENA_BROKER_URL``, settings for jobs that must survive
lost workers.

- Late acks, prefetch 1, and a job re-queued when its worker process is lost: a job is
  removed from the queue only once its match is recorded.
- The visibility timeout (``ARENA_VISIBILITY_TIMEOUT``, default 2 h) must exceed the
  longest match, or Redis hands a running job to a second worker (harmless: the match is
  leased, the second job only waits for the lease — but wasteful).
- No result backend: results go to the database; tasks report nothing back.
- Every job carries the identity of the database it was sent for, and a worker on another
  database refuses it (``workers.identity``: the app's task class).
"""

from __future__ import annotations

from celery import Celery

from arena.config import Settings
from arena.tournaments.dispatch import DEFAULT_QUEUE


def make_app(settings: Settings | None = None) -> Celery:
    settings = settings or Settings.from_env()
    app = Celery(
        "arena",
        broker=settings.broker_url,
        include=["workers.tasks"],
        task_cls="workers.identity:DatabaseBoundTask",
    )
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        task_default_queue=DEFAULT_QUEUE,
        task_serializer="json",
        accept_content=["json"],
        broker_transport_options={"visibility_timeout": settings.visibility_timeout_s},
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # a worker waits out a broker restart
        task_publish_retry_policy={"max_retries": 3, "interval_start": 0.2, "interval_step": 0.5},
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
    )
    return app


app = make_app()
