"""``arena bot build`` (a bot's build step, here, as the server runs it) and ``arena runtimes``
(the languages this machine builds and runs)."""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from arena.bots.package import BotPackage, load_package
from arena.bots.runtimes import runtime_problem
from arena.builds import Build, BuildLimits, build_package
from arena.cli.context import settings, unsafe_no_sandbox, user_errors
from arena.sandbox import SandboxPolicy, resolve_mode
from arena.text import printable
from arena.toolchains import packages_for, runtime_table

LOG_LINES = 30  # of a failed build's log, shown


@click.command("build")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Folder for the built bot (must not exist; default: a new folder under /tmp). "
    "`arena play OUT ...` plays what the server would store.",
)
@unsafe_no_sandbox
def build_command(path: Path, out: Path | None) -> None:
    """Run the build step of the bot in PATH (bot.toml's `build`) on a copy of its files, in
    the build sandbox with the server's limits (ARENA_BUILD_SECONDS, ARENA_BUILD_MEMORY_MB,
    ARENA_BUILD_OUTPUT_MB): what passes here passes there."""
    with user_errors():
        package = load_package(path)
        if not package.build:
            raise click.ClickException(f"{path}: bot.toml names no build step (`build = [...]`)")
        folder = out or Path(tempfile.mkdtemp(prefix=f"{package.name}-build-")) / "bot"
        if folder.exists():
            raise click.ClickException(f"{folder} exists: name a new folder with --out")
        built = build_here(path, package, folder)
    click.echo(f"built in {built.seconds:.1f} s: {folder} (its log: {build_log_path(folder)})")
    click.echo(f"play it: arena play {folder} random heuristic random --games 4 --no-build")


def build_log_path(folder: Path) -> Path:
    """Where ``build_here`` writes the log of a build into ``folder``: beside it."""
    return folder.parent / f"{folder.name}.build.log"


def build_here(path: Path, package: BotPackage, folder: Path) -> Build:
    """Build ``package`` (from ``path``) into ``folder`` as the server would, under a clock;
    a failed build prints the end of its log and is a ``ClickException`` with its reason."""
    configured = settings()
    if problem := runtime_problem(package.runtime):
        raise click.ClickException(f"{path}: bot.toml: {problem}")
    policy = SandboxPolicy.from_settings(configured)
    resolve_mode(policy)
    limits = BuildLimits.from_settings(configured)
    folder.parent.mkdir(parents=True, exist_ok=True)
    log_path = build_log_path(folder)
    build = _with_clock(
        lambda: build_package(package, folder, limits=limits, policy=policy, log_path=log_path),
        f"building {package.name} ({' '.join(package.build)}; {limits.describe()})",
    )
    if not build.ok:
        lines = build.log.rstrip("\n").split("\n")[-LOG_LINES:] if build.log else []
        for line in lines:
            click.echo(f"  {printable(line)}", err=True)
        click.echo(f"its whole log: {log_path}", err=True)
        raise click.ClickException(printable(f"{path}: build failed: {build.reason}"))
    return build


def _with_clock(work, what: str):
    """``work()`` under a spinner that counts the seconds (a build may take minutes)."""
    begun = time.monotonic()
    done = threading.Event()
    console = Console(stderr=True)
    with console.status(what) as status:

        def tick() -> None:
            while not done.wait(1.0):
                status.update(f"{what}: {time.monotonic() - begun:.0f} s")

        threading.Thread(target=tick, daemon=True).start()
        try:
            return work()
        finally:
            done.set()


@click.command("runtimes")
@click.option(
    "--packages",
    metavar="NAME,...",
    help="Print only the Debian packages of these toolchains (or all), on one line: "
    "for an image or a CI script (`apt-get install $(arena runtimes --packages all)`).",
)
def runtimes_command(packages: str | None) -> None:
    """The languages bots may name in bot.toml's `runtime`, and whether this machine has
    each (with its version); `arena setup --runtimes cpp,go` (say) installs missing ones."""
    if packages is not None:
        try:
            click.echo(
                " ".join(packages_for([n.strip() for n in packages.split(",") if n.strip()]))
            )
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        return
    table = Table("runtime", "installed", "what bots get", "Debian packages")
    for row in runtime_table():
        packages = " ".join(row.packages) or "(the platform's)"
        table.add_row(row.name, row.version or "[yellow]no[/]", row.title, packages)
    Console().print(table)
