"""Issue 37, points 13–15, in Debian's Chromium at a phone's 400 × 800: whatever the Record tab
answers to a tap (the preview of who pays whom, a rule's reason, the "same as #N" question, the
result) is in view wherever the form is scrolled; the Table page's totals are the night's, every
table and game; the page's previews have a budget of their own, and neither it nor the chat's
command limit leaves the Record button disabled. Screenshots go to jifen-out/screenshots/."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from playwright.async_api import Locator, Page

from bot.chat.flood import FloodGuard
from bot.miniapp.guard import PREVIEWS_LIMIT, PREVIEWS_WINDOW, VIEWS_LIMIT, VIEWS_WINDOW
from tests.miniapp.kit import ANN, BOB, CAT, DAN, GROUP, ZHANG, AppKit
from tests.miniapp.test_browser import SHOTS, browser, kit, open_page, pytestmark, tab, tap

__all__ = ["browser", "kit", "pytestmark"]  # the fixtures and the mark of the browser tests

PHONE = {"width": 400, "height": 800}
HAND = "11122233344455m"  # 清一色 by tiles
SAME = "This is the same as"
SLOW = re.compile("Slow down|请慢一点")

# Whether a node is seen: its top line inside the viewport, above the tabs, and what is drawn
# there is the node (nothing covers it).
IN_VIEW = """(node) => {
  const r = node.getBoundingClientRect();
  const floor = document.getElementById("tabs").getBoundingClientRect().top;
  const x = r.left + Math.min(12, r.width / 2), y = r.top + Math.min(12, r.height / 2);
  const hit = document.elementFromPoint(x, y);
  return r.height > 0 && r.top >= 0 && r.top + Math.min(r.height, 24) <= floor
    && hit !== null && node.contains(hit);
}"""


WHERE = """(node) => {
  const r = node.getBoundingClientRect(), tabs = document.getElementById("tabs");
  const hit = document.elementFromPoint(r.left + 12, r.top + 12);
  return { top: r.top, bottom: r.bottom, floor: tabs.getBoundingClientRect().top,
    scrollY, hit: hit && hit.outerHTML.slice(0, 160) };
}"""


async def phone(browser: Any, kit: AppKit, user: Any = BOB, page_tab: str = "record") -> Page:
    page: Page = await open_page(browser, kit.url(user))  # type: ignore[assignment]
    await page.set_viewport_size(PHONE)
    await page.wait_for_selector("#tabs button")
    await tab(page, page_tab)
    if page_tab == "record":
        await page.wait_for_selector("main .record")
    return page


async def seen(what: Locator, timeout: float = 4.0) -> bool:
    """Whether `what` shows and is in view within `timeout` seconds (the page settles: a
    record reloads the data)."""
    await what.wait_for()
    for _ in range(int(timeout / 0.1)):
        if await what.evaluate(IN_VIEW):
            return True
        await asyncio.sleep(0.1)
    print("not in view:", await what.evaluate(WHERE))
    return False


async def at(page: Page, where: str) -> None:
    """Scrolls the form to its top or its end, as a thumb would."""
    height = "0" if where == "top" else "document.body.scrollHeight"
    await page.evaluate(f"window.scrollTo(0, {height})")


async def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"phone-{name}.png"))


def preview(page: Page, text: str = "") -> Locator:
    """The preview of the form (who pays whom), in the dock."""
    return page.locator("main .dock .preview .card.hand", has_text=text)


def command(page: Page) -> Locator:
    """The command the preview is of."""
    return page.locator("main .dock .preview p.hint code")


async def tiles(page: Page, hand: str, pause: int = 0) -> int:
    """Taps the tiles of `hand` on the keyboard; the taps made."""
    taps = 0
    for digits, suit in re.findall(r"([1-9]+)([mpsz])", hand):
        for digit in digits:
            await page.click(f"main .tiles-keys button[data-tile='{digit}{suit}']")
            taps += 1
            if pause:
                await page.wait_for_timeout(pause)
    return taps


# --- point 13: what the page answers is in view -----------------------------------------


async def test_the_preview_the_question_and_the_result_are_in_view_at_400_by_800(
    kit: AppKit, browser: object
) -> None:
    page = await phone(browser, kit)
    assert await page.evaluate("document.body.scrollHeight") > PHONE["height"]  # a tall form
    await tap(page, "Ann")
    await tap(page, "自摸 self-draw")
    assert await seen(preview(page, "Ann"))  # who pays whom, below the chips tapped
    assert await page.evaluate("window.scrollY") == 0  # shown where it is, not scrolled to
    await at(page, "end")
    await tap(page, "清一色 one suit")  # a flag near the end of the form
    assert await seen(preview(page))
    assert await command(page).inner_text() == "/hu Ann zimo qys"
    await at(page, "top")
    await shot(page, "preview")
    record = page.locator("main .dock button.primary:not([disabled])")
    assert await seen(record)
    await record.click()
    assert await seen(page.locator("main .dock .result", has_text="#1"))
    assert await seen(page.locator("main .dock button.undo"))
    await at(page, "top")  # the same hand again, from the top of the form
    await tap(page, "Ann")
    await tap(page, "自摸 self-draw")
    await tap(page, "清一色 one suit")
    assert await seen(preview(page, SAME))  # the preview asks already
    await record.click()
    question = page.locator("main .dock .result", has_text=SAME)
    assert await seen(question)
    again = page.locator("main .dock button.chip", has_text=re.compile("^Record again$"))
    assert await seen(again)
    await shot(page, "again")
    seq = kit.api.last_seq
    await again.click()
    assert await seen(page.locator("main .dock .result", has_text="#2"))
    posted = [e for e in kit.api.outbox_since(seq, chat_id=GROUP.id) if e.action == "sent"]
    assert len(posted) == 1 and "#2" in posted[0].plain_text
    for label in ("Ann", "自摸 self-draw", "清一色 one suit"):  # once more: asked again
        await tap(page, label)
    assert await seen(preview(page, SAME))
    await record.click()
    assert await seen(question)
    await tap(page, "门清 concealed")  # another hand now: the question about the last goes
    assert await seen(preview(page))
    assert await command(page).inner_text() == "/hu Ann zimo qys mq"
    assert await page.locator("main .dock .result").count() == 0  # nor its buttons
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_refusal_and_a_preview_by_tiles_are_in_view_at_400_by_800(
    kit: AppKit, browser: object
) -> None:
    page = await phone(browser, kit)
    await tap(page, "Bob")
    await tap(page, "自摸 self-draw")
    await at(page, "end")
    await tap(page, "门清 concealed")
    assert await seen(preview(page))
    assert await command(page).inner_text() == "/hu Bob zimo mq"
    await tap(page, "全求人 four melds exposed")  # contradicts 门清: refused at this tap
    toast = page.locator("#toast.bad")
    assert await seen(toast)
    await at(page, "top")
    await tap(page, "🀄 By tiles")
    assert await tiles(page, "1112223334445m") == 13  # the tile keyboard: a screen of its own
    reason = page.locator("main .dock .reason")  # 13 tiles: not a hand yet, and why
    assert await seen(reason.filter(has_text="13 tiles given"))
    await page.click("main .tiles-keys button[data-tile='9p']")  # 14, but not a winning hand
    assert await seen(reason.filter(has_not_text="13 tiles given"))
    await page.click("main .tiles-hand button[data-held='9p']")
    await page.click("main .tiles-keys button[data-tile='5m']")
    assert await seen(preview(page))
    assert HAND in await command(page).inner_text()
    await shot(page, "tiles-preview")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_510k_report_s_preview_is_in_view_at_400_by_800(
    kit: AppKit, browser: object
) -> None:
    await kit.say(ANN, "/new 510k")
    page = await phone(browser, kit)
    for seat, field, value in (("1", "table", "25"), ("2", "table", "35"), ("3", "table", "20")):
        await page.fill(f"main input[data-seat='{seat}'][data-field={field}]", value)
    await page.fill("main input[data-seat='4'][data-field=table]", "0")
    await page.fill("main input[data-seat='4'][data-field=held]", "20")
    for name in ("Bob", "Ann", "Cat"):
        await page.locator("main [data-row=out] button.chip", has_text=name).click()
    assert await seen(preview(page))
    assert await command(page).inner_text() == "/r Ann=25 Bob=35 Cat=20 Dan=0/20 out Bob Ann Cat"
    await at(page, "top")
    assert await seen(preview(page))
    await shot(page, "510k-preview")
    assert page.errors == []  # type: ignore[attr-defined]


# --- point 14: the Table page at 400 × 800 ----------------------------------------------


async def test_the_table_page_counts_the_night_of_every_table_at_400_by_800(
    kit: AppKit, browser: object
) -> None:
    await kit.say(ANN, "/set stake 0.5")
    for user, command in (
        (ANN, "/hu Ann zimo"),
        (BOB, "/hu Bob pao Cat"),
        (CAT, "/hu Cat zimo qys"),
        (DAN, "/hu Dan pao Ann pph"),
        (ANN, "/new 510k"),
        (BOB, "/r 1=25 2=35 3=20 4=0/20 out 2 1 3"),
        (ANN, "/new free 斗地主"),
        (ANN, "/seats Ann Bob Cat"),
        (CAT, "/s 1+30 2-10.5 3"),
    ):
        await kit.say(user, command)
    summary = "\n".join(e.plain_text for e in await kit.say(DAN, "/summary"))
    assert "6 hand(s)" in summary
    page = await phone(browser, kit, page_tab="table")
    heading = page.locator("main h2", has_text="This sitting")
    assert await heading.inner_text() == "This sitting (6 hand(s))"  # not the 斗地主 table's 1
    games = await page.locator("main h2 + p.hint").inner_text()
    assert games == "Mahjong 4 hand(s) · 510K 1 hand(s) · 斗地主 1 hand(s)"
    head = await page.locator("main ul.sitting li.head").inner_text()
    assert head.split() == ["Mahjong", "510K", "斗地主", "Money"]
    rows = [
        r.split() for r in await page.locator("main ul.sitting li:not(.head)").all_inner_texts()
    ]
    assert sorted(r[0] for r in rows) == ["Ann", "Bob", "Cat", "Dan"]
    assert next(r for r in rows if r[0] == "Dan")[3] == "–"  # not at the 斗地主 table
    assert sum(float(r[4]) for r in rows) == 0  # the money of the night is square
    lines = await page.evaluate(
        """[...document.querySelectorAll("main ul.sitting li > *")].map((cell) => {
          const text = document.createRange();
          text.selectNodeContents(cell);
          return [cell.textContent, text.getClientRects().length];
        }).filter(([shown]) => shown)"""
    )
    assert [c for c in lines if c[1] != 1] == [], lines  # every name and figure on one line
    await page.locator("main ul.sitting").scroll_into_view_if_needed()
    await shot(page, "table")
    assert page.errors == []  # type: ignore[attr-defined]
    await kit.say(ANN, "/set lang zh")  # the same page in Chinese
    zh = await phone(browser, kit, ZHANG, page_tab="table")
    assert await zh.locator("main h2", has_text="本场合计").inner_text() == "本场合计（6 局）"
    head = await zh.locator("main ul.sitting li.head").inner_text()
    assert head.split() == ["麻将", "510K", "斗地主", "钱"]
    await zh.locator("main ul.sitting").scroll_into_view_if_needed()
    await shot(zh, "table-zh")
    assert zh.errors == []  # type: ignore[attr-defined]


# --- point 15: previews have a budget of their own --------------------------------------


def budgets(
    kit: AppKit, *, flood: FloodGuard | None = None, previews: FloodGuard | None = None
) -> None:
    """The bot's budgets as `build_application` keeps them (flood (20, 10 s) in production)."""
    data = kit.app.bot_data
    data["flood"] = FloodGuard(limit=20, window=10.0) if flood is None else flood
    data["views"] = FloodGuard(limit=VIEWS_LIMIT, window=VIEWS_WINDOW)
    default = FloodGuard(limit=PREVIEWS_LIMIT, window=PREVIEWS_WINDOW)
    data["previews"] = default if previews is None else previews  # (an empty guard is falsy)


async def test_taps_on_the_tile_keyboard_never_use_up_the_member_s_commands(
    kit: AppKit, browser: object
) -> None:
    """28 taps in 7 s, each asking for a preview: no "Slow down", the Record button ready."""
    budgets(kit)
    page = await phone(browser, kit)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/preview") else None)
    await tap(page, "Ann")
    await tap(page, "自摸 self-draw")
    await tap(page, "🀄 By tiles")
    start = await page.evaluate("performance.now()")
    count = await tiles(page, "1112223334445m", pause=220)
    for code in ("1m", "2m", "3m", "4m", "5m", "1m", "2m"):  # out and in again
        await page.click(f"main .tiles-hand button[data-held='{code}']")
        await page.wait_for_timeout(220)
        await page.click(f"main .tiles-keys button[data-tile='{code}']")
        await page.wait_for_timeout(220)
        count += 2
    await page.click("main .tiles-keys button[data-tile='5m']")
    count += 1
    elapsed = await page.evaluate("performance.now()") - start
    assert count == 28 and elapsed < 9000, (count, elapsed)
    assert await seen(preview(page))
    assert HAND in await command(page).inner_text()
    assert len(asked) >= 21, len(asked)
    assert await page.locator("main", has_text=SLOW).count() == 0
    assert await page.locator("#toast.bad").count() == 0
    seq = kit.api.last_seq
    await page.click("main .dock button.primary:not([disabled])")
    assert await seen(page.locator("main .dock .result", has_text="#1"))
    assert len(kit.api.outbox_since(seq, chat_id=GROUP.id)) == 1
    typed = "\n".join(e.plain_text for e in await kit.say(BOB, "/standings"))
    assert typed.startswith("Standings of") and not SLOW.search(typed)
    assert page.errors == []  # type: ignore[attr-defined]


async def test_over_the_previews_budget_the_record_button_stays_ready_and_the_preview_returns(
    kit: AppKit, browser: object
) -> None:
    """A budget of 3 previews in 3 s: the 4th tap is not refused by the rules (nothing undone),
    the dock says why no preview shows, the Record button is ready, and the preview comes back
    by itself once the budget allows it."""
    budgets(kit, previews=FloodGuard(limit=3, window=3.0))
    page = await phone(browser, kit)
    await tap(page, "Ann")
    for label in ("自摸 self-draw", "清一色 one suit", "清一色 one suit", "门清 concealed"):
        await tap(page, label)  # every one a complete form: a preview each
    limited = page.locator("main .dock .limited", has_text=SLOW)
    assert await seen(limited)
    pressed = page.locator("main .record button.chip[aria-pressed=true]", has_text="门清")
    assert await pressed.count() == 1  # kept: the budget is no rule
    assert await page.locator("#toast.bad").count() == 0
    assert await page.is_enabled("main .dock button.primary")
    await shot(page, "previews-limited")
    assert await seen(preview(page))  # asked again after the wait
    assert await command(page).inner_text() == "/hu Ann zimo mq"
    assert await page.locator("main .dock .limited").count() == 0
    for label in ("清一色 one suit", "清一色 one suit", "清一色 one suit"):
        await tap(page, label)  # over it again: Record goes through all the same
    await limited.wait_for()
    seq = kit.api.last_seq
    await page.click("main .dock button.primary:not([disabled])")
    assert await seen(page.locator("main .dock .result", has_text="#1"))
    posted = [e for e in kit.api.outbox_since(seq, chat_id=GROUP.id) if e.action == "sent"]
    assert len(posted) == 1 and "/hu Ann zimo qys mq" in posted[0].plain_text
    assert page.errors == []  # type: ignore[attr-defined]


async def test_over_the_command_limit_the_record_button_is_not_left_disabled(
    kit: AppKit, browser: object
) -> None:
    """Commands typed in the chat use up the member's limit (3 in 3 s here): Record says so,
    and the same button records once the limit allows it."""
    budgets(kit, flood=FloodGuard(limit=3, window=3.0))
    page = await phone(browser, kit)
    await tap(page, "流局 no winner")
    for _ in range(3):
        await kit.say(BOB, "/standings")
    seq = kit.api.last_seq
    record = page.locator("main .dock button.primary")
    await record.click()
    toast = page.locator("#toast.bad", has_text=SLOW)
    assert await seen(toast)
    assert kit.api.outbox_since(seq, chat_id=GROUP.id) == []
    assert await record.is_enabled()
    await page.wait_for_timeout(3200)
    await record.click()
    assert await seen(page.locator("main .dock .result", has_text="#1"))
    posted = [e for e in kit.api.outbox_since(seq, chat_id=GROUP.id) if e.action == "sent"]
    assert len(posted) == 1 and "/liuju" in posted[0].plain_text
    assert page.errors == []  # type: ignore[attr-defined]
