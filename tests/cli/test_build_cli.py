"""``arena bot build`` and ``arena play``'s build, through the real build sandbox: a bot is
tried locally exactly as the server will build it, and a failed build says why with the end
of its log."""

from __future__ import annotations

from tests.cli.test_cli import ok, table_rows
from tests.support import bot_built_from_source, bot_with_build


def test_bot_build_writes_the_built_folder_and_leaves_the_source_alone(arena, sandbox, tmp_path):
    source, out = bot_built_from_source(tmp_path / "src"), tmp_path / "built"
    printed = ok(arena("bot", "build", source, "--out", out))
    assert "built in " in printed and f"arena play {out} " in printed
    assert (out / "bot.py").read_bytes() == (source / "source.py").read_bytes()
    assert not (source / "bot.py").exists()
    assert "generating" in (tmp_path / "built.build.log").read_text()
    again = arena("bot", "build", source, "--out", out)
    assert again.exit_code == 1 and "exists: name a new folder with --out" in again.stderr


def test_a_failed_build_prints_the_end_of_its_log_and_the_reason(arena, sandbox, tmp_path):
    script = "echo 'bot.cpp:3: error: expected ; before }' >&2; exit 2"
    result = arena("bot", "build", bot_with_build(tmp_path / "src", script))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "  bot.cpp:3: error: expected ; before }" in result.stderr
    assert "build failed: the build command exited with status 2" in result.stderr
    plain = tmp_path / "plain"
    bot_with_build(plain, "true")
    (plain / "bot.toml").write_text(
        'name = "plain"\nversion = "1"\ncommand = ["python3", "bot.py"]\n'
    )
    refused = arena("bot", "build", plain)
    assert "names no build step" in refused.stderr


def test_play_builds_a_folder_first_unless_told_not_to(arena, sandbox, tmp_path):
    source = bot_built_from_source(tmp_path / "src")
    bots = (source, "random", "heuristic", "random")
    played = ok(arena("play", *bots, "--deals", "1", "--games", "1", "--quiet"))
    assert "built builder in " in played
    [row] = table_rows(played.split("Match standings")[1], ("builder",)).values()
    assert [cell.strip() for cell in row.split("│")[1:-1]][4:] == ["0", ""]  # no fault
    assert not (source / "bot.py").exists()  # built on a copy
    unbuilt = arena("play", *bots, "--deals", "1", "--games", "1", "--quiet", "--no-build")
    assert unbuilt.exit_code == 1 and "builder did not start" in unbuilt.stderr


def test_runtimes_packages_prints_each_package_once_or_names_the_known_runtimes(arena):
    both = ok(arena("runtimes", "--packages", "c,cpp")).split()
    assert both[:3] == ["gcc", "make", "libc6-dev"] and both.count("make") == 1
    assert "libgrpc++-dev" in both and "golang-go" not in both
    every = ok(arena("runtimes", "--packages", "all")).split()
    assert {"nodejs", "golang-go", "openjdk-17-jdk-headless", "cargo"} <= set(every)
    assert len(every) == len(set(every))
    refused = arena("runtimes", "--packages", "c,zig")
    assert (
        refused.exit_code == 1 and "no runtime named 'zig': write one of python" in refused.stderr
    )
