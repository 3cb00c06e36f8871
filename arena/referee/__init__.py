"""The referee: plays one match between four Players and owns the clock."""

from arena.referee.match import DEFAULT_MAX_STRIKES, Clock, MatchSpec, play_match, secret_seed
from arena.referee.result import Fault, GameResult, MatchResult

__all__ = [
    "DEFAULT_MAX_STRIKES",
    "Clock",
    "Fault",
    "GameResult",
    "MatchResult",
    "MatchSpec",
    "play_match",
    "secret_seed",
]
