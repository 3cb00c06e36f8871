"""A rejected version diagnosed in a real browser (Playwright driving Debian's Chromium,
headless): its owner goes from the bot page's versions table to the validation match, and
from its diagnosis to the failing step of the replay; logged out, the match is a 404.
Skipped locally without chromium or playwright; failed under CI=true."""

from __future__ import annotations

import re

from arena.registry import validate_stored
from arena.runtime import Runtime
from arena.submissions import submit_version
from tests.dashboard.test_browser import browser, page, served, shoot  # noqa: F401
from tests.dashboard.test_browser_pages import WAIT, log_in, log_out
from tests.dashboard.users import make_user
from tests.referee.conftest import copy_bot_dir
from tests.submissions.conftest import zip_of
from tests.support import HOSTILE_BOTS, POLICY, need_sandbox


def test_the_owner_steps_from_the_bot_page_to_the_failing_decision(
    page,  # noqa: F811
    served,  # noqa: F811
    tmp_path,
):
    need_sandbox(POLICY)
    base, db, served_runtime = served
    runtime = Runtime(served_runtime.settings, policy=POLICY)
    owner = make_user(db, "diagnoser")
    bot = copy_bot_dir(HOSTILE_BOTS / "crashes_in_a_later_game", tmp_path / "bots")
    upload = zip_of(bot)
    version_id = submit_version(
        db, runtime, owner.id, upload, filename="later.zip", validate=lambda *_: None
    )
    judged = validate_stored(db, runtime, version_id)
    assert judged.status == "rejected"

    log_in(page, base, "diagnoser")
    page.goto(f"{base}/bots/{judged.bot_id}")
    shoot(page, "validation-versions")
    page.locator(f"#version-{version_id} a.diagnose").click()
    page.wait_for_selector("#diagnosis", timeout=WAIT)
    assert "Validation of hostile-crashes-in-a-later-game@1.0.0" in page.inner_text("#diagnosis h2")
    assert "crash" in page.inner_text("#diagnosis")
    match_url = page.url.split("#")[0]
    page.click("#failing-step")
    page.wait_for_function("!document.querySelector('#fault').hidden", timeout=WAIT)
    assert "crash" in page.inner_text("#fault")  # the viewer stands at the failing decision
    assert re.fullmatch(r"#g3-d2-s\d+", page.evaluate("location.hash"))
    shoot(page, "validation-diagnosis")

    log_out(page)
    reply = page.goto(match_url)
    assert reply is not None and reply.status == 404
