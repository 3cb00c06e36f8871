"""The dashboard's upload API from a terminal: the API token, one upload with progress, the
verdict and the validation log. Plain ``urllib`` (no extra dependency); every failure is an
``ApiError`` with one line saying what happened and what to do."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path

TIMEOUT_S = 60.0


class ApiError(Exception):
    """A request that failed; ``status`` is the HTTP status when the server answered."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def token_file(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/arena/token`` (default ``~/.config/arena/token``)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "arena" / "token"


def find_token(env: Mapping[str, str] | None = None) -> str:
    """The API token from ``ARENA_TOKEN``, else from the token file."""
    env = os.environ if env is None else env
    if token := env.get("ARENA_TOKEN", "").strip():
        return token
    path = token_file(env)
    try:
        token = path.read_text().strip()
    except OSError:
        token = ""
    if not token:
        raise ApiError(
            "no API token: create one on your account page, then set ARENA_TOKEN "
            f"or save it in {path}"
        )
    return token


class _Progress:
    """A body that reports how many bytes http.client has read from it."""

    def __init__(self, data: bytes, report: Callable[[int], None]) -> None:
        self.data, self.sent, self.report = data, 0, report

    def read(self, size: int = -1) -> bytes:
        size = len(self.data) - self.sent if size < 0 else size
        chunk = self.data[self.sent : self.sent + size]
        self.sent += len(chunk)
        self.report(self.sent)
        return chunk


class Client:
    def __init__(self, server: str, token: str | None = None) -> None:
        self.server = server.rstrip("/")
        if not self.server.startswith(("http://", "https://")):
            raise ApiError(f"--server {server!r}: expected a URL such as http://host:8000")
        self.token = token

    def upload(
        self, name: str, data: bytes, filename: str, report: Callable[[int], None] = print
    ) -> dict:
        """POST the zip as a new version of ``name``; the server's 201 reply."""
        quoted = urllib.parse.quote(name, safe="")
        headers = {
            "Content-Type": "application/zip",
            "Content-Length": str(len(data)),
            "Content-Disposition": f'attachment; filename="{_header_safe(filename)}"',
        }
        body = _Progress(data, report)
        return self._call("POST", f"/api/v1/bots/{quoted}/versions", body, headers)

    def status(self, version_id: int) -> dict:
        return self._call("GET", f"/api/v1/versions/{version_id}")

    def log(self, version_id: int) -> str:
        return self._call("GET", f"/api/v1/versions/{version_id}/log")["log"]

    def _call(self, method: str, path: str, body=None, headers: dict | None = None) -> dict:
        url = self.server + path
        request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as reply:
                return json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            raise _refusal(exc) from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, ConnectionResetError | BrokenPipeError):
                raise _closed(self.server) from None
            raise ApiError(
                f"cannot reach the server at {self.server} ({reason}); is it running?"
            ) from None
        except (ConnectionResetError, BrokenPipeError):
            raise _closed(self.server) from None
        except TimeoutError:
            raise ApiError(
                f"the server at {self.server} did not answer in {TIMEOUT_S:.0f} s"
            ) from None
        except json.JSONDecodeError:
            raise ApiError(f"{url} did not answer JSON: is --server the arena dashboard?") from None


def _refusal(exc: urllib.error.HTTPError) -> ApiError:
    try:
        message = json.loads(exc.read())["error"]
    except (ValueError, KeyError, TypeError, OSError):
        message = f"{exc.code} {exc.reason}"
    if exc.code == 401:
        message += "; check ARENA_TOKEN (or the token file)"
    return ApiError(f"the server refused: {message}", exc.code)


def _closed(server: str) -> ApiError:
    return ApiError(
        f"the server at {server} closed the connection during the upload "
        "(is the archive over its upload limit?)"
    )


def _header_safe(filename: str) -> str:
    return "".join(c for c in filename if c.isprintable() and c not in '"\\')[:100] or "bot.zip"
