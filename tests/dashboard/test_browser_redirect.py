"""The open redirect once found in a real browser (Playwright driving Debian's Chromium):
logging in from ``/login?next=/%09/evil.example/`` must land on this site, whatever the
browser makes of tabs and slashes. Skipped locally without chromium; failed under CI=true."""

from __future__ import annotations

from tests.dashboard.test_browser import browser, page, served  # noqa: F401 (fixtures)
from tests.dashboard.users import PASSWORD, make_user


def test_logging_in_with_a_smuggled_next_lands_on_this_site(page, served):  # noqa: F811
    base, db, _runtime = served
    make_user(db, "rita")
    elsewhere: list[str] = []
    page.route("**/*", lambda route: _stay_here(route, base, elsewhere))
    page.goto(base + "/login?next=/%09/evil.example/")
    page.fill("input[name=name]", "rita")
    page.fill("input[name=password]", PASSWORD)
    page.click("button:has-text('Log in')")
    page.wait_for_selector("[data-user='rita']")
    assert page.url == base + "/account" and not elsewhere, (page.url, elsewhere)


def _stay_here(route, base: str, elsewhere: list[str]) -> None:
    """Requests to this site go through; any other is noted and never leaves the machine."""
    if route.request.url.startswith(base + "/"):
        route.continue_()
    else:
        elsewhere.append(route.request.url)
        route.abort()
