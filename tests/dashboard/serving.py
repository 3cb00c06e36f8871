"""An app served on real sockets, as ``arena dashboard`` serves it (waitress with the
platform's deadlines, ``dashboard.serve.make_server``), on a free port of 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from dashboard.serve import Deadlines, make_server


@contextmanager
def serving(app: Callable, deadlines: Deadlines | None = None, threads: int = 2) -> Iterator[int]:
    """The port ``app`` is served on until the block ends."""
    server = make_server(app, "127.0.0.1", 0, threads, deadlines)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield server.effective_port
    finally:
        server.task_dispatcher.shutdown()  # first: a task ending wakes the loop (its trigger)
        server.close()  # the loop ends when its listening socket is gone
