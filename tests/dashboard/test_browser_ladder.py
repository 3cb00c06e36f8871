"""The standing ladder in a real browser (Playwright driving Debian's Chromium, headless):
the front page is the ladder, its ranking drawn with Elo bars, a newcomer's placement
badge beside it; an organiser pauses and resumes it with the page's button (a real form
post with its CSRF token). Skipped locally without chromium or playwright; failed under
CI=true."""

from __future__ import annotations

from tests.dashboard.conftest import XSS
from tests.dashboard.ladder_site import NEWCOMER, PLACEMENT, build
from tests.dashboard.test_browser import browser, page, served, shoot  # noqa: F401 (fixtures)
from tests.dashboard.users import PASSWORD, make_user


def test_the_front_page_shows_the_ladder_and_an_organiser_pauses_it(page, served):  # noqa: F811
    base, db, runtime = served
    build(db, runtime)
    page.goto(base + "/")
    assert page.locator("h1").inner_text() == "Ladder pagat"
    assert page.locator("#ladder-state .status").inner_text() == "playing"
    assert page.locator("table.board tbody tr").count() == 7  # 4 contestants, 3 anchors
    assert page.locator("table.board .bar").count() == 7
    assert page.get_by_role("link", name=XSS).count() == 1  # the name is text, not a tag
    badge = page.locator(f"ul.placing li:has-text('{NEWCOMER}') .badge.placement")
    assert badge.inner_text() == f"placement: 0 of {PLACEMENT} matches"
    assert page.get_by_role("button", name="Pause the ladder").count() == 0
    shoot(page, "ladder")

    make_user(db, "org", admin=True)
    page.goto(base + "/login?next=/")
    page.fill("input[name=name]", "org")
    page.fill("input[name=password]", PASSWORD)
    page.click("button:has-text('Log in')")
    page.wait_for_selector("[data-user='org']")
    page.click("button:has-text('Pause the ladder')")
    page.wait_for_selector("#ladder-state .status.paused")
    assert "ladder pagat paused" in page.locator(".flash").inner_text()
    page.click("button:has-text('Resume the ladder')")
    page.wait_for_selector("#ladder-state .status.playing")
    assert page.url == base + "/ladders/pagat"
