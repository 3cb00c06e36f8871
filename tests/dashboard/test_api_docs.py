"""/api/v1/docs: the API's reference page, rendered on the server from openapi.json, for
anybody: every path and method with its summary, parameters, request body, responses and
whether it needs a token, then every schema; its own links all land on the page."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from markupsafe import escape

from dashboard import create_app
from dashboard.api import SPEC
from dashboard.api_docs import METHODS

VOID = {"br", "hr", "img", "input", "link", "meta", "wbr", "col", "source", "area", "base"}


class Page(HTMLParser):
    """The page's ids, fragment links and sections (the text of each element with an id),
    checking that every element is closed in order."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.fragments: list[str] = []
        self.open: list[tuple[str, str | None]] = []
        self.sections: dict[str, list[str]] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
            self.sections[attrs["id"]] = []
        if tag == "a" and (attrs.get("href") or "").startswith("#"):
            self.fragments.append(attrs["href"][1:])
        if tag not in VOID:
            self.open.append((tag, attrs.get("id")))

    def handle_endtag(self, tag):
        assert self.open and self.open[-1][0] == tag, (tag, self.open[-3:])
        self.open.pop()

    def handle_data(self, data):
        for _, ident in self.open:
            if ident is not None:
                self.sections[ident].append(data)

    def text(self, ident: str) -> str:
        return " ".join("".join(self.sections[ident]).split())


def words(text: str) -> str:
    """The document's text as the page reads (its `code` spans set as code)."""
    return " ".join(text.replace("`", "").split())


def _operations():
    for path, item in SPEC["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> tuple[str, Page]:
    """The page as a visitor gets it (no session, no token), and its parse."""
    from arena.config import Settings
    from arena.runtime import Runtime
    from arena.store import Database, upgrade

    folder = tmp_path_factory.mktemp("docs")
    url = f"sqlite:///{folder / 'arena.db'}"
    upgrade(url)
    app = create_app(Database(url), Runtime(Settings(url, folder / "d", "")), TESTING=True)
    reply = app.test_client().get("/api/v1/docs")
    assert reply.status_code == 200 and reply.mimetype == "text/html"
    html = reply.get_data(as_text=True)
    parsed = Page()
    parsed.feed(html)
    parsed.close()
    return html, parsed


def test_the_page_is_well_formed_and_its_links_land_on_it(page):
    html, parsed = page
    assert html.lstrip().lower().startswith("<!doctype html>")
    assert [tag for tag, _ in parsed.open] == []  # every element closed
    assert len(parsed.ids) == len(set(parsed.ids))  # no id twice
    assert set(parsed.fragments) <= set(parsed.ids)
    main = html.split("<main>", 1)[1].split("</main>", 1)[0]
    assert "<script" not in main  # read without a script of its own
    assert not re.search(r'(src|href)="(https?:)?//', html)  # nothing fetched from elsewhere
    assert "Log in" in html  # as a visitor sees it


def test_every_operation_is_there_with_what_the_document_says(page):
    html, parsed = page
    anchors = [a for a in parsed.ids if a.split("-", 1)[0] in METHODS]
    assert len(anchors) == len(list(_operations()))
    for path in SPEC["paths"]:
        assert f">{escape(path)}</code>" in html, path
    sections = {parsed.text(a): a for a in anchors}
    for path, method, op in _operations():
        found = [a for text, a in sections.items() if text.startswith(f"{method.upper()} {path} ")]
        assert len(found) == 1, (method, path)
        text = parsed.text(found[0])
        assert words(op["summary"]) in text
        for param in op.get("parameters", []):
            assert param["name"] in text and words(param.get("description", "")) in text
        for status, answer in op["responses"].items():
            assert f"{status} {words(answer['description'])}" in text
            for content in answer.get("content", {}).values():
                ref = content["schema"].get("$ref", "")
                assert ref.rsplit("/", 1)[-1] in text  # the body's schema, by name
        if "requestBody" in op:
            assert "Request body" in text
            assert all(media in text for media in op["requestBody"]["content"])
        needs_token = bool(op.get("security"))
        assert ("Needs an API token" in text) == needs_token, (method, path)
        assert ("No token needed" in text) == (not needs_token), (method, path)


def test_every_schema_is_described_with_its_fields(page):
    _, parsed = page
    for name, schema in SPEC["components"]["schemas"].items():
        text = parsed.text(f"schema-{name}")
        assert all(field in text for field in schema.get("properties", {})), name


def test_the_documents_code_spans_are_code_and_its_words_are_escaped(page):
    html, _ = page
    assert "<code>Authorization: Bearer &lt;token&gt;</code>" in html  # from info.description
    assert "`" not in html.split("<main>", 1)[1]
