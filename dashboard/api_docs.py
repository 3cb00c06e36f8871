"""The API's reference page (/api/v1/docs), read from the openapi.json the API serves, so
that the document stays the one source; rendered on the server, with no script."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

METHODS = ("get", "post", "put", "patch", "delete")
_CODE = re.compile(r"`([^`]+)`")
_PREFIX = "/api/v1/"


def prose(text: str | None) -> Markup:
    """The document's text, escaped, with its `code` spans set as code."""
    return Markup(_CODE.sub(r"<code>\1</code>", str(escape(text or ""))))


def ref_name(schema: dict[str, Any]) -> str | None:
    """The component a ``$ref`` schema names (None: the schema is written out)."""
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[1] if ref else None


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    spec: dict[str, Any]

    @property
    def anchor(self) -> str:
        """The id of its section, e.g. ``get-matches-match_id``."""
        rest = re.sub(r"[^A-Za-z0-9_]+", "-", self.path.removeprefix(_PREFIX)).strip("-")
        return f"{self.method}-{rest}"

    @property
    def token(self) -> bool:
        """Whether it needs an API token (its ``security`` names a scheme)."""
        return any(self.spec.get("security", []))


@dataclass(frozen=True)
class Group:
    """The operations on one resource (the path's first part after /api/v1/)."""

    name: str
    operations: list[Operation]


def groups(spec: dict[str, Any]) -> list[Group]:
    """Every operation of ``spec``, grouped by resource in the document's order."""
    found: dict[str, list[Operation]] = {}
    for path, item in spec["paths"].items():
        name = path.removeprefix(_PREFIX).split("/", 1)[0]
        ops = [Operation(m, path, item[m]) for m in METHODS if m in item]
        found.setdefault(name, []).extend(ops)
    return [Group(name, ops) for name, ops in found.items()]
