"""docker-compose.yml, checked without a Docker engine: one core host (Postgres, Redis, the
migration job, the beat, the dashboard behind its proxy) and any number of worker hosts
(workers only, pointed at the core by ARENA_CORE_HOST); every service has a health check,
every build context and command exists in the project, no password is written in the file,
the ports the worker hosts need are published, workers stop gracefully after the longest
match, bot uids cannot collide between containers of one host, the image holds the master's
compiled search, and the sandbox's privileges are the documented minimum."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path
from urllib.parse import urlsplit

import yaml
from click.testing import CliRunner

from arena.bots.process_player import STARTUP_BACKSTOP
from arena.cli import main
from arena.config import (
    DEFAULT_MAX_UPLOAD,
    DEFAULT_UID_BASE,
    DEFAULT_UID_COUNT,
    DEFAULT_VISIBILITY_S,
    Settings,
)
from arena.game import RULESETS
from arena.referee import Clock
from arena.referee.match import MatchSpec
from arena.sandbox import SandboxPolicy

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "docker-compose.yml").read_text()
COMPOSE = yaml.safe_load(TEXT)
SERVICES = COMPOSE["services"]
CORE = {"postgres", "redis", "migrate", "beat", "dashboard", "proxy"}
SECRETS = "/run/secrets/"
VARIABLE = re.compile(r"\$\{(\w+)(?::?-([^}]*)|:?\?[^}]*)?\}")


def resolved(text: str, **env: str) -> str:
    """``text`` as docker compose interpolates it, with ``env`` set (else the defaults)."""
    return VARIABLE.sub(lambda m: env.get(m.group(1), m.group(2) or ""), str(text))


def environment(name: str, **env: str) -> dict[str, str]:
    return {k: resolved(v, **env) for k, v in SERVICES[name].get("environment", {}).items()}


def settings_of(name: str, **env: str) -> Settings:
    """The service's Settings (password files left out: they exist in its container only)."""
    given = {k: v for k, v in environment(name, **env).items() if not k.endswith("_FILE")}
    return Settings.from_env(given)


def test_a_core_profile_and_a_worker_profile_each_service_with_a_health_check() -> None:
    profiles = {name: service.get("profiles") for name, service in SERVICES.items()}
    assert profiles == {**{name: ["core"] for name in CORE}, "worker": ["worker"]}
    for name, service in SERVICES.items():
        assert "healthcheck" in service or service.get("restart") == "no", name
        assert service.get("restart") in ("unless-stopped", "no"), name


def test_build_contexts_exist_and_the_image_holds_the_masters_compiled_search() -> None:
    for name, service in SERVICES.items():
        if "build" in service:
            context = ROOT / service["build"]
            assert (context / "Dockerfile").is_file(), name
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "bubblewrap" in dockerfile and "pip install" in dockerfile
    runs = [step for step in re.split(r"\n(?=[A-Z]+ )", dockerfile) if step.startswith("RUN ")]
    warm = [i for i, step in enumerate(runs) if "arena.house.master.cache import warm" in step]
    install = [i for i, step in enumerate(runs) if "pip install" in step]
    assert warm and install and warm[0] > install[0]  # compiled into the installed package
    # and, where the host's CPU differs from the build host's, at the worker's start
    assert "arena setup && exec arena worker" in " ".join(SERVICES["worker"]["command"])


def _check_command(command: list[str]) -> None:
    program, *args = command
    if program == "sh" and args[0] == "-c":  # each `arena ...` step of a shell line
        for step in re.split(r"&&|\|", args[1]):
            words = shlex.split(step.strip())
            words = words[1:] if words[:1] == ["exec"] else words
            if words[:1] == ["arena"]:
                _check_command(words)
    elif program == "arena":  # the project's CLI: the subcommand and its options must exist
        words = [a for a in args[:2] if not a.startswith("-")]
        result = CliRunner().invoke(main, [*words, "--help"])
        assert result.exit_code == 0, (command, result.output)
        for option in (a.split("=")[0] for a in args if a.startswith("--")):
            assert option in result.output, (command, option)
    elif program == "python" and args[0] == "-c":
        compile(args[1], "healthcheck", "exec")
    elif program == "python":
        assert args[0] == "-m" and importlib.util.find_spec(args[1]) is not None, command
    else:  # an image's own tool (postgres, redis) or one our Dockerfile installs
        assert program in {"postgres", "redis-server", "pg_isready", "redis-cli", "pgrep", "curl"}
        assert program, command


def test_every_command_exists() -> None:
    for service in SERVICES.values():
        if "command" in service:
            _check_command(service["command"])
        test = service.get("healthcheck", {}).get("test", [])
        if test and test[0] == "CMD":
            _check_command(test[1:])
        elif test and test[0] == "CMD-SHELL":
            _check_command(["sh", "-c", test[1]])


def test_no_password_is_written_in_the_file() -> None:
    """Passwords and the cookie key come from files in ./secrets (docker secrets), which
    neither git nor the image build ever sees."""
    for name, service in SERVICES.items():
        for key, value in service.get("environment", {}).items():
            if re.search("PASSWORD|SECRET|KEY", key):
                assert key.endswith("_FILE") and value.startswith(SECRETS), (name, key)
                secret = value.removeprefix(SECRETS)
                assert secret in service["secrets"], (name, key)  # mounted where it is read
            if "://" in str(value):
                assert urlsplit(resolved(value)).password is None, (name, key)
    for name, secret in COMPOSE["secrets"].items():
        assert resolved(secret["file"]) == f"./secrets/{name}", name
    assert "/secrets/" in (ROOT / ".gitignore").read_text().split()
    assert "secrets" in (ROOT / ".dockerignore").read_text().split()
    # the servers take theirs from the same files
    postgres = SERVICES["postgres"]
    assert postgres["environment"]["POSTGRES_PASSWORD_FILE"] == SECRETS + "db_password"
    assert "POSTGRES_PASSWORD" not in postgres["environment"]
    redis = " ".join(SERVICES["redis"]["command"])
    assert "requirepass" in redis and '"$$(cat /run/secrets/redis_password)"' in redis
    assert "redis_password" in SERVICES["redis"]["secrets"]


def test_the_worker_hosts_reach_postgres_and_redis_published_on_the_core_host() -> None:
    for name, port in (("postgres", 5432), ("redis", 6379)):
        assert SERVICES[name]["ports"] == [f"${{ARENA_CORE_BIND:-0.0.0.0}}:{port}:{port}"]
    remote = settings_of("worker", ARENA_CORE_HOST="10.0.0.5")
    assert urlsplit(remote.database_url).hostname == "10.0.0.5"
    assert urlsplit(remote.broker_url).hostname == "10.0.0.5"
    assert urlsplit(remote.database_url).port == 5432 and urlsplit(remote.broker_url).port == 6379
    # unset, the worker uses the services of this file (both profiles on one host)
    local = settings_of("worker")
    assert (local.database_url, local.broker_url) == (
        settings_of("migrate").database_url,
        settings_of("beat").broker_url,
    )
    # a worker host starts no core service: the worker's dependencies are optional
    for dependency in SERVICES["worker"]["depends_on"].values():
        assert dependency["required"] is False
    assert SERVICES["worker"]["environment"]["ARENA_DATABASE_PASSWORD_FILE"].startswith(SECRETS)


def test_migrations_run_before_workers_and_workers_keep_minimal_privileges() -> None:
    worker = SERVICES["worker"]
    assert worker["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert worker["cap_add"] == ["SYS_ADMIN"] and "privileged" not in worker
    assert settings_of("worker").database_url.startswith("postgresql://")
    assert settings_of("worker").database_configured  # an arena worker refuses otherwise
    assert "--queues" in worker["command"][-1]


def longest_match_s(spec: MatchSpec) -> float:
    """Wall time a match can take when every bot uses all the time it is given: each game
    starts its bots (up to the start-up backstop), each seat makes a call and plays 13
    cards a deal at the full decision time and spends its bank, and its bots are stopped."""
    clock, deals = spec.clock, spec.rules.deals_per_game
    start = clock.startup_ms / 1000 * STARTUP_BACKSTOP
    seat = deals * 14 * clock.decision_ms / 1000 + clock.bank_ms / 1000
    stop = SandboxPolicy().stop_grace_seconds + 1.0
    return spec.games * (start + 4 * seat + stop)


def seconds(duration: str) -> float:
    parts = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", duration)
    assert parts is not None and any(parts.groups()), duration
    h, m, s = (int(x or 0) for x in parts.groups())
    return 3600 * h + 60 * m + s


def test_a_worker_stopped_finishes_the_longest_match_before_it_is_killed() -> None:
    longest = max(
        longest_match_s(MatchSpec("m", rules=r, clock=Clock())) for r in RULESETS.values()
    )
    grace = seconds(resolved(SERVICES["worker"]["stop_grace_period"]))
    assert longest < grace < DEFAULT_VISIBILITY_S  # and Redis hands no job out meanwhile
    assert 25 * 60 < longest < 26 * 60  # what the file's comment and docs/deploy.md say
    assert "under 26 minutes" in TEXT
    assert seconds(resolved(SERVICES["worker"]["stop_grace_period"], ARENA_STOP_GRACE="2h")) == 7200


def _uids(name: str) -> range:
    env = environment(name)
    base = int(env.get("ARENA_SANDBOX_UID_BASE", DEFAULT_UID_BASE))
    return range(base, base + int(env.get("ARENA_SANDBOX_UID_COUNT", DEFAULT_UID_COUNT)))


def test_bot_uids_cannot_collide_between_containers_of_one_host() -> None:
    """Containers share the host's uids (no user namespace). The services that start bots
    (the workers; the dashboard when the broker is away) get ranges of their own, and the
    replicas of the worker service (`--scale worker=N`) lease theirs through lock files in
    one host folder they all mount."""
    runs_bots = [
        n
        for n, s in SERVICES.items()
        if re.search(r"arena (worker|dashboard)", " ".join(s.get("command", [])))
    ]
    assert sorted(runs_bots) == ["dashboard", "worker"]
    for i, a in enumerate(runs_bots):
        for b in runs_bots[i + 1 :]:
            assert not set(_uids(a)) & set(_uids(b)), (a, b)
    for name in runs_bots:  # none shares the defaults that bare `arena` processes use
        assert not set(_uids(name)) & set(
            range(DEFAULT_UID_BASE, DEFAULT_UID_BASE + DEFAULT_UID_COUNT)
        )
    worker = SERVICES["worker"]
    lock_dir = worker["environment"]["ARENA_SANDBOX_UID_LOCK_DIR"]
    assert (
        f"{lock_dir}:{lock_dir}" in worker["volumes"]
    )  # a host folder, not a volume per container
    assert SandboxPolicy.from_settings(settings_of("worker")).uid_lock_dir == Path(lock_dir)
    assert len(_uids("worker")) >= 4 * 64  # room for every seat of many workers on one host


def test_postgres_takes_the_connections_of_the_documented_cluster() -> None:
    """docs/deploy.md: each worker process holds one connection, two at times, and each
    worker container's main process one; the README's cluster is twelve hosts of five."""
    command = SERVICES["postgres"]["command"]
    assert command[:2] == ["postgres", "-c"]
    max_connections = int(resolved(command[2]).removeprefix("max_connections="))
    hosts, per_host = 12, 5
    workers = hosts * per_host * (2 * 1 + 1)  # --concurrency 1
    dashboard = 8 + 10  # its threads, and validation and sweeping
    assert max_connections >= workers + dashboard + 10  # followers, migrations, psql
    readme, deploy = (ROOT / "README.md").read_text(), (ROOT / "docs/deploy.md").read_text()
    assert "twelve" in readme and "--profile worker up -d --scale worker=5" in readme
    assert "max_connections" in deploy and "ARENA_PG_MAX_CONNECTIONS" in deploy


def test_a_beat_has_the_workers_recover_what_was_lost() -> None:
    beat = SERVICES["beat"]
    assert beat["command"] == ["arena", "beat"]
    assert beat["restart"] == "unless-stopped"
    # the same settings as the workers on this host (its period is a third of their lease)
    beat_settings, worker_settings = settings_of("beat"), settings_of("worker")
    for field in ("database_url", "broker_url", "lease_s", "visibility_timeout_s"):
        assert getattr(beat_settings, field) == getattr(worker_settings, field), field
    assert beat["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "cap_add" not in beat  # it runs no bot


def test_the_dashboard_service_serves_the_real_dashboard_on_the_compose_postgres() -> None:
    dashboard, postgres = SERVICES["dashboard"], SERVICES["postgres"]["environment"]
    command = dashboard["command"]
    assert command[:2] == ["arena", "dashboard"]
    # every option is one `arena dashboard` takes (an unknown one fails before --help)
    result = CliRunner().invoke(main, [*command[1:], "--help"])
    assert result.exit_code == 0, result.output
    # listens on every interface of its container, on the port exposed and health-checked,
    # published only through the proxy (so trusting any proxy's X-Forwarded-For is safe)
    port = command[command.index("--port") + 1]
    assert command[command.index("--host") + 1] == "0.0.0.0"
    assert dashboard["expose"] == [port] and "ports" not in dashboard
    assert command[command.index("--trusted-proxy") + 1] == "*"
    assert f"http://127.0.0.1:{port}/" in dashboard["healthcheck"]["test"][-1]
    env = dashboard["environment"]
    user, name = postgres["POSTGRES_USER"], postgres["POSTGRES_DB"]
    assert env["ARENA_DATABASE_URL"] == f"postgresql://{user}@postgres:5432/{name}"
    assert env["ARENA_DATABASE_PASSWORD_FILE"] == postgres["POSTGRES_PASSWORD_FILE"]
    assert settings_of("dashboard").broker_url == settings_of("worker").broker_url
    # the cookie key comes from a secret file, which only the web is given
    assert env["ARENA_SECRET_KEY_FILE"] == SECRETS + "secret_key"
    assert "secret_key" in dashboard["secrets"]
    assert "secret_key" not in SERVICES["worker"]["secrets"]
    assert dashboard["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_a_buffering_proxy_with_client_deadlines_is_the_only_way_in() -> None:
    proxy, dashboard = SERVICES["proxy"], SERVICES["dashboard"]
    assert proxy["image"].startswith("nginx:")
    assert proxy["depends_on"]["dashboard"]["condition"] == "service_healthy"
    source, target = proxy["volumes"][0].removesuffix(":ro").split(":")
    assert target == "/etc/nginx/conf.d/default.conf"
    conf = (ROOT / source).read_text()
    code = (line.partition("#")[0].strip() for line in conf.splitlines())
    lines = [c.removesuffix(";") for c in code if c.endswith(";")]
    directives = dict(line.split(None, 1) for line in lines)  # the last of a repeated one
    port = dashboard["command"][dashboard["command"].index("--port") + 1]
    assert directives["server"] == f"dashboard:{port}"  # the upstream: the dashboard service
    assert directives["proxy_pass"] == "http://dashboard"
    assert directives["proxy_request_buffering"] == directives["proxy_buffering"] == "on"
    for deadline in ("client_header_timeout", "client_body_timeout"):
        assert directives[deadline].removesuffix("s").isdigit(), deadline
    # an upload as large as the platform takes gets through (ARENA_MAX_UPLOAD, 64 MiB)
    assert int(directives["client_max_body_size"].removesuffix("m")) * 2**20 > DEFAULT_MAX_UPLOAD
    assert "proxy_set_header X-Forwarded-For $remote_addr" in lines  # replaced, not appended
    listen = directives["listen"]
    assert proxy["ports"] == [f"{port}:{listen}"]
    assert "http://127.0.0.1/" in proxy["healthcheck"]["test"]
