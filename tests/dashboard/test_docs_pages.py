"""/docs/: the guides of docs/*.md as the site's pages (dashboard/docs.py). The index lists
every guide by reader; a guide renders its tables and code, its headings carry the anchors
the guides' links use, a link between guides lands on the served page and section, a link
to another file of the repository stays text; an unknown name is the site's 404; every
guide a template links exists; a guide is rendered again when its file changes; the
package data ships every guide; on a phone a guide does not scroll sideways."""

from __future__ import annotations

import importlib
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from markupsafe import escape

from arena.config import Settings
from arena.runtime import Runtime
from arena.store import Database
from dashboard import create_app
from dashboard.docs import GUIDES, SHELVES, SiteLinks, rendered
from tests.dashboard.test_api_docs import Page
from tests.dashboard.test_browser import PHONE, browser, page, served  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "dashboard" / "templates"
HREF = re.compile(r'href="([^"]*)"')
guides = importlib.import_module("dashboard.docs")  # the module: `dashboard.docs` is its blueprint


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> FlaskClient:
    folder = tmp_path_factory.mktemp("docs-pages")
    shutil.copy(sqlite_template, folder / "arena.db")
    url = f"sqlite:///{folder / 'arena.db'}"
    app = create_app(Database(url), Runtime(Settings(url, folder / "d", "")), TESTING=True)
    return app.test_client()


def main_of(client: FlaskClient, url: str) -> tuple[str, Page]:
    """The page's <main> (200 required) and its parse, which checks it is well formed."""
    reply = client.get(url)
    assert reply.status_code == 200, url
    html = reply.get_data(as_text=True)
    parsed = Page()
    parsed.feed(html)
    parsed.close()
    assert [tag for tag, _ in parsed.open] == [], url
    assert len(parsed.ids) == len(set(parsed.ids)), url
    return html.split("<main>", 1)[1].split("</main>", 1)[0], parsed


def test_the_index_lists_every_guide_by_reader(client: FlaskClient) -> None:
    assert set(GUIDES) == {path.stem for path in (ROOT / "docs").glob("*.md")}  # none left out
    html, _ = main_of(client, "/docs/")
    for shelf in SHELVES:
        assert f"<h2>{shelf.title}</h2>" in html
    for name in GUIDES:
        title = (ROOT / "docs" / f"{name}.md").read_text().splitlines()[0].removeprefix("# ")
        assert f'<a href="/docs/{name}">{escape(title)}</a>' in html
    header = client.get("/docs/").get_data(as_text=True).split("<main>", 1)[0]
    assert '<a href="/docs/">Docs</a>' in header  # the site's header links the index
    assert client.get("/docs").status_code in (301, 308)  # to /docs/


def test_a_guide_renders_its_table_code_and_heading_anchors(client: FlaskClient) -> None:
    html, _ = main_of(client, "/docs/sdk")
    reply = client.get("/docs/sdk").get_data(as_text=True)
    assert "<title>Writing a bot in Python: the SDK · Callbreak Master</title>" in reply
    table = html.split('<div class="scroll"><table>', 1)[1].split("</table>", 1)[0]
    assert "<th>import</th>" in table and "<td><code>numpy</code></td>" in table
    assert "sqlalchemy" not in table.lower()
    assert '<h3 id="what-a-bot-can-import">What a bot can import' in html
    assert '<a class="anchor" href="#what-a-bot-can-import"' in html
    assert '<h2 id="8-the-sdk-alone">' in html  # GitHub's anchor: a number, no punctuation
    assert '<pre><code class="language-python">from arena.sdk import Bot, serve' in html
    assert "<script" not in html and "`" not in html.split("<pre>", 1)[0]


def test_every_link_between_guides_lands_on_a_served_page_and_section(
    client: FlaskClient,
) -> None:
    pages = {name: main_of(client, f"/docs/{name}") for name in GUIDES}
    checked = 0
    for name, (html, parsed) in pages.items():
        for href in HREF.findall(html):
            assert not re.search(r"\.md(#|$)", href), (name, href)  # rewritten, every one
            assert not href.startswith(".."), (name, href)
            path, _, anchor = href.partition("#")
            if path.startswith("/docs/"):
                target = path.removeprefix("/docs/")
                if not target:
                    continue  # the index
                assert target in pages, (name, href)
                if anchor:
                    assert anchor in pages[target][1].ids, (name, href)
                    checked += 1
            elif not path and anchor:
                assert anchor in parsed.ids, (name, href)
    assert checked > 10
    sdk = pages["sdk"][0]
    assert '<a href="/docs/protocol#the-manifest-bottoml">' in sdk  # protocol.md#the-man...


def test_a_link_to_another_repository_file_keeps_its_text_or_goes_where_it_is_served(
    client: FlaskClient,
) -> None:
    records, _ = main_of(client, "/docs/records")
    assert re.search(
        r'<span class="repo-path" title="README\.md, in the platform[^"]*">Fair', records
    )
    submitting, _ = main_of(client, "/docs/submitting")
    assert '<a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a>' in submitting


def test_the_readmes_way_of_linking_a_guide_is_understood_too() -> None:
    links = SiteLinks("/docs/")
    assert links.href("docs/rules.md") == "/docs/rules"
    assert links.href("rules.md#presets") == "/docs/rules#presets"
    assert links.href("../sample_bots/js_lowcard/") is None
    assert links.href("https://example.org/x.md") == "https://example.org/x.md"
    assert links.href("#seeds") == "#seeds"


@pytest.mark.parametrize("url", ["/docs/nope", "/docs/sdk.md", "/docs/screenshots", "/docs/.."])
def test_an_unknown_guide_is_the_sites_404(client: FlaskClient, url: str) -> None:
    reply = client.get(url)
    assert reply.status_code == 404
    assert "<h1>404</h1>" in reply.get_data(as_text=True)  # the site's error page


def test_every_guide_a_template_links_exists_and_so_does_its_section(
    client: FlaskClient,
) -> None:
    linked = []
    for template in sorted(TEMPLATES.glob("*.html")):
        text = template.read_text()
        assert not re.search(r"docs/\w+\.md", text), template.name  # a link, not a path
        pattern = r"url_for\('docs\.page', name='(\w+)'(?:, _anchor='([\w-]+)')?\)"
        linked += [(template.name, *found) for found in re.findall(pattern, text)]
    assert {"api_docs.html", "_viewer.html", "runtimes.html", "upload.html"} <= {
        t for t, _, _ in linked
    }
    for template, name, anchor in linked:
        assert name in GUIDES, (template, name)
        _, parsed = main_of(client, f"/docs/{name}")
        assert not anchor or anchor in parsed.ids, (template, name, anchor)


def test_a_guide_is_rendered_again_when_its_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(ROOT / "docs" / "rules.md", tmp_path / "rules.md")
    monkeypatch.setattr(guides, "DOCS_DIR", tmp_path)
    links = SiteLinks("/docs/")
    first = rendered("rules", links)
    assert rendered("rules", links) is first  # from the cache
    path = tmp_path / "rules.md"
    path.write_text(path.read_text().replace("# Callbreak rules", "# Callbreak's rules", 1))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    again = rendered("rules", links)
    assert again.title.startswith("Callbreak's rules") and again is not first


def test_the_package_data_ships_every_guide() -> None:
    """An installed dashboard reads the guides from its own package: pyproject's package data
    names them through dashboard/docs_source, the link to docs/ (the Docker image's
    `pip install /app` copies them in)."""
    assert guides.DOCS_DIR.resolve() == ROOT / "docs"
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["dashboard"]
    shipped = {p.resolve() for pattern in patterns for p in (ROOT / "dashboard").glob(pattern)}
    assert {ROOT / "docs" / f"{name}.md" for name in GUIDES} <= shipped
    dockerignore = (ROOT / ".dockerignore").read_text().split()
    assert not any(line.strip("/*") in ("docs", "dashboard") for line in dockerignore)


def test_a_guide_on_a_phone_scrolls_its_wide_tables_not_the_page(page, served) -> None:  # noqa: F811
    base, _db, _runtime = served
    page.set_viewport_size(PHONE)
    page.goto(f"{base}/docs/sdk#what-a-bot-can-import")
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= PHONE["width"]
    box = page.locator("#what-a-bot-can-import").bounding_box()
    assert box is not None and 0 <= box["y"] < PHONE["height"]  # the anchor took us there
    boxes = page.locator("article.doc pre, article.doc .scroll")
    assert boxes.count() > 5
    for i in range(boxes.count()):
        box = boxes.nth(i).bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"], i
    scrolling = (
        "[...document.querySelectorAll('article.doc pre')].some(e => e.scrollWidth > e.clientWidth)"
    )
    assert page.evaluate(scrolling)  # a long line scrolls in its own box
    page.get_by_role("link", name="protocol.md", exact=True).first.click()
    page.wait_for_url(f"{base}/docs/protocol#the-manifest-bottoml")
