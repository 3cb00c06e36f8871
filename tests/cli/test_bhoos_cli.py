"""``arena bot add`` validating a Bhoos HTTP bot, and ``arena play`` with a running Bhoos
bot named by its URL (not sandboxed: the author's own server), here a small bot on an
ephemeral loopback port."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from arena.game import BHOOS, legal_plays
from arena.players.bhoos.wire import card_in, card_out
from tests.cli.test_cli import SAMPLE_BOTS, ok, one_line_error, table_rows
from tests.support import need

HOSTILE_BOTS = Path(__file__).resolve().parents[1] / "hostile_bots"


class _LowCard(BaseHTTPRequestHandler):
    """Calls 2 and plays its first legal card; remembers the paths it was asked."""

    protocol_version = "HTTP/1.1"
    paths: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.paths.append(self.path)
        self._answer("hello")

    def do_POST(self) -> None:
        self.paths.append(self.path)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path.endswith("/bid"):
            return self._answer(2)
        hand = [card_in(c) for c in body["cards"]]
        legal = legal_plays(hand, [card_in(c) for c in body["played"]], BHOOS)
        self._answer(card_out(legal[0]))

    def _answer(self, value: object) -> None:
        data = json.dumps({"value": value}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def remote_bot() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _LowCard)
    _LowCard.paths = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/bot"
    server.shutdown()
    server.server_close()


def test_play_with_a_remote_bhoos_bot_by_url(arena, remote_bot):
    bots = (remote_bot, "random", "heuristic", "random")
    out = ok(arena("play", *bots, "--rules", "bhoos", "--deals", "2", "--games", "2", "--quiet"))
    [row] = table_rows(out, (remote_bot,)).values()
    cells = [cell.strip() for cell in row.split("│")[1:-1]]  # #, bot, points, calls, faults, ...
    assert cells[4:] == ["0", ""]  # played it all, no fault
    paths = _LowCard.paths
    assert paths[0] == "/bot/hi"
    assert paths.count("/bot/bid") == 2 * 2 and paths.count("/bot/play") == 2 * 2 * 13


def test_play_refuses_a_bad_bot_url_or_other_rules_in_one_line(arena, remote_bot):
    one_line_error(
        arena("play", SAMPLE_BOTS / "bhoos_lowcard", "random", "random", "random"),
        "bhoos-lowcard is a Bhoos HTTP bot: it plays the bhoos rules only (--rules bhoos)",
    )
    one_line_error(
        arena("play", "random", remote_bot, "random", "random", "--rules", "pagat"),
        f"{remote_bot} is a Bhoos HTTP bot",
    )
    assert _LowCard.paths == []  # refused before anything was started or asked
    one_line_error(
        arena("play", "http://127.0.0.1:7000/?x=1", "random", "random", "random"),
        "http://127.0.0.1:7000/?x=1: expected http://host:port",
    )


def test_bot_add_validates_a_bhoos_bot_and_rejects_a_faulty_one(arena, sandbox):
    need(shutil.which("node") is not None, "node is not installed (the sample is a Node bot)")
    out = ok(arena("bot", "add", SAMPLE_BOTS / "bhoos_lowcard"))
    assert "bhoos-lowcard@1.0.0 (id 1) is valid" in out
    error = one_line_error(arena("bot", "add", HOSTILE_BOTS / "bhoos_unknown_card"))
    assert error.startswith("Error: hostile-bhoos-unknown-card@1.0.0 rejected: validation match: ")
    assert "malformed: unknown card 'AS'" in error
