"""Match analyses as a service: asking for one (who may, how often), working it out under a
lease on whichever worker takes it, storing it once, and sending lost ones again.

The analysis itself is ``arena.analysis`` (pure: a record in, verdicts out); this package is
its plumbing, and runs the same under a Celery worker (``workers.tasks``), in a dashboard's
background process (``arena analysis-job``) and in ``arena analyse``.
"""

from arena.analysis_runs.errors import AnalysisRefused
from arena.analysis_runs.recovery import recover
from arena.analysis_runs.request import (
    MAX_SAMPLES,
    MIN_SAMPLES,
    Dispatch,
    check_samples,
    contestants,
    request,
)
from arena.analysis_runs.run import run, work_out

__all__ = [
    "MAX_SAMPLES",
    "MIN_SAMPLES",
    "AnalysisRefused",
    "Dispatch",
    "check_samples",
    "contestants",
    "recover",
    "request",
    "run",
    "work_out",
]
