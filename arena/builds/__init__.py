"""Building a bot at registration: its manifest's ``build`` command runs once, in the sandbox
with limits of its own (``limits.py``), on a copy of its files (``run.py``); the built folder is
stored as the version's artifact, which every later match runs (``stored.py``)."""

from arena.builds.limits import BuildLimits
from arena.builds.run import Build, build_package
from arena.builds.stored import build_stored

__all__ = ["Build", "BuildLimits", "build_package", "build_stored"]
