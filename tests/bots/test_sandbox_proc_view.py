"""What a bot can read of the host through /proc, /sys and statfs(2), enumerated inside the
real bwrap sandbox and compared with the committed list ``sandbox_proc_view.txt``: a file
that shows something and is not listed (a new kernel's per-process file, a cover that
stopped working) fails, so the list cannot grow without a reason written beside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.sandbox import launch
from tests.support import hostile_program

LISTED = Path(__file__).with_name("sandbox_proc_view.txt")
HOST_WIDE = ("vmstat", "zoneinfo", "meminfo", "slabinfo", "buddyinfo", "stat", "loadavg")


def listed() -> dict[str, str]:
    lines = [line for line in LISTED.read_text().splitlines() if not line.startswith("#")]
    return dict(line.split(None, 1) for line in lines if line.strip())


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory, sandbox_policy) -> dict[str, object]:
    area = tmp_path_factory.mktemp("proc-view")
    area.chmod(0o755)
    program = hostile_program("proc_view.py")
    bot = program.parent
    log = area / "log.txt"
    with launch(["python3", program.name], bot, log_path=log, policy=sandbox_policy) as proc:
        assert proc.wait(timeout=60) == 0, log.read_text()
    return json.loads(log.read_text().splitlines()[-1])


def test_every_file_that_shows_something_is_listed_with_a_reason(seen) -> None:
    shown = {p for p, state in seen.items() if p.startswith("/proc/") and state != "empty"}
    assert sorted(shown - set(listed())) == []


def test_host_wide_files_are_covered_or_platform_written(seen) -> None:
    for name in HOST_WIDE:
        state = seen[f"/proc/{name}"]
        reason = listed().get(f"/proc/{name}", "")
        assert state == "empty" or reason.startswith("constant: "), name
    for name in ("vmstat", "zoneinfo", "slabinfo", "buddyinfo", "uptime", "interrupts"):
        assert seen[f"/proc/{name}"] == "empty", name
    assert seen.get("/proc/pressure/") == "empty"
    assert not any(p.startswith("/proc/sys/fs/") and "nr" in p and "open" not in p for p in seen)


def test_no_sys_and_no_statfs(seen) -> None:
    assert seen["/sys"] == "absent"
    refused = {p: s for p, s in seen.items() if p.startswith("statfs ")}
    assert refused and set(refused.values()) == {"ENOSYS"}, refused


def test_only_the_sandbox_pids(seen) -> None:
    assert 1 <= seen["pids"] <= 3  # bwrap's init and the program (in its own pid namespace)
