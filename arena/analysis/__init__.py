"""Match analysis: the master bot's verdict on every decision of a finished match, in points.

Pure: a match record in, an ``Analysis`` out (no database, no files). ``analyse`` replays
the record to rebuild what the entrant's seat saw at each decision and has the master value
every legal option from that alone; ``verdict`` holds the result types and the labels.
"""

from arena.analysis.evaluate import DEFAULT_SAMPLES, analyse
from arena.analysis.verdict import LABELS, THRESHOLDS, Analysis, OptionValue, Verdict

__all__ = [
    "DEFAULT_SAMPLES",
    "LABELS",
    "THRESHOLDS",
    "Analysis",
    "OptionValue",
    "Verdict",
    "analyse",
]
