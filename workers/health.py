"""Celery's side of a worker's readiness (``arena.ops.watch``): its consumer takes jobs from
Celery's ``worker_ready`` until its warm shutdown begins."""

from __future__ import annotations

from typing import Any

from celery.signals import worker_ready, worker_shutting_down

from arena.ops.watch import WorkerHealth


def follow_consumer(health: WorkerHealth) -> None:
    """Tell ``health`` when this process's consumer starts and stops taking jobs."""

    def ready(**_kwargs: Any) -> None:
        health.consuming(True)

    def stopping(**_kwargs: Any) -> None:
        health.consuming(False)

    worker_ready.connect(ready, weak=False)
    worker_shutting_down.connect(stopping, weak=False)
