"""Sign up, log in, log out, and the account page (API tokens, one's bots)."""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, redirect, render_template, request, url_for

from arena.accounts.throttle import (
    Limits,
    forgive_login,
    login_blocked,
    reserve_login,
    reserve_signup,
    signup_blocked,
)
from arena.accounts.tokens import list_tokens, revoke_token_id
from arena.store import StoreError, authenticate, create_user, issue_token, list_bots
from dashboard.auth import log_in, log_out, login_required, signed_in_user
from dashboard.db import database
from dashboard.submitting import runtime
from dashboard.targets import local_path

accounts = Blueprint("accounts", __name__)
TOO_MANY = "too many failed log-ins for this account or from this address: try again later"
TOO_MANY_SIGNUPS = "too many sign-ups from this address in the last hour: try again later"


def _next_page() -> str:
    """Where to go after logging in: a path on this site only (never ``//elsewhere``)."""
    return local_path(request.values.get("next", "")) or url_for("accounts.account")


@accounts.route("/signup", methods=["GET", "POST"])
def signup():
    if request.method == "GET":
        return render_template("signup.html")
    name, password = request.form.get("name", ""), request.form.get("password", "")
    if password != request.form.get("password2", ""):
        return render_template("signup.html", error="the two passwords differ", name=name), 400
    address = request.remote_addr or "unknown"
    with database().session() as s:  # counted, refused or not, before anything is checked
        reserve_signup(s, address)
    with database().session(read_only=True) as s:
        if signup_blocked(s, address, Limits.from_settings(runtime().settings)):
            return render_template("signup.html", error=TOO_MANY_SIGNUPS, name=name), 429
    try:
        with database().session() as s:
            user = create_user(s, name, password)
    except StoreError as exc:
        return render_template("signup.html", error=str(exc), name=name), 400
    log_in(user)
    return redirect(url_for("accounts.account"))


@accounts.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "GET":
        return render_template("login.html", next=request.args.get("next", ""))
    name, password = request.form.get("name", "").strip(), request.form.get("password", "")
    address = request.remote_addr or "unknown"
    limits = Limits.from_settings(runtime().settings)
    # Counted as a failure first (committed), then checked against the limits: parallel
    # guesses see each other's reservations, so no more than the limit are ever checked.
    with database().session() as s:
        reserved = reserve_login(s, name, address, limits)
    with database().session(read_only=True) as s:
        blocked = login_blocked(s, name, address, limits)
        # Read-only while scrypt runs (~50 ms): SQLite's write lock is not held for it.
        user = None if blocked else authenticate(s, name, password)
    if user is None and not blocked:
        return _login_refused("wrong user name or password", 401, name)
    with database().session() as s:
        forgive_login(s, reserved)
    if blocked:
        return _login_refused(TOO_MANY, 429, name)
    assert user is not None  # not blocked, and authenticated
    log_in(user)
    return redirect(_next_page())


def _login_refused(error: str, status: int, name: str):
    page = render_template("login.html", error=error, name=name, next=request.form.get("next"))
    return page, status


@accounts.post("/logout")
def logout():
    log_out()
    return redirect(url_for("ladders.front"))


@accounts.get("/api/v1/me")
@login_required
def me():
    """Who a token (or cookie) belongs to: what ``arena bot submit`` checks first."""
    user = signed_in_user()
    return jsonify({"name": user.name, "admin": user.admin})


@accounts.get("/account")
@login_required
def account():
    return _account_page()


def _account_page(new_token: str | None = None, status: int = 200):
    user = signed_in_user()
    with database().session(read_only=True) as s:  # fresh: sees a token made by this request
        bots = list_bots(s, user.id)
        tokens = list_tokens(s, user.id)
    page = render_template("account.html", tokens=tokens, bots=bots, new_token=new_token)
    return page, status


@accounts.post("/account/tokens")
@login_required
def create_token():
    label = request.form.get("label", "").strip()
    with database().session() as s:
        token = issue_token(s, signed_in_user(), label)
    # Shown once, on this response only; never stored in clear, never in a redirect URL.
    page, status = _account_page(new_token=token, status=201)
    return page, status, {"Cache-Control": "no-store"}


@accounts.post("/account/tokens/<int:token_id>/revoke")
@login_required
def revoke_token(token_id: int):
    with database().session() as s:
        if not revoke_token_id(s, signed_in_user().id, token_id):
            abort(404, "no such token of yours")
    return redirect(url_for("accounts.account"))
