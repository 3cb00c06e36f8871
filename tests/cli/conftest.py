"""The CLI tests' fixtures (defined in test_cli.py), shared with the other CLI test files."""

from tests.cli.test_cli import arena, home, sandbox  # noqa: F401
