"""Sign up, log in, log out, the account page (API tokens, one's bots), and the organisers'
invite codes."""

from __future__ import annotations

from flask import Blueprint, abort, jsonify, redirect, render_template, request, url_for

from arena.accounts.invites import (
    InviteError,
    create_invites,
    expire_invite,
    invite_problem,
    list_invites,
    redeem_invite,
)
from arena.accounts.throttle import (
    Limits,
    forgive,
    login_blocked,
    reserve_login,
    reserve_signup,
    signup_blocked,
)
from arena.accounts.tokens import list_tokens, revoke_token_id
from arena.store import StoreError, authenticate, create_user, issue_token, list_bots
from dashboard.auth import admin_required, log_in, log_out, login_required, signed_in_user
from dashboard.db import database
from dashboard.submitting import runtime
from dashboard.targets import local_path

accounts = Blueprint("accounts", __name__)
TOO_MANY = "too many failed log-ins for this account or from this address: try again later"
TOO_MANY_SIGNUPS = (
    "too many sign-ups from this address in the last hour: try again later, "
    "or sign up with an invite code from your organiser"
)
TOO_MANY_CODES = "too many wrong invite codes from this address in the last hour: try again later"


def _next_page() -> str:
    """Where to go after logging in: a path on this site only (never ``//elsewhere``)."""
    return local_path(request.values.get("next", "")) or url_for("accounts.account")


@accounts.route("/signup", methods=["GET", "POST"])
def signup():
    if request.method == "GET":
        return render_template("signup.html", invite=request.args.get("invite", ""))
    form = request.form
    name, password = form.get("name", ""), form.get("password", "")
    code = form.get("invite", "").strip()
    if password != form.get("password2", ""):
        return _signup_refused("the two passwords differ", 400, name, code)
    address = request.remote_addr or "unknown"
    with database().session() as s:  # counted, refused or not, before anything is checked
        reserved = reserve_signup(s, address, invited=bool(code))
    with database().session(read_only=True) as s:
        if signup_blocked(s, address, Limits.from_settings(runtime().settings), bool(code)):
            return _signup_refused(TOO_MANY_CODES if code else TOO_MANY_SIGNUPS, 429, name, code)
        problem = invite_problem(s, code) if code else None
    if problem is not None:  # a wrong code stays counted
        return _signup_refused(problem, 400, name, code)
    if code:  # a valid one is not counted against the address, whatever comes of it
        with database().session() as s:
            forgive(s, reserved)
    try:
        with database().session() as s:  # the code's use is given back if this fails
            if code:
                redeem_invite(s, code)
            user = create_user(s, name, password)
    except (StoreError, InviteError) as exc:
        return _signup_refused(str(exc), 400, name, code)
    log_in(user)
    return redirect(url_for("accounts.account"))


def _signup_refused(error: str, status: int, name: str, invite: str):
    return render_template("signup.html", error=error, name=name, invite=invite), status


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
        forgive(s, reserved)
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


@accounts.get("/invites")
@admin_required
def invites():
    return _invites_page()


def _invites_page(new_codes: list[str] | None = None, status: int = 200, **extra):
    with database().session(read_only=True) as s:  # fresh: sees what this request made
        rows = list_invites(s)
    page = render_template("invites.html", invites=rows, new_codes=new_codes or [], **extra)
    return page, status, {"Cache-Control": "no-store"}


@accounts.post("/invites")
@admin_required
def create_invite():
    """New codes, shown on this response only (as a token is)."""
    form = request.form
    try:
        count, uses = int(form.get("count", "")), int(form.get("uses", ""))
        hours = float(form.get("hours", ""))
    except ValueError:
        return _invites_page(status=400, error="count, uses and hours must be numbers")
    try:
        with database().session() as s:
            codes = create_invites(s, count, uses, hours, form.get("label", ""), signed_in_user())
    except InviteError as exc:
        return _invites_page(status=400, error=str(exc))
    return _invites_page(codes, 201, uses=uses, hours=hours)


@accounts.post("/invites/<int:invite_id>/expire")
@admin_required
def end_invite(invite_id: int):
    with database().session() as s:
        if not expire_invite(s, invite_id):
            abort(404, "no such invite")
    return redirect(url_for("accounts.invites"), 303)
