"""Compiled bots from the browser: one C source file with its build command through the
upload form is built in the sandbox, validated and valid; a build that fails shows its
log to its owner on the bot's logs pages (nobody else sees it); the languages page lists
what this server runs."""

from __future__ import annotations

from sqlalchemy import select

from arena.sandbox import SandboxPolicy
from arena.store import Bot
from arena.toolchains import installed_version
from tests.dashboard.test_uploads import upload, verdict
from tests.dashboard.users import log_in, make_user
from tests.support import ROOT, need, need_sandbox

C_SOURCE = (ROOT / "starters" / "c" / "bot.c").read_bytes()


def test_one_c_file_and_its_build_command_become_a_valid_bot(client, db):
    need_sandbox(SandboxPolicy.from_env())
    need(installed_version("c") is not None, "no C compiler here")
    make_user(db, "alice")
    log_in(client, "alice")
    answer = upload(
        client,
        source=("bot.c", C_SOURCE),
        name="c-in-a-form",
        version="1",
        language="c",
        command="./bot",
        build="cc -O2 -o bot bot.c",
        runtime="c",
        protocol="stdio-json",
    )
    assert answer.status_code == 303, answer.get_data(as_text=True)
    version_id = int(answer.headers["Location"].rpartition("new=")[2])
    status = verdict(client, version_id)
    assert (status["status"], status["reason"]) == ("valid", "")
    assert status["has_build_log"] is True


def test_a_failed_build_shows_its_log_to_its_owner_only(client, db):
    need_sandbox(SandboxPolicy.from_env())
    make_user(db, "alice")
    make_user(db, "bob")
    log_in(client, "alice")
    answer = upload(
        client,
        source=("bot.c", b"int main(void) { return 0 }\n"),  # a missing semicolon
        name="broken-build",
        version="1",
        command="./bot",
        build="sh -c 'echo compiling bot.c; echo bot.c:1: expected semicolon >&2; exit 1'",
    )
    assert answer.status_code == 303, answer.get_data(as_text=True)
    version_id = int(answer.headers["Location"].rpartition("new=")[2])
    status = verdict(client, version_id)
    assert status["status"] == "rejected"
    assert status["reason"] == "build: the build command exited with status 1"
    with db.session(read_only=True) as s:
        bot_id = s.scalar(select(Bot.id).where(Bot.name == "broken-build"))
    index = client.get(f"/bots/{bot_id}/logs/").get_data(as_text=True)
    assert f"/bots/{bot_id}/logs/1/build" in index
    page = client.get(f"/bots/{bot_id}/logs/1/build")
    assert page.status_code == 200
    assert "bot.c:1: expected semicolon" in page.get_data(as_text=True)

    bob = client.application.test_client()
    log_in(bob, "bob")
    assert bob.get(f"/bots/{bot_id}/logs/1/build").status_code == 404


def test_the_languages_page_lists_the_runtimes_with_this_servers_versions(client):
    page = client.get("/bots/runtimes").get_data(as_text=True)
    for name in ("python3.X", "nodeN", "cpp", "go", "java", "rust", "c"):
        assert f"<code>{name}</code>" in page
    python = installed_version("python")
    assert python is not None and python in page
    assert "600 s, 1536 MiB of memory, 100 MiB of files" in page
