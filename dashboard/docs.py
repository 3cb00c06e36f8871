"""The platform's guides (docs/*.md) as pages of the site: ``/docs/`` lists them by reader,
``/docs/<name>`` shows one, rendered by markdown-it-py (CommonMark with tables).

The guides are written to be read in the repository, so a link between them (``sdk.md#x``,
``docs/rules.md``) becomes the site's page of that guide; a link to another file of the
repository, which the site does not serve, is kept as its text. Headings get the anchors
GitHub gives them (``#1-how-a-bot-is-started``), which the guides' links use. A page is
rendered once per file mtime. ``docs_source`` beside this module links to the repository's
``docs/`` and is packaged with the dashboard (pyproject's package data), so an installed
dashboard has the guides too."""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint, abort, render_template, url_for
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup, escape

DOCS_DIR = Path(__file__).with_name("docs_source")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Guide:
    name: str  # docs/<name>.md
    summary: str


@dataclass(frozen=True)
class Shelf:
    """The guides for one kind of reader."""

    title: str
    guides: tuple[Guide, ...]


SHELVES = (
    Shelf(
        "Writing and entering a bot",
        (
            Guide("rules", "Callbreak as the referee enforces it: calls, tricks, points, presets."),
            Guide("sdk", "A Python bot from an empty folder to a tournament; what it can import."),
            Guide("protocol", "The gRPC service every bot serves, bot.toml, and stdio-json."),
            Guide("languages", "Node and compiled bots: runtimes, build steps, starter kits."),
            Guide("bhoos", "A bot of the Bhoos Smart Bots contest, entered unchanged."),
            Guide("submitting", "Uploading versions from a terminal or the API; validation."),
            Guide("accounts", "Accounts, invite codes, API tokens; who may do what."),
            Guide("sandbox", "What a bot's processes may see and do, and its limits."),
        ),
    ),
    Shelf(
        "Results and fair play",
        (
            Guide("ladder", "The standing ladder: who plays, which matches, the ratings."),
            Guide("comparisons", "Is a new version better? Comparisons, promotion, rollback."),
            Guide("records", "Game records, their seeds and the deck shuffle."),
            Guide("export", "Every finished match, or a bot's decisions, as JSON lines."),
            Guide("analysis", "The master's verdict on every decision of a finished match."),
            Guide("audit", "The fair-play audit: memory across rotations and collusion."),
        ),
    ),
    Shelf(
        "Running the platform",
        (
            Guide("deploy", "One core host and N worker hosts with docker-compose."),
            Guide("architecture", "The layers, who owns what, where a change goes."),
            Guide("decisions", "Design choices that differ from the starting design, and why."),
        ),
    ),
)
GUIDES = {guide.name: guide for shelf in SHELVES for guide in shelf.guides}
SHELF_OF = {guide.name: shelf for shelf in SHELVES for guide in shelf.guides}


@dataclass(frozen=True)
class SiteLinks:
    """Where the site serves what a guide links to: the guides' base URL, and other files of
    the repository it serves (repository path -> URL)."""

    docs: str
    files: tuple[tuple[str, str], ...] = ()

    def href(self, target: str) -> str | None:
        """The site's URL for a guide's link (None: a file of the repository not served)."""
        if _SCHEME.match(target) or target.startswith(("/", "#")):
            return target
        path, _, fragment = target.partition("#")
        anchor = f"#{fragment}" if fragment else ""
        served = dict(self.files)
        # relative to docs/ as the guides write it, or to the root as the README does
        for where in (posixpath.normpath(posixpath.join("docs", path)), posixpath.normpath(path)):
            head, name = posixpath.split(where)
            if head == "docs" and name.endswith(".md") and name[:-3] in GUIDES:
                return self.docs + name[:-3] + anchor
            if where in served:
                return served[where] + anchor
        return None

    def repository_path(self, target: str) -> str:
        return posixpath.normpath(posixpath.join("docs", target.partition("#")[0]))


@dataclass(frozen=True)
class Rendered:
    title: str
    html: Markup


def rendered(name: str, links: SiteLinks) -> Rendered:
    """The guide ``name`` as HTML, rendered again only when its file changes."""
    path = DOCS_DIR / f"{name}.md"
    return _render(path, path.stat().st_mtime_ns, links)


def slug(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


@functools.lru_cache(maxsize=4 * len(GUIDES))
def _render(path: Path, mtime_ns: int, links: SiteLinks) -> Rendered:
    tokens = _MARKDOWN.parse(path.read_text(encoding="utf-8"))
    title: str | None = None
    seen: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            words = _plain(tokens[i + 1].children or [])
            if token.tag == "h1" and title is None:
                title = words
            anchor = slug(words)
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            token.attrSet("id", f"{anchor}-{count}" if count else anchor)
        elif token.type == "inline":
            _rewrite_links(token.children or [], links)
    html = _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, {})
    return Rendered(title or path.stem, Markup(html))  # markdown-it escapes; raw HTML is off


def _plain(children: Sequence[Token]) -> str:
    return "".join(c.content for c in children if c.type in ("text", "code_inline"))


def _rewrite_links(children: Sequence[Token], links: SiteLinks) -> None:
    """Each link to the site's page of its target; one the site does not serve becomes its
    text, marked with the repository path it names."""
    unserved = False
    for token in children:
        if token.type == "link_open":
            target = str(token.attrGet("href") or "")
            href = links.href(target)
            unserved = href is None
            if href is None:
                where = links.repository_path(target)
                title = f"{where}, in the platform's repository"
                token.tag, token.attrs = "span", {"class": "repo-path", "title": title}
            else:
                token.attrSet("href", href)
        elif token.type == "link_close" and unserved:
            token.tag, unserved = "span", False


def _table_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """A table scrolls in its own box on a narrow screen, as the site's other tables do."""
    return '<div class="scroll">' + self.renderToken(tokens, idx, options, env)


def _table_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>"


def _heading_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """A section's heading ends with a link to itself, to copy (the page's title needs none)."""
    close = self.renderToken(tokens, idx, options, env)
    if tokens[idx].tag == "h1":
        return close
    anchor = escape(tokens[idx - 2].attrGet("id") or "")
    return f'<a class="anchor" href="#{anchor}" aria-label="link to this section">#</a>{close}'


_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
_MARKDOWN.add_render_rule("table_open", _table_open)
_MARKDOWN.add_render_rule("table_close", _table_close)
_MARKDOWN.add_render_rule("heading_close", _heading_close)


docs = Blueprint("docs", __name__)


def _site_links() -> SiteLinks:
    return SiteLinks(url_for("docs.index"), (("dashboard/openapi.json", url_for("api.openapi")),))


@docs.get("/docs/")
def index():
    links = _site_links()
    titles = {name: rendered(name, links).title for name in GUIDES}
    return render_template("docs_index.html", shelves=SHELVES, titles=titles)


@docs.get("/docs/<name>")
def page(name: str):
    if name not in GUIDES:
        abort(404, f"no such doc: {name}")
    doc = rendered(name, _site_links())
    return render_template("docs.html", doc=doc, shelf=SHELF_OF[name])
