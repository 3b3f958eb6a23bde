"""The tile keyboard (static/tiles.js) in a real headless Chromium, on its own page
(/app/tiles.html, opened with launch data as the app is): the 34 tiles drawn, taps adding and
removing tiles and bracketing groups, the notation it emits, and the preview of the hand (the
service's dry run: nothing recorded) in both languages; and a tiles hand in the app's history.
Screenshots go to jifen-out/screenshots/."""

# ruff: noqa: F811  (the tests take test_browser's fixtures, imported here, as parameters)

from __future__ import annotations

import re

import pytest

from tests.miniapp.kit import ANN, BOB, ZHANG, AppKit
from tests.miniapp.test_browser import SHOTS, browser, kit, open_page, tab  # noqa: F401

pytestmark = pytest.mark.slow


def tiles_url(kit: AppKit, user: object) -> str:
    return kit.url(user).replace("/app/#", "/app/tiles.html#")  # type: ignore[arg-type]


async def tap_tiles(page: object, codes: str) -> None:
    """Taps keys: `111m2p` taps 1m three times, then 2p."""
    for digits, suit in re.findall(r"([1-9]+)([mpsz])", codes):
        for digit in digits:
            await page.click(f".tiles-keys button[data-tile='{digit}{suit}']")  # type: ignore[attr-defined]


async def preview(page: object, *contains: str) -> str:
    box = page.locator("#preview")  # type: ignore[attr-defined]
    for text in contains:
        await box.filter(has_text=text).wait_for()
    return str(await box.inner_text())


async def test_the_keyboard_draws_emits_and_previews_the_hand(kit: AppKit, browser: object) -> None:
    seq = kit.api.last_seq
    page = await open_page(browser, tiles_url(kit, BOB))
    await page.wait_for_selector(".tiles-keys button[data-tile='7z']")
    faces = page.locator(".tiles-keys svg.tile-face")
    assert await faces.count() == 34
    labels = {await faces.nth(i).get_attribute("aria-label") for i in range(34)}
    assert len(labels) == 34 and "五万 5m" in labels and "中 5z" in labels
    await tap_tiles(page, "1111m")  # a fifth 1m cannot be tapped
    assert await page.is_disabled(".tiles-keys button[data-tile='1m']")
    await page.click(".tiles-hand button[data-held='1m']")  # tap a tile of the hand: out
    await tap_tiles(page, "222333444m55m")
    text = await preview(page, "Tiles: 111m 222m 333m 444m 55m", "Bob → Ann 16")
    assert "碰碰胡 all pungs" in text and "清一色 one suit" in text and "门清 concealed" in text
    assert await page.evaluate("jifenTiles.notation") == "11122233344455m"
    assert await page.inner_text("#command") == "/hu Ann zimo 11122233344455m"
    await page.click(".tiles-hand button[data-held='5m']")
    await preview(page, "13 tiles given, 14 needed")
    await page.screenshot(path=str(SHOTS / "en-tiles-pph.png"), full_page=True)

    await page.click(".tiles-modes button[data-clear]")
    await page.click(".chips button:text-is('点炮 on a discard')")
    await page.click(".chips:nth-child(3) button:text-is('2. Bob')")
    await page.click(".tiles-modes button[data-mode='pung']")
    assert "Now tap the tile of the group." in await page.inner_text(".tiles-status")
    await tap_tiles(page, "7p 123m 456m 789s 55s")
    assert await page.evaluate("jifenTiles.notation") == "[777p] 123456m55789s"
    text = await preview(page, "Tiles: [777p] 123m 456m 789s 55s", "Bob → Ann 2")
    assert await page.inner_text("#command") == "/hu Ann pao Bob [777p] 123456m55789s"
    for _ in range(3):  # 789s out: room for a concealed kong
        await page.click(".tiles-hand button[data-held$='s']:not([data-held='5s'])")
    await page.click(".tiles-modes button[data-mode='concealed']")
    await tap_tiles(page, "9m")
    assert await page.evaluate("jifenTiles.notation") == "[777p] (9999m) 123456m55s"
    text = await preview(page, "Tiles: [777p] (9999m) 123m 456m 55s", "Bob → Ann 2")
    assert "Cat → Ann 1 · 暗杠 concealed kong" in text  # recorded with the hand, as /gang would
    await page.click(".tiles-hand button[data-meld='0']")  # tap a group: the whole group out
    assert await page.evaluate("jifenTiles.notation") == "(9999m) 123456m55s"
    await preview(page, "12 tiles given, 15 needed")
    await page.click(".tiles-modes button[data-mode='kong']")
    await tap_tiles(page, "7p")
    await preview(page, "exposed kong [7777p]", "no kong of Ann was recorded")
    await page.screenshot(path=str(SHOTS / "en-tiles-groups.png"), full_page=True)
    assert [e for e in kit.api.outbox_since(seq) if e.action == "sent"] == []  # nothing posted
    assert "No hands" in "\n".join(e.plain_text for e in await kit.say(BOB, "/history"))
    assert page.errors == []


async def test_the_preview_speaks_the_chats_language(kit: AppKit, browser: object) -> None:
    await kit.say(ANN, "/set lang zh")  # an admin's setting
    page = await open_page(browser, tiles_url(kit, ZHANG))
    await page.wait_for_selector(".tiles-keys button[data-tile='1m']")
    assert "暗杠" in await page.inner_text(".tiles-modes")
    await page.evaluate("jifenTiles.set('11335577m99p1144s')")
    text = await preview(page, "手牌：11m 33m 55m 77m 99p 11s 44s", "七小对")
    assert "Bob → Ann 8" in text
    await page.screenshot(path=str(SHOTS / "zh-tiles-qidui.png"), full_page=True)
    assert page.errors == []


async def test_a_tiles_hand_is_drawn_in_the_apps_history(kit: AppKit, browser: object) -> None:
    await kit.say(BOB, "/hu Ann pao Bob [777p] 123m456m789s55s")
    page = await open_page(browser, kit.url(BOB))
    await page.wait_for_selector("#tabs button")
    await tab(page, "history")
    row = page.locator("main .card .tiles-row")
    await row.wait_for()
    assert await row.locator("svg.tile-face").count() == 14
    assert await row.locator(".tiles-pung svg").count() == 3
    assert "Tiles: [777p] 123m 456m 789s 55s" in await page.inner_text("main")
    await page.screenshot(path=str(SHOTS / "en-history-tiles.png"), full_page=True)
    assert page.errors == []
