"""The dashboard: a Flask app factory with one blueprint per area.

Pages and the JSON API call read models in :mod:`arena.readmodels` and services in
:mod:`arena.accounts`, :mod:`arena.tournaments`; nothing here touches SQL.
"""

from __future__ import annotations

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from arena.config import Settings
from arena.runtime import Runtime
from arena.store import Database
from dashboard import db
from dashboard.accounts import accounts
from dashboard.api import api
from dashboard.auth import init_auth
from dashboard.bots import bots
from dashboard.challenges import challenges, challenges_api
from dashboard.charts import line_chart, version_series
from dashboard.docs import docs
from dashboard.errors import register_errors
from dashboard.format import register_filters
from dashboard.health import health
from dashboard.ladders import ladders
from dashboard.leaderboard import leaderboard
from dashboard.logs import logs
from dashboard.matches import matches
from dashboard.organiser import organiser
from dashboard.submitting import sweep_lost_validations
from dashboard.targets import IdConverter
from dashboard.tournaments import tournaments
from dashboard.uploads import uploads
from dashboard.versions import versions, versions_api

BLUEPRINTS = (
    ladders,
    leaderboard,
    tournaments,
    organiser,
    bots,
    versions,
    challenges,
    uploads,
    logs,
    matches,
    accounts,
    api,
    versions_api,
    challenges_api,
    docs,
    health,
)


def create_app(database: Database | None = None, runtime: Runtime | None = None, **config) -> Flask:
    """The app on ``database`` (default: the configured one, as the CLI uses); ``runtime``
    says where uploaded bots and logs go on this machine (default: from the environment)."""
    app = Flask(__name__)
    app.config.update(**config)
    provider = DefaultJSONProvider(app)  # Flask's own, but keeping the documented field order
    provider.sort_keys = False
    app.json = provider
    runtime = runtime or Runtime(Settings.from_env())
    app.extensions["arena_runtime"] = runtime
    db.init_app(app, database)
    init_auth(app, runtime.settings)
    register_filters(app)
    app.add_template_global(line_chart)
    app.add_template_global(version_series)
    register_errors(app)
    app.url_map.converters["int"] = IdConverter  # before the routes that use it
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    sweep_lost_validations(app)
    return app
