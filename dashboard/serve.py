"""Serve the app under gunicorn, the production server, from Python (``arena dashboard``).

Each worker builds its own app and database engine after the fork (engines are not
fork-safe), exactly as ``gunicorn 'dashboard:create_app()'`` does.
"""

from __future__ import annotations

from gunicorn.app.base import BaseApplication

from dashboard import create_app


class Server(BaseApplication):
    def __init__(self, bind: str, workers: int, threads: int) -> None:
        self.options = {"bind": bind, "workers": workers, "threads": threads, "accesslog": "-"}
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        return create_app()


def serve(host: str, port: int, workers: int = 2, threads: int = 4) -> None:
    """Blocks until stopped (Ctrl-C)."""
    Server(f"{host}:{port}", workers, threads).run()
