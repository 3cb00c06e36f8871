"""Submitting a bot from the browser: a zip, or one source file and the manifest's fields.
The submission core checks and stores it; the bot page then shows the verdict arrive."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for

from arena.builds import BuildLimits
from arena.readmodels.ladder import ladder_entered
from arena.readmodels.uploads import mark, uploaded
from arena.submissions import SubmissionError
from arena.submissions.upload import FIELDS
from arena.toolchains import runtime_table
from dashboard.auth import login_required, signed_in_user
from dashboard.db import database, session
from dashboard.format import first_match
from dashboard.submitting import runtime, submit

uploads = Blueprint("uploads", __name__, url_prefix="/bots")


@uploads.get("/new")
@login_required
def new():
    return render_template("upload.html", values={"name": request.args.get("bot", "")})


@uploads.get("/runtimes")
def runtimes():
    """The languages a bot may name (``arena runtimes``), with this server's versions."""
    limits = BuildLimits.from_settings(runtime().settings).describe()
    return render_template("runtimes.html", runtimes=runtime_table(), limits=limits)


@uploads.post("/new")
@login_required
def create():
    values = {key: request.form.get(key, "") for key in FIELDS}
    with database().session(read_only=True) as s:
        before = mark(s)
    try:
        stream, options = _upload(values)
        version_id = submit(signed_in_user().id, stream, **options)
    except SubmissionError as exc:
        page = render_template("upload.html", values=values, error=str(exc), chosen=_chosen())
        return page, exc.status
    with database().session(read_only=True) as s:  # the request's session predates the upload
        done = uploaded(s, version_id, before)
    if not done.new:
        flash(
            f"Identical to {done.bot} version {done.version}, stored before ({done.status}): "
            "nothing new was uploaded.",
            "info",
        )
    else:
        flash(f"Version {done.version} of {done.bot} uploaded; validation queued.", "info")
        if (ladder := ladder_entered(session(), done.manifest)) is not None:
            flash(
                f"Once {done.bot} is valid it enters the {ladder.name} ladder: its "
                f"{ladder.placement_matches} placement matches follow, the first "
                f"{first_match(ladder)}.",
                "info",
            )
    return redirect(url_for("bots.show", bot_id=done.bot_id, new=version_id), 303)


def _chosen() -> str | None:
    """The file the refused form carried ("zip" or "source file"): a browser empties a
    file field on every page it shows, so the page says to choose it again."""
    for field, what in (("archive", "zip"), ("source", "source file")):
        file = request.files.get(field)
        if file is not None and file.filename:
            return what
    return None


def _upload(values: dict[str, str]):
    """(stream, filename=..., fields=...) for ``submit``: the zip if one was chosen, else
    the source file with the form's fields. (Too long a body never got here: see
    ``dashboard.auth``; the core caps the file itself.)"""
    archive, source = request.files.get("archive"), request.files.get("source")
    if archive is not None and archive.filename:
        return archive.stream, {"filename": archive.filename}
    if source is not None and source.filename:
        fields = {key: value for key, value in values.items() if value.strip()}
        return source.stream, {"filename": source.filename, "fields": fields}
    raise SubmissionError("choose a zip of your bot, or one source file and fill in the fields")
