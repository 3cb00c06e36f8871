"""Bot submissions from the web and the API: one upload becomes a stored, pending bot version
(after the size, archive, ownership and rate checks), then a validation match judges it in
the background. Plain Python: Flask views and the CLI stay thin on top of it."""

from arena.submissions.errors import SubmissionError
from arena.submissions.retire import set_retired
from arena.submissions.status import SubmissionStatus, submission_status, version_log
from arena.submissions.submit import submit_version
from arena.submissions.validation import EmbeddedValidation, Validator, run_validation

__all__ = [
    "EmbeddedValidation",
    "SubmissionError",
    "SubmissionStatus",
    "Validator",
    "run_validation",
    "set_retired",
    "submission_status",
    "submit_version",
    "version_log",
]
