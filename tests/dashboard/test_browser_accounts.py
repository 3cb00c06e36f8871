"""Accounts in a real browser (Playwright driving Debian's Chromium, headless): sign up,
upload sample_bots/random as a zip, watch it become valid without a reload, read its logs,
log out, sign up as another user and fail to see them.
Skipped locally without chromium, playwright or bwrap; failed under CI=true."""

from __future__ import annotations

from arena.sandbox import SandboxPolicy
from tests.dashboard.test_browser import browser, page, served, shoot  # noqa: F401 (fixtures)
from tests.services.conftest import SAMPLE_BOTS
from tests.submissions.conftest import zip_of
from tests.support import need_sandbox

PASSWORD = "a browser password"


def sign_up(tab, base: str, name: str) -> None:
    tab.goto(base + "/signup")
    tab.fill("input[name=name]", name)
    tab.fill("input[name=password]", PASSWORD)
    tab.fill("input[name=password2]", PASSWORD)
    tab.click("button:has-text('Sign up')")
    tab.wait_for_selector(f"[data-user='{name}']")


def test_sign_up_upload_watch_it_validate_and_keep_its_logs_private(page, served, tmp_path):  # noqa: F811
    need_sandbox(SandboxPolicy.from_env())
    base, _db, _runtime = served
    sign_up(page, base, "ann")

    archive = tmp_path / "random.zip"
    archive.write_bytes(zip_of(SAMPLE_BOTS / "random"))
    page.goto(base + "/bots/new")
    page.set_input_files("input[name=archive]", str(archive))
    page.click("button:has-text('Submit')")
    page.wait_for_url("**/bots/*?new=*")
    bot_url = page.url.partition("?")[0]
    version_id = page.url.rpartition("new=")[2]
    status = f"#version-{version_id} [data-field=status]"
    page.evaluate("window.sameDocument = true")  # gone if the page reloaded
    page.wait_for_function(
        f"document.querySelector('{status}').textContent !== 'pending'", timeout=180_000
    )
    reason = page.locator(f"#version-{version_id} [data-field=reason]").text_content()
    assert page.locator(status).text_content() == "valid", reason
    assert page.evaluate("window.sameDocument") is True
    shoot(page, "bot-submitted")

    page.click("a:has-text('Logs')")
    page.click("a:has-text('validation match')")
    assert page.locator("pre.log").count() == 1
    logs_url = page.url

    page.click("button:has-text('Log out')")
    page.wait_for_selector("a:has-text('Log in')")
    assert page.goto(logs_url).status == 404

    sign_up(page, base, "bob")
    answer = page.goto(logs_url)
    assert answer.status == 404 and "no such log" in page.content()
    assert page.goto(bot_url.rstrip("/") + "/logs/").status == 404
    page.goto(bot_url)
    assert page.locator("a:has-text('Logs')").count() == 0
    assert page.locator(f"{status}").text_content() == "valid"  # the verdict itself is public
