"""Issue 41, point 1 in Debian's Chromium: an open page follows its chat by a real EventSource,
without polling; a stream refused or told to give way makes it poll (and still follow); a
stream that ends is opened again by the browser."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.async_api import Page, Request

from bot.miniapp import events
from tests.miniapp.kit import ANN, BOB, CAT, AppKit
from tests.miniapp.test_browser import browser, kit, open_page, pytestmark
from tests.miniapp.test_live_browser import ready, shows

__all__ = ["browser", "kit", "pytestmark"]  # the fixtures and the mark of the browser tests

# Bounds for a loaded machine, not speed figures (`python -m bench.sse` measures the push: its
# p99 from commit to page): a page that asked `live` never had the change but by its stream.
PUSHED_MS = 10_000
POLLED_MS = 10_000  # a polling page asks every 1.5 s


def counting(page: Page) -> Callable[[str], int]:
    """How many requests the page made to an `/app/api/<name>` so far."""
    paths: list[str] = []

    def seen(request: Request) -> None:
        paths.append(request.url.split("/app/api/", 1)[-1].split("?")[0])

    page.on("request", seen)
    return paths.count


async def test_a_page_follows_the_chat_by_its_stream_without_polling(
    kit: AppKit, browser: object
) -> None:
    page = await open_page(browser, kit.url(BOB))
    asked = counting(page)  # type: ignore[arg-type]
    await ready(page)  # type: ignore[arg-type]
    await page.wait_for_timeout(300)  # type: ignore[attr-defined]
    for text in ("/hu Ann zimo", "/hu Bob pao Cat", "/undo"):
        await kit.say(ANN, text)
        await shows(page, kit, PUSHED_MS)  # type: ignore[arg-type]
    assert await page.evaluate("typeof EventSource") == "function"  # type: ignore[attr-defined]
    # Every change shown without one poll: by the stream (opened once; it may have been asked
    # for before `counting` was listening, as the page opens it while it loads)
    assert asked("live") == 0 and asked("events") <= 1
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_page_whose_stream_is_refused_polls_and_still_follows(
    kit: AppKit, browser: object
) -> None:
    async def no_stream(route: object) -> None:  # a worker that holds all the streams it may
        await route.fulfill(status=503, headers={"Retry-After": "60"}, body="")  # type: ignore[attr-defined]

    page = await open_page(browser, kit.url(BOB), {"**/app/api/events*": no_stream})
    asked = counting(page)  # type: ignore[arg-type]
    await ready(page)  # type: ignore[arg-type]
    await kit.say(ANN, "/hu Ann zimo")
    await shows(page, kit, POLLED_MS)  # type: ignore[arg-type]
    assert asked("live") >= 1
    assert await page.locator("#live").is_hidden()  # type: ignore[attr-defined]


async def test_a_page_that_gives_way_to_the_member_s_newer_ones_polls(
    kit: AppKit, browser: object
) -> None:
    oldest = await open_page(browser, kit.url(CAT))
    asked = counting(oldest)  # type: ignore[arg-type]
    await ready(oldest)  # type: ignore[arg-type]
    newer = [await open_page(browser, kit.url(CAT)) for _ in range(events.PER_MEMBER)]
    for page in newer:
        await ready(page)  # type: ignore[arg-type]
    await oldest.wait_for_timeout(2000)  # type: ignore[attr-defined]
    assert asked("live") >= 1  # evicted: it polls now
    await kit.say(ANN, "/hu Cat zimo")
    for page in (oldest, *newer):
        await shows(page, kit, POLLED_MS)  # type: ignore[arg-type]


async def test_a_stream_that_ends_is_opened_again_by_the_browser(
    kit: AppKit, browser: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(events, "LIFETIME", 1.0)  # as after ten minutes, or a worker stopping
    page = await open_page(browser, kit.url(BOB))
    asked = counting(page)  # type: ignore[arg-type]
    await ready(page)  # type: ignore[arg-type]
    await page.wait_for_timeout(6000)  # type: ignore[attr-defined]
    assert asked("events") >= 2 and asked("live") == 0
    await kit.say(ANN, "/hu Ann zimo")
    await shows(page, kit, PUSHED_MS + 1000)  # type: ignore[arg-type]
