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

from bot.commands import labels
from bot.i18n import translator
from bot.miniapp import texts
from scoring import KongKind, WinType
from tests.emulator.api import Chat, OutboxEntry, User
from tests.miniapp.kit import ANN, BOB, GROUP, PLAYERS, ZHANG, AppKit, app_kit
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
    page.set_default_timeout(8000)
    await page.add_init_script(PROXY)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    await page.goto(twin.kit.url(user))
    await page.click("#tabs button[data-tab=record]")
    await page.wait_for_selector("main .record")
    return page


def chip(page: Any, label: str) -> Any:
    """A chip by its label; `from:Bob`: in the row of that name (several rows name players)."""
    row, _, label = label.rpartition(":") if re.match(r"^[a-z]+:", label) else ("", "", label)
    exact = re.compile(f"^{re.escape(label)}$")
    scope = f"main .record [data-row={row}]" if row else "main .record"
    return page.locator(f"{scope} button.chip:not([disabled])", has_text=exact).first


async def tap(page: Any, *labels: str) -> None:
    for label in labels:
        await chip(page, label).click()


async def saved(page: Any, twin: Twin, name: str = "") -> str:
    """Waits for the preview, records, and returns the message the app posted in the group;
    with a `name`, screenshots of the preview and of the result."""
    seq = twin.kit.api.last_seq
    preview = page.locator("main .preview .card.hand")
    try:
        await preview.wait_for()
    except playwright_api.TimeoutError:
        raise AssertionError(await page.inner_text("main .record")) from None
    shown = await preview.inner_text()
    if name:
        await page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        await page.screenshot(path=str(SHOTS / f"record-{name}-preview.png"))
    async with page.expect_response(re.compile(r"/app/api/record$")) as response:
        await page.click("main button.primary:not([disabled])")
    answer = await (await response.value).json()
    try:
        await page.locator("main .primary", has_text=re.compile("^(Record it|记下来)$")).wait_for()
        await page.locator("main .result").wait_for()
    except playwright_api.TimeoutError:
        raise AssertionError(f"{answer}\n{await page.inner_text('main')}") from None
    posted = [e for e in twin.kit.api.outbox_since(seq, chat_id=GROUP.id) if e.action == "sent"]
    assert len(posted) == 1, posted
    text = posted[0].plain_text
    assert " ".join(shown.split()) in " ".join(text.split())  # the preview is the reply
    result = " ".join((await page.inner_text("main .result")).split())
    assert result in " ".join(text.split())  # and stays on screen after saving
    if name:
        await page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        await page.wait_for_timeout(2600)  # the toast is gone
        await page.screenshot(path=str(SHOTS / f"record-{name}-saved.png"))
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
    posted = await saved(page, twin, f"{lang}-{width}-510k-{case['id']}" if i in (1, 5) else "")
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


async def test_every_box_keeps_its_value_and_focus_while_the_form_updates(
    twin: Twin, browser: Any
) -> None:
    """Golden K03 typed box by box (the first two out on opposite teams): nothing is lost."""
    await seat(twin, "510k", PLAYERS, "en")
    page = await open_app(twin, browser, BOB, 360)
    boxes = [("1", "table", "25"), ("2", "table", "35"), ("3", "table", "20"), ("4", "table", "0")]
    boxes.append(("4", "held", "20"))
    for seat_no, field, value in boxes:
        await page.click(f"main input[data-seat='{seat_no}'][data-field={field}]")
        await page.keyboard.type(value, delay=30)
        focused = await page.evaluate("document.activeElement.dataset.seat")
        assert focused == seat_no  # typing never loses the box, whatever the page redraws
    await page.wait_for_timeout(400)  # a preview asked for meanwhile comes back
    assert await page.evaluate("document.activeElement.dataset.field") == "held"
    await tap(page, "Bob", "Ann")  # opposite teams: not complete yet, and not refused
    await page.wait_for_timeout(300)
    assert await page.locator("#toast.bad").count() == 0
    assert await page.locator("main .preview *").count() == 0  # not judged: not finished
    assert await page.is_disabled("main button.primary")
    await tap(page, "Cat")
    values = [
        await page.input_value(f"main input[data-seat='{s}'][data-field={f}]") for s, f, _ in boxes
    ]
    assert values == [v for _, _, v in boxes]
    chips = await page.locator("main .record button.chip[aria-pressed=true]").all_inner_texts()
    assert [c for c in chips if re.match(r"\d\. ", c)] == [
        "2. Ann",
        "1. Bob",
        "3. Cat",
    ]  # seat order
    await page.locator("main .preview .card.hand").wait_for()
    await shot(page, "en-360-510k-K03-preview")
    posted = await saved(page, twin)
    assert "/r Ann=25 Bob=35 Cat=20 Dan=0/20 out Bob Ann Cat" in posted
    await same_as_typed(twin, posted, "/r 1=25 2=35 3=20 4=0/20 out 2 1 3")
    await shot(page, "en-360-510k-K03-saved")


# --- mahjong: a sample of the golden cases, a kong, a drawn hand -------------------------

SAMPLE = ("M002", "M012", "M021", "M033", "M049", "M078", "M108", "M117", "M123", "M135")
WORD = {"dianpao": "pao", "haidilao": "haidi"}  # the typed word of a way to win, where not its name
FROM = {"dianpao", "gangpao", "qianggang", "quanqiupao", "haidipao"}
CHAINED = {"gangkai", "gangpao", "qianggang"}
CONCEALED = {"tianhu", "dihu", "renhu"}  # concealed anyway: 门清 is not tapped


def label(lang: str, msgid: str) -> str:
    return translator(lang).gettext(msgid)


def golden_taps(case: dict[str, Any], lang: str) -> tuple[list[str], str]:
    """The chips to tap for a golden case (Cat wins; Bob discards or gave the kong), and the
    same hand as typed (seat numbers)."""
    how = case["win"]
    taps = ["winner:Cat", label(lang, labels.WIN[WinType(how)])]
    words = ["/hu", "3", WORD.get(how, how)]
    if how in FROM:
        taps.append("from:Bob")
        words.append("2")
    if how in CHAINED and case.get("chain"):
        taps.append(str(case["chain"]))
        words.append(str(case["chain"]))
    pattern = case["pattern"]
    if pattern == "qidui":
        pattern = f"qidui{case['groups']}"
    if pattern != "jihu":
        taps.append(label(lang, labels.PATTERN[pattern]))
        words.append({"pengpenghu": "pph", "qidui0": "qidui"}.get(pattern, pattern))
    concealed = how in CONCEALED or pattern.startswith("qidui")
    for flag, word in (("qingyise", "qys"), ("menqing", "mq"), ("quanqiuren", "qqr")):
        if case[flag] and not (flag == "menqing" and concealed):
            taps.append(label(lang, labels.FLAG[flag]))
            words.append(word)
    return taps, " ".join(words)


def kongs(case: dict[str, Any]) -> list[str]:
    return [f"/gang 3 {k}" + (" 2" if k != "an" else "") for k in case.get("kongs", [])]


@pytest.mark.parametrize("case_id", SAMPLE)
async def test_a_sample_of_golden_mahjong_cases_recorded_by_taps(
    twin: Twin, browser: Any, case_id: str
) -> None:
    case = next(c for c in MAHJONG if c["id"] == case_id)
    lang, width = look(SAMPLE.index(case_id))
    await seat(twin, "mahjong", PLAYERS, lang)
    await twin.both(ANN, *kongs(case))
    page = await open_app(twin, browser, user_of(lang), width)
    taps, command = golden_taps(case, lang)
    await tap(page, *taps)
    shown = case_id in ("M049", "M117")
    posted = await saved(page, twin, f"{lang}-{width}-mahjong-{case_id}" if shown else "")
    await same_as_typed(twin, posted, command)
    pays = case["pays"]
    amount = pays.get("discarder") or pays.get("liable") or pays["each"]
    assert f"→ Cat {amount}" in posted.replace("→  ", "→ ")


@pytest.mark.parametrize(("lang", "width"), [("en", 420), ("zh", 360)])
async def test_a_kong_then_a_drawn_hand_recorded_by_taps(
    twin: Twin, browser: Any, lang: str, width: int
) -> None:
    await seat(twin, "mahjong", PLAYERS, lang)
    page = await open_app(twin, browser, user_of(lang), width)
    await tap(page, label(lang, texts.PAGE["kong"]), "Dan", label(lang, labels.KONG[KongKind.MING]))
    await tap(page, "from:Bob")
    posted = await saved(page, twin)
    await same_as_typed(twin, posted, "/gang 4 ming 2")
    await tap(page, label(lang, texts.PAGE["liuju"]))
    posted = await saved(page, twin)
    await shot(page, f"{lang}-{width}-liuju")
    await same_as_typed(twin, posted, "/liuju")


async def test_a_hand_by_tiles_in_the_record_tab(twin: Twin, browser: Any) -> None:
    await seat(twin, "mahjong", PLAYERS, "en")
    page = await open_app(twin, browser, BOB, 420)
    await tap(page, "Ann", "自摸 self-draw", "🀄 By tiles")
    for digits, suit in re.findall(r"([1-9]+)([mpsz])", "11122233344455m"):
        for digit in digits:
            await page.click(f"main .tiles-keys button[data-tile='{digit}{suit}']")
    await shot(page, "en-420-tiles")
    posted = await saved(page, twin)
    assert "Tiles: 111m 222m 333m 444m 55m" in posted
    await same_as_typed(twin, posted, "/hu 1 zimo 11122233344455m")


# --- a free table: a round with a balancing player, a transfer, Undo ----------------------


@pytest.mark.parametrize(("lang", "width"), [("zh", 360), ("en", 420)])
async def test_a_free_round_a_transfer_and_undo_recorded_by_taps(
    twin: Twin, browser: Any, lang: str, width: int
) -> None:
    await seat(twin, "free 斗地主", PLAYERS[:3], lang)
    page = await open_app(twin, browser, user_of(lang), width)
    await page.fill("main input[data-seat='1']", "30")
    await page.click("main button.sign[data-sign='2']")  # the sign key phones lack
    await page.fill("main input[data-seat='2']", "10.5")
    await tap(page, "balance:Cat")
    assert await page.get_attribute("main input[data-seat='3']", "placeholder") == "-19.5"
    await page.locator("main .preview .card.hand").wait_for()
    await shot(page, f"{lang}-{width}-free-round")
    posted = await saved(page, twin)
    await same_as_typed(twin, posted, "/s 1+30 2-10.5 3")
    await tap(page, label(lang, texts.PAGE["transfer"]), "payer:Cat", "payee:Ann")
    await page.fill("main input.amount", "5")
    posted = await saved(page, twin)
    await same_as_typed(twin, posted, "/pay 3 1 5")
    seq = twin.kit.api.last_seq
    await page.click("main button.undo")
    await page.locator("main .result", has_text="↩️").wait_for()
    assert await page.locator("main button.undo").count() == 0
    undone = [e.plain_text for e in twin.kit.api.outbox_since(seq, chat_id=GROUP.id)]
    assert len(undone) == 1 and "↩️" in undone[0]
    await twin.text(TWIN, "/undo")
    assert await twin.text(GROUP, "/standings") == await twin.text(TWIN, "/standings")
    await page.click("#tabs button[data-tab=standings]")
    heading = await page.inner_text("main h2")
    assert "斗地主" in heading and "free:" not in heading
    await shot(page, f"{lang}-{width}-free-standings")
    assert page.errors == []


async def test_the_same_round_again_asks_and_record_again_records_it_once(
    twin: Twin, browser: Any
) -> None:
    """The two-minute rule in the app: the same round again shows the question, nothing is
    recorded until [Record again], and a double tap records it once."""
    await seat(twin, "free 斗地主", PLAYERS[:3], "en")
    page = await open_app(twin, browser, BOB, 420)
    await page.fill("main input[data-seat='1']", "30")
    await page.fill("main input[data-seat='2']", "-30")
    assert "round #1" in await saved(page, twin)  # the form is empty again once it is saved
    await page.fill("main input[data-seat='1']", "30")
    await page.fill("main input[data-seat='2']", "-30")
    await page.locator("main .preview .card.hand", has_text="This is the same as").wait_for()
    seq = twin.kit.api.last_seq
    await page.click("main button.primary:not([disabled])")
    question = page.locator("main .result", has_text="This is the same as")
    await question.wait_for()
    await shot(page, "en-420-again")
    assert twin.kit.api.outbox_since(seq, chat_id=GROUP.id) == []  # nothing recorded yet
    again = page.locator("main button.chip", has_text=re.compile("^Record again$"))
    await again.dblclick()
    await page.locator("main .result", has_text="#2").wait_for()
    posted = [e for e in twin.kit.api.outbox_since(seq, chat_id=GROUP.id) if e.action == "sent"]
    assert len(posted) == 1 and "#2" in posted[0].plain_text, posted
    standings = " ".join((await twin.text(GROUP, "/standings")).split())
    assert "Ann +60" in standings and "Bob -60" in standings, standings
    assert page.errors == []


async def test_the_record_button_once_ready_stays_ready(twin: Twin, browser: Any) -> None:
    """Two quick taps, the first leaving the form incomplete: only the complete form is
    previewed, and the ready Record button is not taken back by a late preview of the first."""
    await seat(twin, "mahjong", PLAYERS, "en")
    page = await open_app(twin, browser, BOB, 360)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/preview") else None)
    dihu = label("en", labels.WIN[WinType.DIHU])
    await page.evaluate(
        """(how) => {
          window.flips = [];
          const button = document.querySelector("main button.primary");
          new MutationObserver(() => window.flips.push(button.disabled))
            .observe(button, { attributes: true, attributeFilter: ["disabled"] });
          const chips = (row) => [...document.querySelectorAll(`main .record ${row} button.chip`)];
          chips("[data-row=winner]").find((b) => b.textContent === "Cat").click();
          chips("").find((b) => b.textContent === how).click();  // in the same moment
        }""",
        dihu,
    )
    await page.locator("main .preview .card.hand").wait_for()
    await page.wait_for_timeout(600)  # past the typing pause of the first tap
    flips: list[bool] = await page.evaluate("window.flips")
    assert flips and not flips[-1], flips  # ready
    assert True not in flips[flips.index(False) :], flips  # and never taken back
    assert len(asked) == 1, asked
    await saved(page, twin)
