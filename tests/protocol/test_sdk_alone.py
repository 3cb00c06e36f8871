"""The SDK installs alone (sdk/pyproject.toml): a fresh virtual environment, without the
system's packages, gets ``arena.sdk`` with grpcio and protobuf and nothing of the platform
(no SQLAlchemy, Flask, Celery, numba, numpy), and a bot served from it answers a referee's
``Hello`` and a decision over the real gRPC stream."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

from tests.support import need

ROOT = Path(__file__).resolve().parents[2]
PLATFORM_ONLY = ("sqlalchemy", "flask", "celery", "numba", "numpy", "arena.players.grpc_player")
# pip's words when the index cannot give it a package: the machine's problem, not the SDK's
UNREACHABLE = (
    "No matching distribution found",
    "Could not find a version that satisfies",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "Max retries exceeded",
)

BOT = """
import importlib.metadata, importlib.util, json, sys, threading

import grpc

import arena.sdk
from arena.game import PAGAT, Deal
from arena.players.wire import PROTOCOL, request_to_proto, rules_to_proto
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.sdk import Bot, serve


class Lowest(Bot):
    name = "lowest"

    def call(self, obs):
        return obs.legal_calls[0]

    def play(self, obs):
        return obs.legal_cards[0]


address = "unix:" + sys.argv[1]
deal = Deal(PAGAT, seed=1)
request = request_to_proto(1, "call", deal.observation(deal.seat_to_act()), 0, 10_000, 1_000)
answers = []


def referee():
    with grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=60)
        hello = pb.Hello(protocol=PROTOCOL, match_id="m1", rules=rules_to_proto(PAGAT))
        stream = [pb.RefereeMessage(hello=hello), request]
        answers.extend(pb_grpc.BotStub(channel).Play(iter(stream)))


thread = threading.Thread(target=referee)
thread.start()
serve(Lowest(), address)  # until the referee's stream ends
thread.join(60)
print(json.dumps({
    "sdk": arena.sdk.__file__,
    "hello": answers[0].hello.name,
    "call": answers[1].decision.call,
    "lowest_call": PAGAT.min_call,
    "requires": importlib.metadata.requires("callbreak-sdk"),
    "present": [m for m in sys.argv[2:] if importlib.util.find_spec(m) is not None],
}))
"""


def _checkout(tmp_path: Path) -> Path:
    """sdk/ and arena/ as a checkout holds them (the build reads ../arena): a copy, so the
    build's own files (build/, *.egg-info) land in tmp_path, not in the repository."""
    checkout = tmp_path / "checkout"
    junk = shutil.ignore_patterns("__pycache__", "build", "*.egg-info")
    for folder in ("sdk", "arena"):
        shutil.copytree(ROOT / folder, checkout / folder, ignore=junk)
    return checkout


def _clean_env() -> dict[str, str]:
    """This environment without what would let the platform in (PYTHONPATH and the like);
    pip's own settings (index, wheels directory) stay."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    return env | {"PYTHONNOUSERSITE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def test_the_sdk_installs_and_serves_without_the_platform(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(env_dir)
    python = str(env_dir / "bin" / "python")
    env = _clean_env()
    sdk = _checkout(tmp_path) / "sdk"
    pip = [python, "-m", "pip", "install", "--no-input", str(sdk)]
    installed = subprocess.run(pip, capture_output=True, text=True, env=env, timeout=900)
    output = installed.stdout + installed.stderr
    if installed.returncode != 0 and any(words in output for words in UNREACHABLE):
        need(False, f"the package index cannot give the SDK's dependencies: {output[-400:]}")
    assert installed.returncode == 0, output[-3000:]

    script = tmp_path / "bot.py"
    script.write_text(BOT)
    socket = tmp_path / "bot.sock"
    # -I: no PYTHON* variables, no user site, not the current directory on sys.path
    ran = subprocess.run(
        [python, "-I", str(script), str(socket), *PLATFORM_ONLY],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=180,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    seen = json.loads(ran.stdout.splitlines()[-1])
    assert Path(seen["sdk"]).is_relative_to(env_dir)  # the installed copy, not the checkout
    assert seen["hello"] == "lowest"
    assert seen["call"] == seen["lowest_call"]
    assert sorted(re.match(r"[\w.-]+", r)[0] for r in seen["requires"]) == ["grpcio", "protobuf"]
    assert seen["present"] == []
