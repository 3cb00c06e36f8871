"""``arena setup``: get what the sandbox needs from the system's package manager."""

from __future__ import annotations

import click
from rich.console import Console

from arena.host import install, plan
from arena.sandbox import SandboxPolicy, SandboxUnavailable, resolve_mode
from arena.sandbox import _reset_detection_cache as forget_probe
from arena.sandbox.cgroups import fair_play_gaps
from arena.toolchains import installed_version, packages_for, runtime_table


def prepare_host(console: Console) -> None:
    """Install missing packages where allowed, then make sure the sandbox works; raises a
    one-line ClickException saying what to do otherwise. Explicitly unsandboxed runs
    (--unsafe-no-sandbox) need nothing."""
    if SandboxPolicy.from_env().mode == "rlimits":
        return
    needed = plan()
    wanted = needed.required + needed.optional
    if wanted and needed.installer:
        with console.status(f"installing {', '.join(wanted)} with apt-get..."):
            installed = install(wanted, needed.installer)
        if not installed:
            console.print(f"[yellow]could not install {', '.join(wanted)} with apt-get[/]")
        forget_probe()
        needed = plan()
    if needed.required:
        raise click.ClickException(f"the bot sandbox needs bubblewrap: {needed.hint()}")
    try:
        resolve_mode()
    except SandboxUnavailable as exc:
        raise click.ClickException(str(exc)) from None


def build_search_cache(console: Console) -> None:
    """Compile the master bot's search into numba's on-disk cache, which the bot copies at
    start-up inside the read-only sandbox instead of compiling it again every game."""
    from arena.house.master.cache import warm

    with console.status("compiling the master bot's search..."):
        seconds, compiled = warm()
    console.print(f"master bot: search cached ({compiled} kernels compiled, {seconds:.1f} s)")


def install_runtimes(console: Console, names: list[str]) -> None:
    """apt-get the Debian packages of the named toolchains (``arena runtimes`` lists them)."""
    try:
        packages = packages_for(names)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if not packages:
        return
    installer = plan().installer
    if not installer:
        raise click.ClickException(
            "cannot run apt-get here (not root, no passwordless sudo): "
            f"sudo apt-get install {' '.join(packages)}"
        )
    with console.status(f"installing {', '.join(packages)} with apt-get (minutes)..."):
        if not install(packages, installer):
            raise click.ClickException(f"apt-get could not install {' '.join(packages)}")
    installed_version.cache_clear()
    for row in runtime_table():
        console.print(f"runtime {row.name}: {row.version or 'not installed'}")


@click.command()
@click.option(
    "--runtimes",
    default="",
    metavar="NAME,...",
    help="Also install these bots' toolchains (e.g. cpp,go,java,rust, or all; `arena "
    "runtimes` lists them): a worker needs those of the bots it plays and builds.",
)
def setup(runtimes: str) -> None:
    """Install what the sandbox needs (bubblewrap, util-linux; node and npm for the JS
    sample bot) with apt-get when run as root or with passwordless sudo, and check it; build
    the master bot's compiled search cache."""
    console = Console()
    prepare_host(console)
    install_runtimes(console, [n.strip() for n in runtimes.split(",") if n.strip()])
    console.print("sandbox: bubblewrap works")
    for gap in fair_play_gaps(SandboxPolicy.from_env()):
        console.print(f"[yellow]sandbox: {gap}[/]")
    build_search_cache(console)
    later = plan()
    if later.optional:
        console.print(f"[yellow]JavaScript sample bot disabled: {later.hint()}[/]")
