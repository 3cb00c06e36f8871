"""What operators ask of a running platform: is it up, can it work, how is it doing.

Plain Python, so each piece is tested without Flask or Celery: the checks behind ``/readyz``
(``checks``: the database, its migrations, the broker), the numbers behind ``/metrics``
(``stats`` from the database, ``metrics`` for the dashboard, ``worker_metrics`` for a
worker's processes), a worker's own health endpoint and heartbeat (``serve``, ``watch``) and
the organiser's status page (``status``). Every remote question is asked under a deadline
(``deadline``): a probe that hangs on a vanished database is worse than none.
"""
