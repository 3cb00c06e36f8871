"""The dashboard: a Flask app factory with one blueprint per area.

Pages and the JSON API call read models in :mod:`arena.views`; nothing here touches SQL.
"""

from __future__ import annotations

from flask import Flask

from arena.store import Database
from dashboard import db
from dashboard.api import api
from dashboard.bots import bots
from dashboard.charts import line_chart
from dashboard.errors import register_errors
from dashboard.format import register_filters
from dashboard.leaderboard import leaderboard
from dashboard.matches import matches
from dashboard.tournaments import tournaments


def create_app(database: Database | None = None, **config) -> Flask:
    """The app on ``database`` (default: the configured one, as the CLI uses)."""
    app = Flask(__name__)
    app.config.update(**config)
    app.json.sort_keys = False  # keep the documented field order
    db.init_app(app, database)
    register_filters(app)
    app.add_template_global(line_chart)
    register_errors(app)
    for blueprint in (leaderboard, tournaments, bots, matches, api):
        app.register_blueprint(blueprint)
    return app
