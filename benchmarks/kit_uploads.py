"""Every starter kit as a contestant sends it: through the dashboard's upload form in a real
browser, on the cluster stack (Postgres, Redis, ``arena dashboard``, one ``arena worker``
that builds and validates), then ranked in a tournament beside the Python and JavaScript
sample bots, played by the same worker.

Prints each upload's time from the form's submit to its verdict (build + validation game,
as the page shows it), then the tournament's standings (points per deal, faults).

Needs Debian's chromium and Playwright, PostgreSQL on 127.0.0.1:5432 (trust) and Redis on
127.0.0.1:6379, bwrap, and the kits' toolchains (``arena setup --runtimes all``).

Run: python benchmarks/kit_uploads.py [--redis-db N] [--games G]
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
from playwright.sync_api import sync_playwright

from arena.store import pack_directory
from tests.dashboard.test_browser import CHROMIUM
from tests.dashboard.test_browser_accounts import sign_up

ROOT = Path(__file__).resolve().parents[1]
KITS = [ROOT / "starters" / kit for kit in ("c", "cpp", "go", "java", "rust")]
SAMPLES = [ROOT / "sample_bots" / "random", ROOT / "sample_bots" / "js_lowcard"]


def arena(*args: str, env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "arena", *args], env=env, capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(f"arena {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}")
    return out.stdout


def started(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "w") as out:  # the child holds its own copy of the descriptor
        return subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)


def fresh_database() -> str:
    name = f"bench_kits_{secrets.token_hex(4)}"
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}")
    return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"


def upload_all(base: str, archives: list[Path]) -> list[tuple[str, str, float, str]]:
    """Each archive by a contestant of its own (signed up in a browser context of its own),
    through the form; (archive, verdict, seconds from submit to verdict, reason)."""
    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for archive in archives:
            context = browser.new_context()
            page = context.new_page()
            sign_up(page, base, f"author-{archive.stem.replace('_', '-')}")
            page.goto(base + "/bots/new")
            page.set_input_files("input[name=archive]", str(archive))
            begun = time.monotonic()
            page.click("button:has-text('Submit')")
            page.wait_for_url("**/bots/*?new=*")
            version_id = page.url.rpartition("new=")[2]
            status = f"#version-{version_id} [data-field=status]"
            page.wait_for_function(
                f"document.querySelector('{status}').textContent !== 'pending'", timeout=900_000
            )
            took = time.monotonic() - begun
            reason = page.locator(f"#version-{version_id} [data-field=reason]").text_content()
            verdict = page.locator(status).text_content() or ""
            results.append((archive.stem, verdict, took, reason or ""))
            print(f"  {archive.stem:<12} {verdict:<9} {took:6.1f} s {reason or ''}", flush=True)
            context.close()
        browser.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--redis-db", type=int, default=11)
    parser.add_argument("--games", type=int, default=2, help="games per match")
    parser.add_argument("--port", type=int, default=8431)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-kits-") as tmp:
        scratch = Path(tmp)
        env = {
            **os.environ,
            "ARENA_DATABASE_URL": fresh_database(),
            "ARENA_BROKER_URL": f"redis://127.0.0.1:6379/{args.redis_db}",
            "ARENA_DATA_DIR": str(scratch / "data"),
        }
        arena("db", "upgrade", env=env)
        arena("ladder", "pause", env=env)  # the tournament alone plays here
        archives = []
        for folder in KITS + SAMPLES:
            archive = scratch / f"{folder.name}.zip"
            archive.write_bytes(pack_directory(folder))
            archives.append(archive)
        command = [sys.executable, "-m", "arena"]
        logs = scratch / "logs"
        logs.mkdir()
        queues = "arena,arena.node,arena.cpp,arena.java"
        procs = [
            started([*command, "dashboard", "--port", str(args.port)], env, logs / "dashboard"),
            started(
                [*command, "worker", "--concurrency", "1", "--queues", queues], env, logs / "worker"
            ),
        ]
        try:
            time.sleep(8)  # the worker's start-up check of the sandbox
            print("uploads through the web form (submit to verdict):")
            results = upload_all(f"http://127.0.0.1:{args.port}", archives)
            names = [
                line.split("=", 1)[1].strip().strip('"')
                for folder in KITS + SAMPLES
                for line in (folder / "bot.toml").read_text().splitlines()
                if line.startswith("name")
            ]
            valid = [n for n, r in zip(names, results, strict=True) if r[1] == "valid"]
            made = arena(
                "tournament",
                "create",
                "--bots",
                ",".join(valid),
                "--games-per-match",
                str(args.games),
                env=env,
            )
            tid = made.split(":")[0].split()[-1]  # "tournament 2: name"
            begun = time.monotonic()
            arena("tournament", "run", tid, "--backend", "celery", env=env)
            print(
                f"tournament {tid} of {len(valid)} bots played in {time.monotonic() - begun:.0f} s:"
            )
            print(arena("standings", tid, env=env))
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(30)


if __name__ == "__main__":
    main()
