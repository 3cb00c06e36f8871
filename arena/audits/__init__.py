"""The decision-level fair-play audit as a service: every finished match with a bot that is
not a house bot is judged once (``arena.analysis.hindsight``) under a lease, on whichever
worker takes it, and lost ones are sent again.

The judging itself is pure (a record in, telling decisions out); this package is its
plumbing, and runs the same under a Celery worker (``workers.tasks``: a worker judges its
own match at once within its ``budget``, else queue ``audit``) and in ``arena audit``, which
judges in its own process what the scope still has queued.
"""

from arena.audits.budget import Budget, judge_or_send
from arena.audits.recovery import recover, unsent
from arena.audits.run import run, seed_for, work_out

__all__ = ["Budget", "judge_or_send", "recover", "run", "seed_for", "unsent", "work_out"]
