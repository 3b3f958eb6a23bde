"""Issue 27, points 5–7 in Debian's Chromium: an open page follows hands recorded in the chat and
from a second phone without reloading, says so when it is offline and recovers; the Table page
shows the sitting's totals and the QR code of the table's link; the chart's axes are labeled.
Screenshots at 360 and 420 px in both languages go to /tmp/jifen-live-shots/."""

from __future__ import annotations

import re
import uuid
from fractions import Fraction
from pathlib import Path

from playwright.async_api import Page

from tests.miniapp.kit import ANN, BOB, CAT, ZHANG, AppKit
from tests.miniapp.test_browser import browser, kit, open_page, pytestmark, tab, tap

__all__ = ["browser", "kit", "pytestmark"]  # the fixtures and the mark of the browser tests

SHOTS = Path("/tmp/jifen-live-shots")
FOLLOW_MS = 4000  # a page polls every 1.5 s: a change shows well within this
ROWS = "main ul.rows li"
LIUJU = {"kind": "liuju"}
PANDA = "🐼Panda"  # a guest with an emoji in the name


async def ready(page: Page) -> None:
    await page.wait_for_selector("#tabs button")
    await page.evaluate("window.notReloaded = true")


async def chat_rows(kit: AppKit) -> list[str]:
    """The standings as the chat shows them, a line per player ("1. Ann +9")."""
    text = "\n".join(e.plain_text for e in await kit.say(BOB, "/standings"))
    return [" ".join(line.split()) for line in text.split("\n") if re.match(r"\d+\. ", line)]


async def shows(page: Page, kit: AppKit, timeout: int = FOLLOW_MS) -> None:
    """The page's standings become the chat's, within `timeout` ms, without a reload."""
    expected = await chat_rows(kit)
    assert expected, "the chat's standings have rows"
    await page.wait_for_function(
        """(expected) => JSON.stringify([...document.querySelectorAll("main ul.rows li")]
          .map((li) => li.innerText.trim().split(/\\s+/).join(" ")))
          === JSON.stringify(expected)""",
        arg=expected,
        timeout=timeout,
    )
    assert await page.evaluate("window.notReloaded") is True


async def test_a_page_follows_the_chat_and_another_phone_without_reloading(
    kit: AppKit, browser: object
) -> None:
    await kit.say(ANN, "/hu Ann zimo")
    first = await open_page(browser, kit.url(BOB))
    second = await open_page(browser, kit.url(CAT))
    for page in (first, second):
        await ready(page)
    rows = await first.locator(ROWS).all_inner_texts()
    assert " ".join(rows[0].split()) == "1. Ann +9"
    await kit.say(ANN, "/hu Bob zimo qys")  # typed in the chat
    await first.locator(ROWS).first.filter(has_text="Bob").wait_for(timeout=FOLLOW_MS)
    await shows(first, kit)
    await tab(first, "history")
    hu = {"kind": "hu", "clauses": [{"winner": 3, "how": "zimo"}]}
    body = {"key": str(uuid.uuid4()), "form": hu}
    recorded = await second.evaluate(
        "async (body) => (await (await import('/app/telegram.js')).api('record', body)).ok", body
    )
    assert recorded  # the second phone recorded through the page's own client
    hand = first.locator("main .card .hand", has_text="/hu Cat zimo")
    await hand.wait_for(timeout=FOLLOW_MS)  # the history shows it, the page never reloaded
    await tab(first, "standings")
    await shows(first, kit)
    await shows(second, kit)
    await kit.say(ANN, "/undo")  # an undo shows too
    await shows(first, kit)
    assert first.errors == [] and second.errors == []  # type: ignore[attr-defined]


async def test_a_page_that_can_neither_stream_nor_poll_says_it_is_offline_and_recovers(
    kit: AppKit, browser: object
) -> None:
    async def refuse(route: object) -> None:
        await route.fulfill(status=429, headers={"Retry-After": "1"}, body="{}")  # type: ignore[attr-defined]

    async def no_stream(route: object) -> None:
        await route.fulfill(status=503, body="")  # type: ignore[attr-defined]

    routes = {"**/app/api/events*": no_stream, "**/app/api/live*": refuse}
    page = await open_page(browser, kit.url(BOB), routes)
    await ready(page)
    badge = page.locator("#live")
    await badge.wait_for(state="visible", timeout=FOLLOW_MS)
    assert "Offline" in await badge.inner_text()
    await page.unroute("**/app/api/live*")
    await kit.say(ANN, "/hu Ann zimo")  # recorded while the page was offline
    await badge.wait_for(state="hidden", timeout=8000)  # the next poll, after its backoff
    await shows(page, kit)


async def _played(kit: AppKit) -> None:
    await kit.say(ANN, "/set stake 0.5")
    await kit.say(ANN, f"/seats Ann Bob Cat {PANDA}")
    for command in ("/hu Ann zimo", f"/hu {PANDA} pao Bob qys", "/hu Cat zimo mq", "/liuju"):
        await kit.say(ANN, command)
    for i in range(9):  # not the same hand twice in a row: that would ask first
        await kit.say(ANN, "/hu Bob pao Cat" if i % 2 else "/hu Bob pao Ann")


async def test_the_table_page_has_the_sitting_and_the_qr_code_and_the_chart_its_axes(
    kit: AppKit, browser: object
) -> None:
    await _played(kit)
    page = await open_page(browser, kit.url(BOB))
    await ready(page)
    y = await page.locator("svg.chart text.y").all_text_contents()
    x = await page.locator("svg.chart text.x").all_text_contents()
    assert "0" in y and len(y) >= 3, y
    assert len(x) >= 3 and x[-1] == "#13", x
    await tab(page, "table")
    rows = await page.locator("main ul.sitting li:not(.head)").all_inner_texts()
    standings = {row.split()[1]: row.split()[2] for row in await chat_rows(kit)}
    assert [r.split()[0] for r in rows] == list(standings)  # the card's order: best first
    for row in rows:  # the whole season is this sitting here; money: points × the stake 0.5
        name, points, money = row.split()
        assert points == standings[name] and Fraction(money) == Fraction(points) / 2, row
    image = page.locator("main .qr img")
    await image.wait_for()
    assert await image.evaluate("(img) => img.complete && img.naturalWidth > 0")
    emoji = await page.evaluate("document.fonts.check('16px \"Noto Color Emoji\"', '🐼')")
    assert emoji
    assert page.errors == []  # type: ignore[attr-defined]


async def test_screenshots_at_360_and_420_px_in_both_languages(
    kit: AppKit, browser: object
) -> None:
    await _played(kit)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang, user in (("en", BOB), ("zh", ZHANG)):
        for width in (360, 420):
            page = await open_page(browser, kit.url(user))
            await page.set_viewport_size({"width": width, "height": 780})
            await ready(page)
            for name in ("standings", "table", "history"):
                await tab(page, name)
                await page.wait_for_timeout(300)
                await page.screenshot(
                    path=str(SHOTS / f"{lang}-{width}-{name}.png"), full_page=True
                )
            edge = await page.evaluate(
                "(() => { const b = [...document.querySelectorAll('#tabs button')].at(-1);"
                " const r = b.getBoundingClientRect(); const s = document.createRange();"
                " s.selectNodeContents(b); const t = s.getBoundingClientRect();"
                " return [innerWidth - r.right, innerWidth - t.right]; })()"
            )
            assert edge[1] >= 8, (lang, width, edge)  # the last label keeps off the edge
            assert page.errors == []  # type: ignore[attr-defined]
            await page.close()


async def test_a_form_being_filled_in_is_not_redrawn_by_a_change(
    kit: AppKit, browser: object
) -> None:
    page = await open_page(browser, kit.url(BOB))
    await ready(page)
    await tab(page, "record")
    await tap(page, "Ann")
    pressed = page.locator("button.chip[aria-pressed=true]", has_text="Ann")
    assert await pressed.count() == 1
    mark = "document.querySelector('main').lastElementChild.dataset"
    await page.evaluate(f"{mark}.untouched = 'yes'")  # a redrawn page would lose it
    await kit.say(CAT, "/gang Cat an")  # the page learns of it, but leaves the form alone
    await page.wait_for_timeout(FOLLOW_MS)
    assert await page.evaluate(f"{mark}.untouched") == "yes"
    assert await pressed.count() == 1
    await tab(page, "table")  # the other pages show it
    assert "Kong" in await page.inner_text("main")
