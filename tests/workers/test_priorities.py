"""Jobs come out of a real Redis in the order the platform means, across a worker's queues:
a validation or a build first, a match whose worker was lost next, a ladder placement, then
other matches, the audit's judging last — whatever order they were sent in. The consumer
is kombu's own multi-queue poll (BRPOP over every queue and priority), as a Celery
worker's, with the app's transport options."""

from __future__ import annotations

from kombu import Consumer, Queue

from arena.tournaments.dispatch import (
    AUDIT_QUEUE,
    DEFAULT_QUEUE,
    LOST_PRIORITY,
    MATCH_PRIORITY,
    PLACEMENT_PRIORITY,
    Job,
    build_queue,
)
from tests.workers.test_unserved_queues import broker  # noqa: F401 (a fixture)


def test_validations_then_placements_then_matches_then_the_audit(broker) -> None:  # noqa: F811
    from workers.app import app
    from workers.tasks import send_hindsight, send_match, validate_bot_task

    send_hindsight(1)
    send_match(Job(2, DEFAULT_QUEUE, MATCH_PRIORITY))
    send_match(Job(3, DEFAULT_QUEUE, PLACEMENT_PRIORITY))
    send_match(Job(4, DEFAULT_QUEUE, MATCH_PRIORITY))
    send_match(Job(7, DEFAULT_QUEUE, LOST_PRIORITY))
    validate_bot_task.apply_async((5,), queue=build_queue("c"))
    validate_bot_task.apply_async((6,), queue=DEFAULT_QUEUE)

    taken: list[tuple[str, int]] = []

    def take(body, message) -> None:
        taken.append((message.headers["task"], body[0][0]))
        message.ack()

    queues = [Queue(q) for q in (DEFAULT_QUEUE, build_queue("c"), AUDIT_QUEUE)]
    with app.connection_for_read() as conn, Consumer(conn, queues, callbacks=[take]) as consumer:
        consumer.qos(prefetch_count=1)
        while len(taken) < 7:
            conn.drain_events(timeout=10)
    validations = {("arena.validate_bot", 5), ("arena.validate_bot", 6)}
    assert set(taken[:2]) == validations  # from either queue, before any match
    assert taken[2] == ("arena.run_match", 7)  # the lost one, sent after the others
    assert taken[3] == ("arena.run_match", 3)  # the placement, sent after a match
    assert taken[4:6] == [("arena.run_match", 2), ("arena.run_match", 4)]  # in sent order
    assert taken[6] == ("arena.hindsight", 1)  # sent first, taken last
