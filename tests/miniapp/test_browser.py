"""The Mini App in a real headless Chromium (Debian's `chromium`, driven by Playwright; never a
downloaded browser): opened with launch data as Telegram passes it, a hand recorded by taps and
seen in the standings, the chart and the group; refused launches; the console's local app.
Screenshots of every page in both languages go to jifen-out/screenshots/."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from tests.miniapp.kit import ANN, BOB, GROUP, MAX_AGE, STRANGER, ZHANG, AppKit, app_kit

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = Path(__file__).parents[2] / "jifen-out" / "screenshots"
PAGES = ("standings", "history", "settle", "seasons", "table", "record")
PHONE = {"width": 360, "height": 740}  # a small phone

if not CHROMIUM.exists() and not os.environ.get("JIFEN_REQUIRE_BROWSER"):
    pytest.skip(
        "no /usr/bin/chromium (apt-get install chromium fonts-noto-cjk)", allow_module_level=True
    )
if os.environ.get("JIFEN_REQUIRE_BROWSER"):  # CI: a missing piece fails, never skips
    import playwright.async_api as playwright_api
else:
    playwright_api = pytest.importorskip("playwright.async_api")


@pytest.fixture
async def browser() -> AsyncIterator[object]:
    async with playwright_api.async_playwright() as p:
        chromium = await p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        await chromium.close()


@pytest.fixture
async def kit(sqlite_engine: Engine) -> AsyncIterator[AppKit]:
    async for kit in app_kit(sqlite_engine):
        await kit.seat()
        await kit.open_app()
        yield kit


# What a mobile client provides: postEvent, whose calls the tests read back.
PROXY = "window.posted = []; window.TelegramWebviewProxy = {postEvent: (t, d) => posted.push(t)};"


async def open_page(browser: object, url: str, routes: dict[str, Any] | None = None) -> object:
    """A phone-sized page at `url` (`routes`: Playwright's handlers of its requests, by URL
    pattern, from the start)."""
    page = await browser.new_page(viewport=PHONE)  # type: ignore[attr-defined]
    await page.add_init_script(PROXY)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    for pattern, handler in (routes or {}).items():
        await page.route(pattern, handler)
    await page.goto(url)
    return page


async def tab(page: object, name: str) -> None:
    await page.click(f"#tabs button[data-tab={name}]")  # type: ignore[attr-defined]


async def tap(page: object, label: str) -> None:
    """A chip by its exact label, once the page is idle (no check running)."""
    chip = page.locator(  # type: ignore[attr-defined]
        "button.chip:not([disabled])", has_text=re.compile(f"^{re.escape(label)}$")
    )
    await chip.first.click()


async def idle(page: object) -> None:
    await page.wait_for_selector("button.primary:not(:has-text('…'))")  # type: ignore[attr-defined]


async def shoot(page: object, lang: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name in PAGES:
        await tab(page, name)
        await page.wait_for_timeout(150)  # type: ignore[attr-defined]
        await page.screenshot(path=str(SHOTS / f"{lang}-{name}.png"))  # type: ignore[attr-defined]


async def test_a_hand_recorded_by_taps_shows_in_standings_chart_and_group(
    kit: AppKit, browser: object
) -> None:
    await kit.say(ANN, "/set stake 0.5")  # Ann is the group's creator
    await kit.say(ANN, "/gang Cat an")
    page = await open_page(browser, kit.url(BOB))
    await page.wait_for_selector("#tabs button")
    assert await page.inner_text("main h1") == "Season 1"
    assert {"web_app_ready", "web_app_expand"} <= set(await page.evaluate("posted"))
    color = "getComputedStyle(document.documentElement).getPropertyValue('--button').trim()"
    assert await page.evaluate(color) == "#3390ec"  # the launch's theme
    change = {"theme_params": {"button_color": "#ff0000"}}
    await page.evaluate(f"Telegram.WebView.receiveEvent('theme_changed', {json.dumps(change)})")
    assert await page.evaluate(color) == "#ff0000"
    change["theme_params"]["button_color"] = "#3390ec"
    await page.evaluate(f"Telegram.WebView.receiveEvent('theme_changed', {json.dumps(change)})")
    assert "Kong recorded" in await (await _tab_text(page, "table"))
    await tab(page, "record")
    seq = kit.api.last_seq
    await tap(page, "Ann")
    await tap(page, "自摸 self-draw")
    await idle(page)
    await tap(page, "门清 concealed")
    await idle(page)
    await tap(page, "全求人 four melds exposed")  # contradicts 门清: refused at this tap
    toast = page.locator("#toast.bad")
    await toast.wait_for()
    assert "cannot be" in await toast.inner_text()
    assert await page.locator("button.chip[aria-pressed=true]", has_text="全求人").count() == 0
    await idle(page)
    assert await page.inner_text("main code") == "/hu Ann zimo mq"
    await page.click("button.primary")
    await page.locator("#toast:not(.bad)", has_text="Recorded").wait_for()
    await tab(page, "standings")
    rows = await page.locator("main ul.rows li").all_inner_texts()
    assert rows[0].split() == ["1.", "Ann", "+11"], rows
    posted = [e for e in kit.api.outbox_since(seq, chat_id=GROUP.id) if e.action == "sent"]
    assert len(posted) == 1 and posted[0].plain_text.startswith("Bob in the app: /hu Ann zimo mq")
    assert posted[0].buttons[0][0]["callback_data"].startswith("v1:undo:")
    chat = "\n".join(e.plain_text for e in await kit.say(BOB, "/standings"))
    assert all(" ".join(row.split()) in chat for row in rows)  # the chat's very numbers
    assert await page.locator("svg.chart path").count() == 4
    await tab(page, "history")
    await page.locator("button.chip", has_text="Cat").click()
    assert "/hu Ann zimo mq" in await page.inner_text("main")
    await shoot(page, "en")
    zh = await open_page(browser, kit.url(ZHANG))
    await zh.wait_for_selector("#tabs button")
    # The app speaks the chat's language (set by its first command), not the launcher's.
    assert await zh.inner_text("#tabs button[data-tab=standings]") == "Standings"
    await kit.say(ANN, "/set lang zh")  # a Chinese chat: the same pages in Chinese
    await zh.reload()
    await zh.wait_for_selector("#tabs button")
    assert await zh.inner_text("#tabs button[data-tab=standings]") == "积分榜"
    await shoot(zh, "zh")
    assert page.errors == [] and zh.errors == []


async def _tab_text(page: object, name: str) -> object:
    await tab(page, name)
    return page.inner_text("main")  # type: ignore[attr-defined]


async def test_a_double_tap_records_once(kit: AppKit, browser: object) -> None:
    page = await open_page(browser, kit.url(BOB))
    await page.wait_for_selector("#tabs button")
    await tab(page, "record")
    await tap(page, "流局 no winner")
    await page.dblclick("button.primary")
    await page.locator("#toast:not(.bad)").wait_for()
    assert [
        e.plain_text.split("\n")[0] for e in kit.api.outbox_since(0) if "in the app" in e.plain_text
    ] == ["Bob in the app: /liuju"]


@pytest.mark.parametrize(
    "launch",
    [{"key": "123:FORGED"}, {"age": MAX_AGE + 60}, {"user": STRANGER}],
    ids=["forged", "stale", "non-member"],
)
async def test_a_forged_stale_or_non_member_launch_sees_nothing(
    kit: AppKit, browser: object, launch: dict[str, object]
) -> None:
    await kit.say(ANN, "/hu Ann zimo")
    user = launch.pop("user", BOB)
    page = await open_page(browser, kit.url(user, **launch))  # type: ignore[arg-type]
    await page.wait_for_selector("main p")
    text = await page.inner_text("main")
    assert text.strip() in ("⚠️ 401", "⚠️ 404") and "Ann" not in text
    assert await page.locator("#tabs button").count() == 0


async def test_the_consoles_local_app_opens(tmp_path: Path, browser: object) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "console", "--app", "--db", str(tmp_path / "c.sqlite3")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "JIFEN_DATA_DIR": str(tmp_path)},
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for line in (
            "me: /new mahjong",
            "me: /join",
            "Bob: /join",
            "Cat: /join",
            "Dan: /join",
            "me: /hu me zimo qys",
        ):
            process.stdin.write(line + "\n")
        process.stdin.flush()
        url = await asyncio.to_thread(_url_line, process.stdout)
        assert url.startswith("http://127.0.0.1:")
        page = await open_page(browser, url)
        await page.wait_for_selector("main ul.rows li")
        rows = await page.locator("main ul.rows li").all_inner_texts()
        assert rows[0].split() == ["1.", "me", "+18"]
        await page.screenshot(path=str(_shot("console-standings.png")), full_page=True)
    finally:
        process.stdin.close()
        process.wait(timeout=30)


def _url_line(stdout: object) -> str:
    """The Mini App's URL, once the console has answered the hand too (the URL comes first)."""
    url = ""
    for line in stdout:  # type: ignore[attr-defined]
        if line.startswith("Mini App"):
            url = str(line.split(": ", 1)[1].strip())
        elif url and line.startswith("Net this hand:"):
            return url
    raise AssertionError(f"the console printed no Mini App URL and hand: {url!r}")


def _shot(name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS / name


async def test_a_hand_edited_at_phone_size_shows_the_difference_first(
    kit: AppKit, browser: object
) -> None:
    """Issue 38: ✎ Edit opens the Record form filled with the hand; its preview is the
    correction's (each player's change) before it is saved; saving corrects #1 in place, posts
    it in the group, and History marks it ✎. A double tap on Save corrects it once."""
    await kit.say(ANN, "/hu Ann pao Bob")
    await kit.say(ANN, "/hu Cat zimo")
    page = await open_page(browser, kit.url(BOB))
    await page.wait_for_selector("#tabs button")
    await tab(page, "history")
    await page.click("button.chip.edit[data-edit='1']")
    await page.locator("p.editing", has_text="#1").wait_for()
    assert await page.locator("button.chip[aria-pressed=true]", has_text="Ann").count() >= 1
    await idle(page)
    await tap(page, "清一色 one suit")
    await idle(page)
    preview = await page.inner_text("div.preview")
    assert "#1 corrected" in preview and "Bob -2 → -" in preview, preview
    await page.screenshot(path=str(_shot("en-edit-preview.png")))
    seq = kit.api.last_seq
    await page.dblclick("button.primary")
    await page.locator("#toast:not(.bad)", has_text="Corrected").wait_for()
    posted = [e for e in kit.api.outbox_since(seq, chat_id=GROUP.id) if e.action == "sent"]
    assert len(posted) == 1 and "#1 corrected" in posted[0].plain_text
    history = "\n".join(e.plain_text for e in await kit.say(BOB, "/history"))
    assert "#1 ✎" in history and "qys" in history and "#3" not in history
    await tab(page, "history")
    assert "✎" in await page.inner_text("main")
    assert page.errors == []
