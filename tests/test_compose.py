"""docker-compose.yml, checked without a Docker engine: one core host (Postgres, Redis, the
migration job, the beat, the dashboard behind its proxy) and any number of worker hosts
(workers only, pointed at the core by ARENA_CORE_HOST); the file keeps to what Compose v2 and
Debian 12's docker-compose 1.29 both read (and `docker-compose config` takes it, where that
is installed); every service has a health check on a real endpoint, an init, a restart policy
and rotated logs; every build context and command exists in the project, no password is
written in the file, Postgres and Redis are on the loopback unless ARENA_CORE_BIND publishes
them for the worker hosts, workers have limits and stop gracefully after the longest match,
bot uids cannot collide between containers of one host, the image is pinned, has a Node the
node20 bots accept and the master's compiled search, and the sandbox's privileges are the
documented minimum."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
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
from tests.support import need

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "docker-compose.yml").read_text()
COMPOSE = yaml.safe_load(TEXT)
SERVICES = COMPOSE["services"]
ONE_HOST = yaml.safe_load((ROOT / "deploy/one-host.yml").read_text())
DEPLOY_DOC = (ROOT / "docs/deploy.md").read_text()
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
        assert service.get("init") is True, name  # a real PID 1: signals passed on, orphans reaped
        assert service.get("logging") == COMPOSE["x-logging"], name  # rotated, every one


def test_logs_are_rotated() -> None:
    logging = COMPOSE["x-logging"]
    assert logging["driver"] == "json-file"
    options = {k: resolved(v) for k, v in logging["options"].items()}
    assert options == {"max-size": "20m", "max-file": "5"}
    assert "max-size" in DEPLOY_DOC and "ARENA_LOG_MAX_SIZE" in DEPLOY_DOC


def test_health_checks_ask_the_real_endpoints() -> None:
    """Not `pgrep` (a container whose process died has stopped anyway): the dashboard's and
    the workers' readiness endpoints, the servers' own clients, the beat's broker."""
    checks = {
        n: " ".join(s["healthcheck"]["test"]) for n, s in SERVICES.items() if "healthcheck" in s
    }
    assert set(checks) == CORE - {"migrate"} | {"worker"}
    assert not [n for n, check in checks.items() if "pgrep" in check]
    assert "http://127.0.0.1:8000/readyz" in checks["dashboard"]
    assert "http://127.0.0.1:9540/readyz" in checks["worker"]  # arena worker's --metrics-port
    assert "http://127.0.0.1/healthz" in checks["proxy"]  # through nginx to the dashboard
    assert "Settings.from_env().broker_url" in checks["beat"] and ".ping()" in checks["beat"]
    assert checks["postgres"].startswith("CMD pg_isready")
    assert "redis-cli ping" in checks["redis"]


def test_the_beats_health_check_is_whether_its_broker_answers(redis, tmp_path) -> None:
    """The beat's check, run as Docker runs it, against a real Redis and one that is down."""
    command = SERVICES["beat"]["healthcheck"]["test"][1:]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}

    def check(url: str) -> int:
        run = subprocess.run(command, env={**env, "ARENA_BROKER_URL": url}, capture_output=True)
        return run.returncode

    assert check(redis.url) == 0
    redis.stop()
    assert check(redis.url) != 0


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
            elif words[:1] == ["sh"] and len(words) == 2:  # a script of the repository
                assert (ROOT / words[1]).is_file(), words  # (the image is the repository)
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
        assert program in {"postgres", "redis-server", "pg_isready", "redis-cli", "curl"}
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


def test_postgres_and_redis_are_on_the_loopback_unless_published_for_the_worker_hosts() -> None:
    for name, port in (("postgres", 5432), ("redis", 6379)):
        (mapping,) = SERVICES[name]["ports"]
        assert mapping == f"${{ARENA_CORE_BIND:-127.0.0.1}}:{port}:{port}"
        assert resolved(mapping, ARENA_CORE_BIND="10.0.0.5") == f"10.0.0.5:{port}:{port}"
    published = {name: s["ports"] for name, s in SERVICES.items() if "ports" in s}
    assert sorted(published) == ["postgres", "proxy", "redis"]
    for name, mappings in published.items():  # by default nothing leaves the host
        assert all(resolved(m).startswith("127.0.0.1:") for m in mappings), name
    assert "echo ARENA_CORE_BIND=10.0.0.5 > .env" in DEPLOY_DOC


def test_the_worker_hosts_reach_postgres_and_redis_published_on_the_core_host() -> None:
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
    # a worker host starts no core service: the worker waits for none (deploy/one-host.yml
    # adds the order where both profiles run on one machine)
    assert "depends_on" not in SERVICES["worker"]
    assert SERVICES["worker"]["environment"]["ARENA_DATABASE_PASSWORD_FILE"].startswith(SECRETS)


def test_migrations_run_before_workers_and_workers_keep_minimal_privileges() -> None:
    worker = SERVICES["worker"]
    assert set(ONE_HOST) == {"services"} and set(ONE_HOST["services"]) == {"worker"}
    order = ONE_HOST["services"]["worker"]["depends_on"]
    assert order["migrate"]["condition"] == "service_completed_successfully"
    assert order["redis"]["condition"] == "service_healthy"
    assert "COMPOSE_FILE=docker-compose.yml:deploy/one-host.yml" in DEPLOY_DOC
    assert worker["cap_add"] == ["SYS_ADMIN", "NET_ADMIN"] and "privileged" not in worker
    assert worker["security_opt"] == ["apparmor=unconfined", "seccomp=unconfined"]
    assert "devices" not in worker and settings_of("worker").require_sandbox
    assert "cap_add" not in SERVICES["dashboard"] and "security_opt" not in SERVICES["dashboard"]
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
    (the workers only: the dashboard's container has no sandbox, so it never validates an
    upload itself) get ranges of their own, and the replicas of the worker service
    (`--scale worker=N`) lease theirs through lock files in one host folder they all mount."""
    runs_bots = [
        n
        for n, s in SERVICES.items()
        if "arena worker" in " ".join(s.get("command", []))
        or ("arena dashboard" in " ".join(s.get("command", [])) and settings_of(n).validate_here)
    ]
    assert runs_bots == ["worker"]
    assert not settings_of("dashboard").validate_here and "cap_add" not in SERVICES["dashboard"]
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
    assert f"http://127.0.0.1:{port}/readyz" in dashboard["healthcheck"]["test"][-1]
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
    assert proxy["ports"] == [f"${{ARENA_WEB_BIND:-127.0.0.1}}:{port}:{listen}"]
    assert resolved(proxy["ports"][0], ARENA_WEB_BIND="0.0.0.0") == f"0.0.0.0:{port}:{listen}"
    assert "http://127.0.0.1/healthz" in proxy["healthcheck"]["test"]


# ---------------------------------------------------------------- what both composes read

# What Compose 1.29 (Debian 12's docker-compose) takes, from its schema (compose_spec.json):
# a key outside these fails its `config` and `up` ("... contains unsupported option").
COMPOSE_1_29_TOP = {"version", "services", "networks", "volumes", "secrets", "configs"}
COMPOSE_1_29_SERVICE = {
    "blkio_config",
    "build",
    "cap_add",
    "cap_drop",
    "cgroup_parent",
    "command",
    "configs",
    "container_name",
    "cpu_count",
    "cpu_percent",
    "cpu_period",
    "cpu_quota",
    "cpu_rt_period",
    "cpu_rt_runtime",
    "cpu_shares",
    "cpus",
    "cpuset",
    "credential_spec",
    "depends_on",
    "deploy",
    "device_cgroup_rules",
    "devices",
    "dns",
    "dns_opt",
    "dns_search",
    "domainname",
    "entrypoint",
    "env_file",
    "environment",
    "expose",
    "extends",
    "external_links",
    "extra_hosts",
    "group_add",
    "healthcheck",
    "hostname",
    "image",
    "init",
    "ipc",
    "isolation",
    "labels",
    "links",
    "logging",
    "mac_address",
    "mem_limit",
    "mem_reservation",
    "mem_swappiness",
    "memswap_limit",
    "network_mode",
    "networks",
    "oom_kill_disable",
    "oom_score_adj",
    "pid",
    "pids_limit",
    "platform",
    "ports",
    "privileged",
    "profiles",
    "pull_policy",
    "read_only",
    "restart",
    "runtime",
    "scale",
    "secrets",
    "security_opt",
    "shm_size",
    "stdin_open",
    "stop_grace_period",
    "stop_signal",
    "storage_opt",
    "sysctls",
    "tmpfs",
    "tty",
    "ulimits",
    "user",
    "userns_mode",
    "volumes",
    "volumes_from",
    "working_dir",
}
COMPOSE_1_29_HEALTHCHECK = {"disable", "interval", "retries", "start_period", "test", "timeout"}
COMPOSE_1_29_CONDITIONS = {"service_started", "service_healthy", "service_completed_successfully"}


def _keys_1_29_refuses(document: dict) -> list[str]:
    refused = [f"top-level {k}" for k in document if k not in COMPOSE_1_29_TOP and k[:2] != "x-"]
    for name, service in document.get("services", {}).items():
        refused += [f"{name}.{k}" for k in service if k not in COMPOSE_1_29_SERVICE]
        check = service.get("healthcheck", {})
        refused += [f"{name}.healthcheck.{k}" for k in check if k not in COMPOSE_1_29_HEALTHCHECK]
        depends = service.get("depends_on", {})
        for on, how in depends.items() if isinstance(depends, dict) else ():
            # `required` and `restart` came with Compose v2.20 and v2.17
            refused += [f"{name}.depends_on.{on}.{k}" for k in how if k != "condition"]
            if how.get("condition") not in COMPOSE_1_29_CONDITIONS:
                refused.append(f"{name}.depends_on.{on}.condition")
    return refused


def test_the_files_keep_to_what_compose_1_29_reads_too() -> None:
    """Compose v2 reads all of 1.29's keys; 1.29 refuses the newer ones (e.g. the optional
    depends_on that the worker once had): none is used, here or in the one-host file."""
    assert _keys_1_29_refuses(COMPOSE) == []
    assert _keys_1_29_refuses(ONE_HOST) == []
    assert "version" not in COMPOSE  # obsolete in v2 (a warning), optional in 1.29
    assert "Compose versions" in DEPLOY_DOC and "1.29" in DEPLOY_DOC


def _composes() -> list[list[str]]:
    """The compose programs installed here: docker-compose (1.x) and the v2 plugin."""
    found = []
    if shutil.which("docker-compose"):
        found.append(["docker-compose"])
    if shutil.which("docker"):
        plugin = subprocess.run(["docker", "compose", "version"], capture_output=True)
        if plugin.returncode == 0:
            found.append(["docker", "compose"])
    return found


@pytest.mark.parametrize(
    ("files", "profiles", "env"),
    [
        (["docker-compose.yml"], ["core"], {"ARENA_CORE_BIND": "10.0.0.5"}),
        (["docker-compose.yml"], ["worker"], {"ARENA_CORE_HOST": "10.0.0.5"}),
        (["docker-compose.yml", "deploy/one-host.yml"], ["core", "worker"], {}),
    ],
    ids=["core-host", "worker-host", "one-host"],
)
def test_compose_config_takes_every_setup(files, profiles, env, tmp_path) -> None:
    """`config` as each installed compose runs it (dummy secrets: only their paths count)."""
    composes = _composes()
    need(bool(composes), "neither docker-compose nor the docker compose plugin is installed")
    for name in ("db_password", "redis_password", "secret_key"):
        (tmp_path / name).write_text("dummy\n")
    given = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "COMPOSE_"))}
    given |= {"ARENA_SECRETS_DIR": str(tmp_path), **env}
    options = [a for f in files for a in ("-f", f)] + [
        a for p in profiles for a in ("--profile", p)
    ]
    for compose in composes:
        run = subprocess.run(
            [*compose, *options, "config"], cwd=ROOT, env=given, capture_output=True, text=True
        )
        assert run.returncode == 0, (compose, run.stderr)
        services = yaml.safe_load(run.stdout)["services"]
        wanted = {"core": CORE, "worker": {"worker"}}
        assert set().union(*(wanted[p] for p in profiles)) <= set(services), compose
        if "worker" in services and env.get("ARENA_CORE_HOST"):
            url = services["worker"]["environment"]["ARENA_DATABASE_URL"]
            assert urlsplit(url).hostname == "10.0.0.5"


# ---------------------------------------------------------------- the workers' containers


def test_workers_have_limits_and_room_for_the_sandbox() -> None:
    worker = SERVICES["worker"]
    assert float(resolved(worker["cpus"])) == 2 and resolved(worker["mem_limit"]) == "8g"
    assert resolved(worker["cpus"], ARENA_WORKER_CPUS="1.5") == "1.5"
    # no swap (memory+swap = memory): a view swapped out would be a timing channel
    assert worker["memswap_limit"] == worker["mem_limit"]
    # the sandbox's view and the bots' copies: a tmpfs that may hold programs (Docker's
    # own /dev/shm is 64 MB and noexec)
    (shm,) = worker["tmpfs"]
    where, options = resolved(shm).split(":", 1)
    assert where == "/dev/shm" and "exec" in options.split(",") and "noexec" not in options
    assert "size=3g" in options.split(",")  # two views of every toolchain (750 MB each)
    # the container's cgroup tree made writable for the bots' groups, before the setup
    command = worker["command"][-1]
    assert command.index("sh deploy/container-cgroups.sh") < command.index("arena setup")
    for name in ("ARENA_WORKER_CPUS", "ARENA_WORKER_MEMORY", "ARENA_WORKER_SHM"):
        assert name in DEPLOY_DOC, name


def test_the_cgroup_script_makes_a_read_only_v1_tree_writable(tmp_path) -> None:
    """deploy/container-cgroups.sh on this host's kind of tree (cgroup v1, as Docker mounts
    it in a container: the controllers read-only under a folder), in a private mount
    namespace: afterwards the memory controller's mount is writable, the host's untouched."""
    need(os.geteuid() == 0 and shutil.which("unshare") is not None, "needs root and unshare")
    memory = Path("/sys/fs/cgroup/memory")
    need(memory.is_dir() and os.path.ismount(memory), "needs a cgroup v1 memory hierarchy")
    root, probe = tmp_path / "cgroup", f"arena-probe-{os.getpid()}"
    script = f"""set -e
        mkdir -p {root} && mount -t tmpfs tmpfs {root} && mkdir {root}/memory
        mount --bind {memory} {root}/memory && mount -o remount,bind,ro {root}/memory
        if mkdir {root}/memory/{probe} 2>/dev/null; then echo "not read-only" >&2; exit 3; fi
        ARENA_CGROUP_ROOT={root} sh {ROOT}/deploy/container-cgroups.sh
        mkdir {root}/memory/{probe} && rmdir {root}/memory/{probe}
        grep " {root}/memory " /proc/self/mounts"""
    run = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert " rw," in run.stdout and "cgroup v1" in run.stderr
    host = Path("/proc/self/mounts").read_text().splitlines()
    assert " rw," in next(line for line in host if f" {memory} " in line)


# ---------------------------------------------------------------- the image


def test_the_image_is_pinned_and_its_node_runs_the_node20_bots() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    args = dict(re.findall(r"^ARG (\w+_IMAGE)=(\S+)$", dockerfile, re.M))
    assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm", args["PYTHON_IMAGE"])
    node = re.fullmatch(r"node:(\d+)\.\d+\.\d+-bookworm-slim", args["NODE_IMAGE"])
    assert node is not None, args
    asked = [
        int(m.group(1))
        for toml in (ROOT / "sample_bots").glob("*/bot.toml")
        if (m := re.search(r'^runtime = "node(\d+)"', toml.read_text(), re.M))
    ]
    assert asked and int(node.group(1)) >= max(asked)  # the js and bhoos samples: node20
    assert "COPY --from=node /usr/local/bin/node /usr/local/bin/node" in dockerfile
    # Debian's nodejs (18 on bookworm) is never installed beside it, not even by the
    # toolchain step (whose table names nodejs and npm for hosts without a Node)
    installs = [line for line in dockerfile.splitlines() if "apt-get install" in line]
    assert not [line for line in installs if re.search(r"\bnodejs\b", line)]
    assert "grep -vxE 'nodejs|npm'" in dockerfile
    assert "runtime_problem as p; \\\nproblem = p('node20')" in dockerfile  # built or refused
    # deploy/ (the worker's cgroup script) is in the build context
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert "deploy" not in ignored and "deploy/" not in ignored
