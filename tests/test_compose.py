"""docker-compose.yml, checked without a Docker engine: every service is there with a health
check, every build context and command exists in the project, the sandbox's privileges are
the documented minimum, the dashboard is the real one on the stack's database."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml
from click.testing import CliRunner

from arena.cli import main
from arena.config import DEFAULT_MAX_UPLOAD

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]


def test_the_stack_has_its_services_each_with_a_health_check_or_a_one_shot_job() -> None:
    assert set(SERVICES) == {
        "postgres",
        "redis",
        "migrate",
        "worker",
        "beat",
        "dashboard",
        "proxy",
    }
    for name, service in SERVICES.items():
        assert "healthcheck" in service or service.get("restart") == "no", name


def test_build_contexts_exist_and_hold_a_dockerfile() -> None:
    for name, service in SERVICES.items():
        if "build" in service:
            context = ROOT / service["build"]
            assert (context / "Dockerfile").is_file(), name
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "bubblewrap" in dockerfile and "pip install" in dockerfile


def _check_command(command: list[str]) -> None:
    program, *args = command
    if program == "arena":  # the project's CLI: the subcommand must exist
        words = [a for a in args[:2] if not a.startswith("-")]
        result = CliRunner().invoke(main, [*words, "--help"])
        assert result.exit_code == 0, (command, result.output)
    elif program == "python" and args[0] == "-c":
        compile(args[1], "healthcheck", "exec")
    elif program == "python":
        assert args[0] == "-m" and importlib.util.find_spec(args[1]) is not None, command
    else:  # an image's own tool (postgres, redis) or one our Dockerfile installs
        assert program in {"redis-server", "pg_isready", "redis-cli", "pgrep", "curl"}, command


def test_every_command_exists() -> None:
    for service in SERVICES.values():
        if "command" in service:
            _check_command(service["command"])
        test = service.get("healthcheck", {}).get("test", [])
        if test and test[0] == "CMD":
            _check_command(test[1:])


def test_migrations_run_before_workers_and_workers_keep_minimal_privileges() -> None:
    worker = SERVICES["worker"]
    assert worker["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert worker["cap_add"] == ["SYS_ADMIN"] and "privileged" not in worker
    assert worker["environment"]["ARENA_DATABASE_URL"].startswith("postgresql://")
    assert "--queues" in worker["command"]


def test_a_beat_has_the_workers_recover_what_was_lost() -> None:
    beat, worker = SERVICES["beat"], SERVICES["worker"]
    assert beat["command"] == ["arena", "beat"]
    assert beat["restart"] == "unless-stopped"
    # the same settings as the workers (its period is a third of their lease)
    assert beat["environment"] == worker["environment"]
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
    user, password, name = (
        postgres[k] for k in ("POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB")
    )
    assert env["ARENA_DATABASE_URL"] == f"postgresql://{user}:{password}@postgres:5432/{name}"
    assert env["ARENA_BROKER_URL"] == SERVICES["worker"]["environment"]["ARENA_BROKER_URL"]
    # the cookie key comes from the environment docker compose runs in, and is required
    assert env["ARENA_SECRET_KEY"].startswith("${ARENA_SECRET_KEY:?")
    assert "ARENA_SECRET_KEY" not in SERVICES["worker"]["environment"]  # only the web needs it
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
