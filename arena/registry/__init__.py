"""Bots as the platform stores them: registering a package, house bots, validating a
version, and a seat for any stored version. ``Runtime`` (``arena.runtime``) says where they
live on this machine and how they are confined."""

from arena.registry.archives import archive_of, free_rejected, inspect_archive, unpack
from arena.registry.house import house_version
from arena.registry.players import player_for
from arena.registry.register import register_bot
from arena.registry.validation import validate_stored, validation_problem

__all__ = [
    "archive_of",
    "free_rejected",
    "house_version",
    "inspect_archive",
    "player_for",
    "register_bot",
    "unpack",
    "validate_stored",
    "validation_problem",
]
