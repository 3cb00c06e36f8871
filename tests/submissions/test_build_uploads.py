"""Uploads with a build step: the owner reads the build's log (nobody else does), and a
runtime the platform does not have is refused before anything is stored."""

from __future__ import annotations

import pytest

from arena.submissions import SubmissionError, submit_version, version_log
from tests.submissions.conftest import wait_verdict, zip_of
from tests.support import bot_with_build


def test_the_owner_reads_the_build_log_and_nobody_else(db, runtime, tmp_path, alice, bob):
    script = "echo OWNER-ONLY-BUILD-OUTPUT; exit 1"
    data = zip_of(bot_with_build(tmp_path / "bot", script))
    version_id = submit_version(db, runtime, alice.id, data, filename="bot.zip")
    assert wait_verdict(db, version_id) == "rejected"
    _, build_log = version_log(db, version_id, alice.id)
    assert "OWNER-ONLY-BUILD-OUTPUT" in build_log
    with pytest.raises(SubmissionError) as err:
        version_log(db, version_id, bob.id)
    assert err.value.status == 404


def test_an_upload_naming_a_runtime_nobody_has_is_refused_at_once(db, runtime, tmp_path, alice):
    folder = bot_with_build(tmp_path / "bot", "true", runtime="cobol")
    with pytest.raises(SubmissionError) as err:
        submit_version(db, runtime, alice.id, zip_of(folder), filename="bot.zip")
    assert err.value.status == 400
    assert "cobol" in str(err.value) and "cpp" in str(err.value)
