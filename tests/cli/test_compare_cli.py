"""``arena bot compare`` here, ``arena bot current`` and ``arena bot promotion``: the same
figures as the bot page, from the local database, with bots played in the sandbox."""

from __future__ import annotations

from pathlib import Path

from arena.store import Database, upgrade
from arena.store.ladders import seated_versions
from tests.cli.conftest import Arena
from tests.ladders.test_ladder_run import open_pagat
from tests.services.conftest import sample_copy


def test_a_worse_version_is_found_worse_and_exits_1(
    arena: Arena, home: Path, sandbox: None
) -> None:
    url = f"sqlite:///{home / 'arena.db'}"
    upgrade(url)  # not `arena db upgrade`, which opens the default ladder
    db = Database(url)
    open_pagat(db, deals=1, games=4)  # short matches, before the default ladder opens
    for version, source in (("1.0", "heuristic"), ("2.0", "random")):
        folder = sample_copy(home / f"v{version}", "mine", source, version)
        assert arena("bot", "add", folder, "--no-validate").exit_code == 0
    assert arena("bot", "promotion", "mine", "if-not-worse").exit_code == 0

    result = arena("bot", "compare", "mine@1.0", "mine@2.0", "--matches", "20")
    assert result.exit_code == 1, result.output
    assert "mine@2.0 against mine@1.0" in result.output
    assert "worse" in result.output and "Δ points a deal" in result.output
    assert "-" in result.output.split("Δ points a deal", 1)[1].split("\n", 1)[0]

    said = arena("bot", "current", "mine@1.0")
    assert said.exit_code == 0 and "now current" in said.output
    with db.session(read_only=True) as s:
        assert [v.ref for v in seated_versions(s)] == ["mine@1.0"]
    again = arena("bot", "current", "mine@1.0")
    assert "already current" in again.output
    unknown = arena("bot", "current", "mine@7.7")
    assert unknown.exit_code == 1 and "no version '7.7'" in unknown.output
    db.dispose()
