"""A Player that passes everything to another one; tests override ``decide``."""

from __future__ import annotations


class Delegating:
    def __init__(self, inner) -> None:
        self.inner, self.name = inner, inner.name

    def start(self, info, timeout_s):
        self.inner.start(info, timeout_s)

    def decide(self, request, timeout_s):
        return self.inner.decide(request, timeout_s)

    def notify(self, event):
        self.inner.notify(event)

    def cpu_seconds(self):
        return None

    @property
    def sandbox(self) -> str:
        return self.inner.sandbox

    def close(self):
        self.inner.close()
