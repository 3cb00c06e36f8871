"""The README and docs/ are checked against the code: every ``arena`` command they show names
a real command with real options (and its ``--help`` runs), every link resolves inside the
repository (anchors included), the Python examples run, and the SDK guide's walkthrough is
played for real, from its own ``bot.toml`` and ``bot.py`` to a tournament, with the bot in
the sandbox."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.game import BHOOS, PAGAT, Deal, parse_card, score_tenths
from arena.game.tricks import legal_plays

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
INLINE_ARENA = re.compile(r"`(arena [^`]+)`")


def fences(doc: Path, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(doc.read_text()) if lang == language]


def shell_commands(body: str) -> list[str]:
    """The ``arena`` commands of a shell block: continuations joined, comments dropped,
    ``a && b`` split."""
    joined = re.sub(r"\\\n\s*|\n\s+(?=\[)", " ", body)  # `\` or an indented [option] line
    commands = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        text = " ".join(shlex.quote(w) for w in words)
        commands += [c.strip() for c in text.split("&&") if c.strip().startswith("arena ")]
    return commands


def documented_commands() -> list[tuple[str, str]]:
    """(doc name, command) for every ``arena`` command in a shell block or inline code."""
    found = []
    for doc in DOCS:
        for body in fences(doc, "sh"):
            found += [(doc.name, c) for c in shell_commands(body)]
        for inline in INLINE_ARENA.findall(FENCE.sub("", doc.read_text())):
            found.append((doc.name, inline))
    return found


def resolve(words: list[str]) -> tuple[list[str], click.Command]:
    """The command path the words name (``["tournament", "create"]``) and its command."""
    command: click.Command = main
    path: list[str] = []
    for word in words[1:]:
        if not isinstance(command, click.Group) or word not in command.commands:
            break
        command = command.commands[word]
        path.append(word)
    return path, command


def option_names(command: click.Command) -> set[str]:
    names = {"--help", "-h"}
    for param in command.params:
        names.update(getattr(param, "opts", []))
        names.update(getattr(param, "secondary_opts", []))
    return names


COMMANDS = documented_commands()


def test_the_docs_show_commands():
    assert len(COMMANDS) > 30  # the parser found them (README, sdk.md, records.md, ...)
    docs = {doc for doc, _ in COMMANDS}
    assert {"README.md", "sdk.md"} <= docs


@pytest.mark.parametrize(("doc", "command"), COMMANDS, ids=[f"{d}: {c}" for d, c in COMMANDS])
def test_each_documented_command_and_option_exists(doc, command):
    words = shlex.split(command)
    path, found = resolve(words)
    assert path, f"{doc}: `{command}` names no arena command"
    leaf = words[len(path) + 1 :]
    if isinstance(found, click.Group):  # `arena replay` alone, or a sub-command missing
        assert not leaf or leaf[0].startswith("-"), f"{doc}: `{command}`: no such sub-command"
    known = option_names(found)
    for word in leaf:
        option = re.match(r"^\[?(--?[A-Za-z][\w-]*)", word)
        if option and not re.fullmatch(r"-+", word):
            assert option.group(1) in known, f"{doc}: `{command}`: {option.group(1)} unknown"
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output


def _links() -> list[tuple[Path, str]]:
    return [(doc, a or b) for doc in DOCS for a, b in LINK.findall(doc.read_text())]


def _anchors(doc: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", FENCE.sub("", doc.read_text()), re.M):
        text = re.sub(r"[^\w\- ]", "", heading.lower())
        anchors.add(text.replace(" ", "-"))
    return anchors


def test_every_doc_link_resolves_inside_the_repository():
    links = _links()
    assert len(links) > 20
    for doc, target in links:
        assert not re.match(r"^[a-z]+:", target), f"{doc.name}: {target} leaves the repository"
        path, _, anchor = target.partition("#")
        resolved = (doc.parent / path).resolve() if path else doc
        assert resolved.is_relative_to(ROOT), f"{doc.name}: {target} leaves the repository"
        assert resolved.exists(), f"{doc.name}: {target} does not exist"
        if anchor:
            assert anchor in _anchors(resolved), f"{doc.name}: {target}: no such heading"


def test_the_rules_and_sdk_are_linked_from_the_readme_and_the_protocol():
    readme, protocol = (ROOT / "README.md").read_text(), (ROOT / "docs/protocol.md").read_text()
    assert "(docs/rules.md)" in readme and "(docs/sdk.md)" in readme
    assert "(rules.md)" in protocol and "(sdk.md)" in protocol
    assert "shared/" not in readme + protocol


@pytest.mark.parametrize("doc", ["sdk.md", "rules.md"])
def test_the_python_examples_run(doc):
    for body in fences(ROOT / "docs" / doc, "python"):
        exec(compile(body, doc, "exec"), {"__name__": "docs_example"})


# Commands without placeholders that would start servers, install packages or run for
# minutes: their --help is run above, not they.
LONG_RUNNING = {"setup", "demo", "dashboard", "worker", "beat"}


def test_the_readmes_concrete_commands_run(home, sandbox, tmp_path, monkeypatch):
    """Each README command with nothing to fill in (no ID, FILE, [option]) runs as written,
    from the repository's root (the sample bots' paths are relative to it). An inline mention
    of a bare command in prose ("`arena tournament run` plays them") is a name, not an
    example: only its --help is run, above."""
    monkeypatch.chdir(ROOT)
    blocks = {c for body in fences(ROOT / "README.md", "sh") for c in shell_commands(body)}
    concrete = [
        c
        for doc, c in COMMANDS
        if doc == "README.md"
        and not re.search(r"[A-Z]{2,}|\[", c.split("#")[0])
        and (c in blocks or len(resolve(shlex.split(c))[0]) + 1 < len(shlex.split(c)))
    ]
    ran = 0
    for command in dict.fromkeys(concrete):
        words = shlex.split(command)[1:]
        if words[0] in LONG_RUNNING or "celery" in words or len(words) == 1:
            continue
        result = CliRunner().invoke(main, words)
        assert result.exit_code == 0, f"`{command}`:\n{result.output}"
        ran += 1
    assert ran >= 4  # bot list, tournament list, db upgrade, the play example


# --------------------------------------------------------------------------- rules.md


def _preset_table() -> dict[str, tuple[str, str]]:
    text = (ROOT / "docs/rules.md").read_text().split("## The presets", 1)[1]
    rows = re.findall(r"^\| `([a-z_]+)`[^|]*\| ([^|]+) \| ([^|]+) \|$", text, re.M)
    return {knob: (pagat.strip(), bhoos.strip()) for knob, pagat, bhoos in rows}


def test_the_preset_table_matches_the_rulesets():
    table = _preset_table()
    assert table["min_call"] == (
        f"{PAGAT.min_call} … {PAGAT.max_call}",
        f"{BHOOS.min_call} … {BHOOS.max_call}",
    )
    for knob in ("must_head", "scoring", "redeal"):
        assert table[knob] == (f"`{getattr(PAGAT, knob)}`", f"`{getattr(BHOOS, knob)}`")
    assert table["must_trump"] == ("`true`", "`true`") and PAGAT.must_trump and BHOOS.must_trump
    assert table["deals_per_game"] == (str(PAGAT.deals_per_game), str(BHOOS.deals_per_game))
    assert table["bonus_call"][0] == f"{PAGAT.bonus_call}, {PAGAT.bonus_points}"


@pytest.mark.parametrize(
    ("rules", "call", "won", "points"),
    [
        (PAGAT, 4, 4, 4),
        (PAGAT, 4, 5, 4),
        (PAGAT, 4, 3, -4),
        (PAGAT, 4, 6, -4),
        (PAGAT, 9, 9, 13),
        (PAGAT, 9, 10, 13),
        (PAGAT, 9, 8, -9),
        (BHOOS, 3, 5, 3.2),
        (BHOOS, 3, 2, -3),
    ],
)
def test_the_scoring_examples(rules, call, won, points):
    assert score_tenths(call, won, rules) == round(points * 10)


def _legal(rules, hand: str, trick: str) -> set[str]:
    cards = [parse_card(c) for c in trick.split()]
    return {str(c) for c in legal_plays([parse_card(c) for c in hand.split()], cards, rules)}


def test_the_must_head_and_must_trump_examples():
    trumped = "9H 2S"  # hearts led with 9♥, then trumped with 2♠
    assert _legal(PAGAT, "KH 4H", trumped) == {"KH", "4H"}
    assert _legal(BHOOS, "KH 4H", trumped) == {"KH", "4H"}
    assert _legal(PAGAT.with_(must_head="always"), "KH 4H", trumped) == {"KH"}
    assert _legal(BHOOS, "KH 4H", "9H") == {"KH"}
    assert _legal(PAGAT, "KH 4H", "9H") == {"KH", "4H"}
    assert _legal(BHOOS, "KS 3S", "5S") == {"KS"}  # spades led: always higher if able
    assert _legal(PAGAT, "KS 3S 5C", "4D QS") == {"KS"}
    assert _legal(PAGAT, "3S 5C", "4D QS") == {"3S", "5C"}
    assert _legal(PAGAT.with_(must_trump=False), "KS 3S 5C", "4D QS") == {"KS", "3S", "5C"}


def test_the_dealer_and_the_first_caller():
    deal = Deal(PAGAT, seed=1)
    assert (deal.dealer, deal.to_act) == (0, 1)


# --------------------------------------------------------------------------- sdk.md, for real


def _sdk_bot(folder: Path) -> Path:
    doc = ROOT / "docs/sdk.md"
    folder.mkdir()
    [toml] = fences(doc, "toml")
    (folder / "bot.toml").write_text(toml)
    first = next(body for body in fences(doc, "python") if "serve(MyBot())" in body)
    (folder / "bot.py").write_text(first)
    return folder


def test_the_sdk_walkthrough_runs_as_written(home, sandbox, tmp_path, monkeypatch):
    """The guide's own bot, and each of its shell commands in order, in a fresh platform."""
    work = tmp_path / "work"
    work.mkdir()
    _sdk_bot(work / "mybot")
    monkeypatch.chdir(work)
    commands = [c for body in fences(ROOT / "docs/sdk.md", "sh") for c in shell_commands(body)]
    assert commands[0].startswith("arena play mybot") and len(commands) >= 7
    outputs = {}
    for command in commands:
        words = shlex.split(command)[1:]
        if "--games" not in words and words[0] == "play":
            words += ["--games", "1", "--deals", "2"]  # the same command, shorter
        result = CliRunner().invoke(main, words)
        assert result.exit_code == 0, f"`{command}`:\n{result.output}"
        outputs[words[0], words[1] if len(words) > 1 else ""] = result.output
    assert "mybot@1.0.0 (id 1) is valid" in outputs["bot", "add"]
    assert "Standings of tournament 1" in outputs["standings", "1"]
    assert (work / "match1.json").is_file()
    assert "Game 1, deal 1" in outputs["replay", "show"]
