"""What the host must provide, and installing it with apt-get only where that is allowed."""

from __future__ import annotations

import importlib
import subprocess
import sys

from click.testing import CliRunner

from arena.cli import main
from arena.host import Plan, install, plan
from arena.sandbox import SandboxPolicy
from tests.support import need_sandbox

SETUP = importlib.import_module("arena.cli.setup")  # the module; arena.cli.setup is the command


def fake_which(present: set[str]):
    return lambda name: f"/usr/bin/{name}" if name in present else None


def test_a_complete_host_needs_nothing():
    found = plan(fake_which({"bwrap", "prlimit", "setpriv", "node", "npm", "apt-get"}), euid=0)
    assert found.complete and found.installer == ("apt-get",)


def test_missing_commands_map_to_their_packages_once():
    found = plan(fake_which({"apt-get", "node"}), euid=0)
    assert found.required == ("bubblewrap", "util-linux")
    assert found.optional == ("npm",)
    assert found.hint() == (
        "install the missing system packages: sudo apt-get install bubblewrap util-linux npm"
    )


def test_without_apt_or_root_nothing_may_install():
    assert plan(fake_which({"prlimit", "setpriv"}), euid=0).installer == ()
    # not root, and no sudo at all
    assert plan(fake_which({"apt-get"}), euid=1000).installer == ()


def test_install_refreshes_the_lists_once_when_the_first_try_fails():
    calls: list[list[str]] = []
    answers = iter([100, 0, 0])

    def run(command):
        calls.append(list(command))
        return next(answers)

    assert install(["bubblewrap"], ("apt-get",), run)
    assert calls == [
        ["apt-get", "install", "-y", "-q", "bubblewrap"],
        ["apt-get", "update", "-q"],
        ["apt-get", "install", "-y", "-q", "bubblewrap"],
    ]
    assert not install(["x"], ("apt-get",), lambda command: 1)


def test_setup_checks_the_real_sandbox(monkeypatch):
    from arena.sandbox import _reset_detection_cache

    monkeypatch.delenv("ARENA_SANDBOX_MODE", raising=False)
    monkeypatch.setenv("ARENA_BWRAP", "/nonexistent/bwrap")
    _reset_detection_cache()
    try:
        result = CliRunner().invoke(main, ["setup"])
    finally:
        _reset_detection_cache()
    assert result.exit_code == 1
    assert "the bwrap sandbox is unusable (/nonexistent/bwrap not found)" in result.stderr


def test_setup_on_a_ready_machine_installs_nothing_and_says_so(monkeypatch):
    need_sandbox(SandboxPolicy())
    calls = []
    monkeypatch.setattr(SETUP, "plan", lambda: Plan((), (), ("apt-get",)))
    monkeypatch.setattr(SETUP, "install", lambda *args: calls.append(args) or True)
    result = CliRunner().invoke(main, ["setup"])
    assert result.exit_code == 0, result.output
    assert "sandbox: bubblewrap works" in result.stdout
    assert "master bot: search cached (" in result.stdout
    assert calls == []
    # on disk: a fresh process (a bot's start) loads every kernel and compiles none
    check = "from arena.house.master.cache import warm; print(warm()[1])"
    fresh = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert fresh.stdout.strip() == "0", fresh.stderr


def test_setup_installs_what_is_missing_when_it_may(monkeypatch):
    """The plan is faked (nothing is really installed); the sandbox check after it is real."""
    need_sandbox(SandboxPolicy())
    plans = iter([Plan(("bubblewrap",), ("npm",), ("apt-get",)), Plan((), (), ("apt-get",))])
    calls = []
    monkeypatch.setattr(SETUP, "plan", lambda: next(plans, Plan((), (), ())))
    monkeypatch.setattr(SETUP, "install", lambda *args: calls.append(args) or True)
    result = CliRunner().invoke(main, ["setup"])
    assert result.exit_code == 0, result.output
    assert calls == [(("bubblewrap", "npm"), ("apt-get",))]


def test_setup_says_what_to_install_when_it_may_not(monkeypatch):
    monkeypatch.delenv("ARENA_SANDBOX_MODE", raising=False)
    monkeypatch.setattr(SETUP, "plan", lambda: Plan(("bubblewrap",), (), ()))
    result = CliRunner().invoke(main, ["setup"])
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "Error: the bot sandbox needs bubblewrap: install the missing system packages: "
        "sudo apt-get install bubblewrap"
    )
