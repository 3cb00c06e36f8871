"""A build is the contestant's code running on the platform's machine: these builds attack
their sandbox and its limits, in the real build sandbox (bwrap, the build's cgroup)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.package import load_package
from arena.builds import BuildLimits, build_package
from arena.builds.run import LOG_EXCERPT
from arena.sandbox.limits import MiB
from tests.support import bot_with_build, need_cgroups

SMALL = BuildLimits(seconds=60, memory_bytes=512 * MiB, output_bytes=4 * MiB)


def _build(tmp_path: Path, script: str, policy, limits: BuildLimits = SMALL):
    package = load_package(bot_with_build(tmp_path / "src", script))
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o755)
    return build_package(
        package, out / "bot", limits=limits, policy=policy, log_path=out / "build.log"
    )


def test_a_build_succeeds_and_its_output_stays_in_its_folder(tmp_path, sandbox_policy):
    build = _build(tmp_path, "echo compiling; echo built > artifact.txt", sandbox_policy)
    assert build.ok, build.reason
    assert (build.folder / "artifact.txt").read_text() == "built\n"
    assert (build.folder / "bot.py").exists()  # on a copy of the bot's files
    assert "compiling" in build.log
    assert not (tmp_path / "src" / "artifact.txt").exists()  # the upload itself is untouched


def test_a_build_reaches_no_network(tmp_path, sandbox_policy):
    """Postgres and Redis listen on the host's loopback; the build's is its own, empty."""
    script = (
        "for port in 5432 6379; do "
        "if (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null; then echo OPEN-$port; exit 0; fi; "
        "done; echo NO-NETWORK; exit 3"
    )
    build = _build(tmp_path, f"exec bash -c '{script}'", sandbox_policy)
    assert "OPEN-" not in build.log
    assert "NO-NETWORK" in build.log
    assert build.reason == "the build command exited with status 3"


def test_a_build_cannot_write_outside_its_folder(tmp_path, sandbox_policy):
    target = tmp_path / "host-folder"
    target.mkdir()
    target.chmod(0o777)  # even a folder any uid may write is not in its view
    script = (
        f"echo x > {target}/planted 2>/dev/null && echo WROTE-HOST; "
        "echo x > /usr/planted 2>/dev/null && echo WROTE-USR; "
        "echo x > /tmp/scratch && echo TMP-OK"
    )
    build = _build(tmp_path, script, sandbox_policy)
    assert build.ok, build.reason
    assert "WROTE" not in build.log and "TMP-OK" in build.log
    assert not (target / "planted").exists() and not Path("/usr/planted").exists()


def test_a_build_past_its_time_limit_is_stopped_and_says_so(tmp_path, sandbox_policy):
    limits = BuildLimits(seconds=2, memory_bytes=512 * MiB, output_bytes=4 * MiB)
    build = _build(tmp_path, "sleep 300 & sleep 300", sandbox_policy, limits)
    assert build.reason == "ran past its time limit (2 s)"
    assert build.seconds < 60  # stopped, not waited out


def test_a_build_writing_past_the_output_cap_is_stopped(tmp_path, sandbox_policy):
    """Many small files (each under the file-size rlimit) add up past the folder's cap."""
    script = "i=0; while true; do i=$((i+1)); head -c 65536 /dev/zero > f$i; done"
    build = _build(tmp_path, script, sandbox_policy)
    assert build.reason == "wrote more than its 4 MiB of files"


def test_one_file_past_the_output_cap_is_refused(tmp_path, sandbox_policy):
    build = _build(tmp_path, "head -c 20000000 /dev/zero > big", sandbox_policy)
    assert not build.ok
    assert build.reason in ("wrote a file larger than 4 MiB", "wrote more than its 4 MiB of files")


def test_a_build_out_of_memory_says_so(tmp_path, sandbox_policy):
    need_cgroups(sandbox_policy)
    limits = BuildLimits(seconds=120, memory_bytes=96 * MiB, output_bytes=4 * MiB)
    hog = "exec /usr/bin/python3 -c 'x = b\"a\" * (400 << 20); print(len(x))'"
    build = _build(tmp_path, hog, sandbox_policy, limits)
    assert build.reason.startswith(("ran out of memory", "was killed")), build.reason


@pytest.mark.parametrize("size", [100, 3 * LOG_EXCERPT])
def test_the_build_log_keeps_its_first_and_last_10_kib(tmp_path, sandbox_policy, size):
    script = f"echo FIRST; head -c {size} /dev/zero | tr '\\0' x; echo; echo LAST"
    build = _build(tmp_path, script, sandbox_policy)
    assert build.ok, build.reason
    assert build.log.startswith("FIRST") and build.log.rstrip().endswith("LAST")
    cut = "bytes of the log left out" in build.log
    assert cut == (size > 2 * LOG_EXCERPT)
    assert len(build.log) < 2 * LOG_EXCERPT + 200
