"""How long an ordinary upload waits for its verdict while another user's two uploads of a
bot that spends its whole clock are being validated.

Through the real upload path (``submit_version``) and real validation matches in the bwrap
sandbox, on a private SQLite: user mallory uploads two versions of
tests/hostile_bots/slow_thinker (about four minutes of validation each), then user victor
uploads the random sample bot. Two rows, in one run:

- one thread, first come first served: the validation pool as it was (one thread, one key);
- fair pool: this process's validation pool (two threads, one validation per user at a
  time, users in turn: ``arena.submissions.fair``).

Prints victor's wait (upload to verdict) and mallory's. Run:
python benchmarks/validation_fairness.py
"""

from __future__ import annotations

import io
import os
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from arena.config import Settings
from arena.runtime import Runtime
from arena.store import Database, create_user, upgrade
from arena.submissions import EmbeddedValidation, run_validation, submission_status, submit_version
from arena.submissions.fair import FairPool

ROOT = Path(__file__).resolve().parents[1]
SLOW = ROOT / "tests" / "hostile_bots" / "slow_thinker"
ORDINARY = ROOT / "sample_bots" / "random"


def zipped(folder: Path, name: str) -> bytes:
    """The bot folder as a zip, under another name."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for path in sorted(folder.iterdir()):
            if path.is_file():
                data = path.read_text()
                if path.name == "bot.toml":
                    data = "\n".join(
                        f'name = "{name}"' if line.startswith("name") else line
                        for line in data.splitlines()
                    )
                zf.writestr(path.name, data)
    return out.getvalue()


def verdict_after(db: Database, version_id: int, started: float) -> float:
    while submission_status(db, version_id).status == "pending":
        time.sleep(0.2)
    return time.monotonic() - started


def scenario(area: Path, validator: Callable[[Database, Runtime], object]) -> dict[str, float]:
    url = f"sqlite:///{area / f'{time.monotonic_ns()}.db'}"
    upgrade(url)
    db = Database(url)
    runtime = Runtime(Settings(url, area / "data"))
    validate = validator(db, runtime)
    with db.session() as s:
        mallory, victor = (
            create_user(s, "mallory", "password1").id,
            create_user(s, "victor", "password1").id,
        )
    started = time.monotonic()
    hostile = [
        submit_version(
            db, runtime, mallory, zipped(SLOW, f"slow-{i}"), filename="slow.zip", validate=validate
        )
        for i in range(2)
    ]
    mine = submit_version(
        db, runtime, victor, zipped(ORDINARY, "plain"), filename="plain.zip", validate=validate
    )
    waits = {"victor": verdict_after(db, mine, started)}
    waits["mallory (both)"] = max(verdict_after(db, v, started) for v in hostile)
    db.dispose()
    return waits


def first_come_first_served(db: Database, runtime: Runtime) -> Callable[[int, dict], object]:
    pool = FairPool(1, "fifo")
    return lambda version_id, manifest: pool.submit("all", run_validation, db, runtime, version_id)


def main() -> None:
    area = Path(tempfile.mkdtemp(prefix="arena-validation-fairness-"))
    area.chmod(0o755)
    rows = {
        "one thread, first come first served": scenario(area, first_come_first_served),
        "fair pool (2 threads, per user)": scenario(area, EmbeddedValidation),
    }
    print(f"load: {os.getloadavg()}")
    print(f"{'':38} {'victor waits':>13} {'mallory waits':>14}")
    for name, waits in rows.items():
        print(f"{name:38} {waits['victor']:11.1f} s {waits['mallory (both)']:12.1f} s")


if __name__ == "__main__":
    main()
