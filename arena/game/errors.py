"""Errors the rules raise."""


class IllegalAction(ValueError):
    """An action the rules forbid; the state it was tried on is left unchanged."""
