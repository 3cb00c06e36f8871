"""The dashboard's upload API from a terminal: the API token, one upload with progress, the
verdict and the validation log. Plain ``urllib`` (no extra dependency); every failure is an
``ApiError`` with one line saying what happened and what to do."""

from __future__ import annotations

import http.client
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path

TIMEOUT_S = 60.0
PROBE_S = 10.0  # for the answer to an upload's headers alone


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
        path = f"/api/v1/bots/{quoted}/versions"
        try:
            return self._call("POST", path, _Progress(data, report), headers)
        except _Closed:
            raise self._why_closed(path, headers) from None

    def status(self, version_id: int) -> dict:
        return self._call("GET", f"/api/v1/versions/{version_id}")

    def logs(self, version_id: int) -> dict:
        """``log`` (the validation match's) and ``build_log`` (servers before builds: none)."""
        return self._call("GET", f"/api/v1/versions/{version_id}/log")

    def get(self, path: str) -> dict:
        return self._call("GET", path)

    def post(self, path: str, data: dict) -> dict:
        """POST ``data`` as JSON; the reply's JSON."""
        body = json.dumps(data).encode()
        return self._call("POST", path, body, {"Content-Type": "application/json"})

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
                raise _Closed(self.server) from None
            raise ApiError(
                f"cannot reach the server at {self.server} ({reason}); is it running?"
            ) from None
        except (ConnectionResetError, BrokenPipeError):
            raise _Closed(self.server) from None
        except TimeoutError:
            raise ApiError(
                f"the server at {self.server} did not answer in {TIMEOUT_S:.0f} s"
            ) from None
        except json.JSONDecodeError:
            raise ApiError(f"{url} did not answer JSON: is --server the arena dashboard?") from None

    def _why_closed(self, path: str, headers: dict) -> ApiError:
        """A server that closes the connection while the body is still being sent loses its
        answer (the dashboard drains a refused body up to 1 GiB, an older one or another
        proxy may not): ask again with the headers alone (nothing is stored, no hourly
        slot is used) to read it."""
        parts = urllib.parse.urlsplit(self.server)
        secure = parts.scheme == "https"
        kind = http.client.HTTPSConnection if secure else http.client.HTTPConnection
        conn = kind(parts.netloc, timeout=PROBE_S)
        try:
            conn.putrequest("POST", parts.path + path)
            for key, value in {**headers, "Authorization": f"Bearer {self.token}"}.items():
                conn.putheader(key, value)
            conn.endheaders()
            reply = conn.getresponse()
            message = json.loads(reply.read())["error"]
        except (OSError, ValueError, KeyError, TypeError, http.client.HTTPException):
            return _Closed(self.server)
        finally:
            conn.close()
        return _refused(reply.status, message)


def _refusal(exc: urllib.error.HTTPError) -> ApiError:
    try:
        message = json.loads(exc.read())["error"]
    except (ValueError, KeyError, TypeError, OSError):
        message = f"{exc.code} {exc.reason}"
    return _refused(exc.code, message)


def _refused(status: int, message: str) -> ApiError:
    if status == 401:
        message += "; check ARENA_TOKEN (or the token file)"
    return ApiError(f"the server refused: {message}", status)


class _Closed(ApiError):
    """The server closed the connection before answering."""

    def __init__(self, server: str) -> None:
        super().__init__(
            f"the server at {server} closed the connection during the upload "
            "(is the archive over its upload limit?)"
        )


def _header_safe(filename: str) -> str:
    return "".join(c for c in filename if c.isprintable() and c not in '"\\')[:100] or "bot.zip"
