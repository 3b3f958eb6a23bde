"""Issue 27, points 5–7 over HTTP: `/app/api/live` answers 204 while nothing changed and the new
mark when anyone recorded (in the chat or the app), only for the token's own chat, never
counting against the chat's flood limit; `/app/api/qr` is the table's link as a QR code; the
Table page's totals of the sitting are /summary's."""

from __future__ import annotations

import re
import uuid
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from fractions import Fraction

import httpx
import pytest
import segno
from sqlalchemy.engine import Engine
from telegram import Update

from bot.chat.flood import FloodGuard
from bot.miniapp.live import Polls
from bot.presentation.numbers import fmt
from service import cards
from service.app import Place
from service.replies import Card
from storage.unit_of_work import reading
from tests.emulator.api import Chat as TelegramChat
from tests.integration.helpers import Chat
from tests.miniapp.kit import ANN, BOB, CAT, DAN, GROUP, MAX_AGE, STRANGER, AppKit, app_kit

ZIMO = {"kind": "hu", "clauses": [{"winner": 1, "how": "zimo", "qys": True}]}
OTHER = TelegramChat(-100600, "supergroup", title="other table")
LINK = "https://t.me/jifen_bot/table?startapp="


@pytest.fixture
async def kit(sqlite_engine: Engine) -> AsyncIterator[AppKit]:
    async for kit in app_kit(sqlite_engine):
        kit.app.bot_data["flood"] = FloodGuard(limit=20, window=10.0, clock=lambda: 1000.0)
        await kit.seat()
        await kit.open_app()
        yield kit


async def poll(http: httpx.AsyncClient, kit: AppKit, mark: str, **launch: object) -> httpx.Response:
    return await http.get(f"/app/api/live?v={mark}", headers=kit.headers(BOB, **launch))  # type: ignore[arg-type]


async def mark_of(http: httpx.AsyncClient, kit: AppKit) -> str:
    mark: str = (await http.get("/app/api/view", headers=kit.headers(BOB))).json()["live"]
    return mark


async def test_the_poll_is_204_until_anyone_records_then_the_new_mark(kit: AppKit) -> None:
    async with kit.client() as http:
        mark = await mark_of(http, kit)
        unchanged = await poll(http, kit, mark)
        assert (unchanged.status_code, unchanged.content) == (204, b"")
        await kit.say(CAT, "/hu Ann pao Bob")  # typed in the chat (not like the form below)
        changed = await poll(http, kit, mark)
        assert changed.status_code == 200
        new = changed.json()["v"]
        assert new != mark and new == await mark_of(http, kit)
        assert (await poll(http, kit, new)).status_code == 204
        body = {"key": str(uuid.uuid4()), "form": ZIMO}  # another phone records
        assert (await http.post("/app/api/record", headers=kit.headers(DAN), json=body)).json()[
            "ok"
        ]
        after_app = (await poll(http, kit, new)).json()["v"]
        marks = [mark, new, after_app]
        for command in ("/undo", "/dealer Cat", "/set stake 0.5", "/new 510k", "/reset confirm"):
            await kit.say(ANN, command)
            answer = await poll(http, kit, marks[-1])
            assert answer.status_code == 200, command
            marks.append(answer.json()["v"])
        assert len(set(marks)) == len(marks)
        first = await poll(http, kit, "")  # no mark yet: the current one
        assert first.json()["v"] == marks[-1]


async def test_polls_need_launch_data_and_a_member_of_the_token_s_chat(kit: AppKit) -> None:
    kit.api.add_chat(OTHER)
    kit.api.set_member(OTHER.id, CAT, "creator")
    kit.api.send_text(OTHER, CAT, "/app", None)
    for update in kit.api.take_updates():
        await kit.app.process_update(Update.de_json(update, kit.app.bot))
    other = kit.app.bot_data["service"].app.token(Place(OTHER.id))
    assert other != kit.token
    async with kit.client() as http:
        mark = await mark_of(http, kit)
        url = f"/app/api/live?v={mark}"
        assert (await http.get(url, headers={"X-Jifen-Chat": kit.token})).status_code == 401
        forged = await poll(http, kit, mark, key="123:FORGED")
        stale = await poll(http, kit, mark, age=MAX_AGE + 60)
        assert (forged.status_code, forged.content) == (401, b"")
        assert stale.status_code == 401
        stranger = await http.get(url, headers=kit.headers(STRANGER))
        assert (stranger.status_code, stranger.content) == (404, b"")
        for token in (other, str(OTHER.id), str(GROUP.id)):  # Bob is no member of OTHER
            headers = {**kit.headers(BOB), "X-Jifen-Chat": token}
            answer = await http.get(f"{url}&chat={OTHER.id}", headers=headers)
            assert (answer.status_code, answer.content) == (404, b"")
        cat_other = {**kit.headers(CAT), "X-Jifen-Chat": other}
        theirs = (await http.get("/app/api/live", headers=cat_other)).json()["v"]
        await kit.say(ANN, "/hu Ann zimo")  # a hand in GROUP changes nothing of OTHER's
        assert (await http.get(f"/app/api/live?v={theirs}", headers=cat_other)).status_code == 204
        assert (await poll(http, kit, mark)).status_code == 200
        for bad in ("NOTHEX", "a" * 33, "12-34"):
            assert (await poll(http, kit, bad)).status_code == 400


async def test_polls_never_count_against_the_chat_s_flood_limit(kit: AppKit) -> None:
    async with kit.client() as http:
        mark = await mark_of(http, kit)
        statuses = [(await poll(http, kit, mark)).status_code for _ in range(19)]
        assert statuses == [204] * 19  # 19 > what the flood limit leaves Bob (20 − 3)
        assert (await http.get("/app/api/view", headers=kit.headers(BOB))).status_code == 200
        assert [e.plain_text for e in await kit.say(BOB, "/standings")] != []


async def test_a_member_polling_far_too_fast_gets_429_with_retry_after(kit: AppKit) -> None:
    async with kit.client() as http:
        mark = await mark_of(http, kit)
        answers = [await poll(http, kit, mark) for _ in range(45)]
        other = await http.get(f"/app/api/live?v={mark}", headers=kit.headers(CAT))
    statuses = [a.status_code for a in answers]
    assert statuses[:20] == [204] * 20 and 429 in statuses
    refused = answers[statuses.index(429)]
    assert int(refused.headers["Retry-After"]) >= 1
    assert other.status_code == 204  # Cat's own bucket


def test_the_poll_limit_is_a_steady_pace_with_bursts() -> None:
    now = [0.0]
    polls = Polls(rate=2.0, burst=4.0, clock=lambda: now[0])
    assert [polls.take(1, 5) for _ in range(4)] == [0.0] * 4
    assert polls.take(1, 5) == pytest.approx(0.5)
    assert polls.take(2, 5) == 0.0 and polls.take(1, 6) == 0.0  # per member and chat
    now[0] += 0.5
    assert polls.take(1, 5) == 0.0 and polls.take(1, 5) > 0
    for _ in range(100):  # a page every 1.5 s, forever: never refused
        now[0] += 1.5
        assert polls.take(1, 5) == 0.0


def _matrix(svg: bytes) -> list[list[bool]]:
    """The modules segno's SVG path draws (`M x y` moves, `h n` dark runs, `m dx dy` moves)."""
    root = ET.fromstring(svg)
    [background, path] = root.findall("{http://www.w3.org/2000/svg}path")
    assert background.attrib["fill"] == "#fff" and path.attrib["stroke"] == "#000"
    size = int(root.attrib["viewBox"].split()[2])
    grid = [[False] * size for _ in range(size)]
    x = y = 0.0
    for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?", path.attrib["d"]):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            for i in range(int(float(a))):
                grid[int(y)][int(x) + i] = True
            x += float(a)
    return grid


async def test_the_qr_code_is_the_table_s_link_drawn_by_the_server(kit: AppKit) -> None:
    [entry] = await kit.say(DAN, "/app")
    link = entry.buttons[0][0]["url"]
    assert link == LINK + kit.token
    async with kit.client() as http:
        answer = await http.get("/app/api/qr", headers=kit.headers(BOB))
        unsigned = await http.get("/app/api/qr", headers={"X-Jifen-Chat": kit.token})
    assert answer.status_code == 200 and answer.headers["Content-Type"] == "image/svg+xml"
    assert answer.headers["Cache-Control"] == "no-store"
    root = ET.fromstring(answer.content)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and b"<script" not in answer.content
    code = segno.make(link, error="m", micro=False)
    border = 4
    expected = [[False] * (len(code.matrix) + 2 * border) for _ in range(border)]
    for row in code.matrix:
        expected.append([False] * border + [bool(m) for m in row] + [False] * border)
    expected += [[False] * (len(code.matrix) + 2 * border) for _ in range(border)]
    assert _matrix(answer.content) == expected
    assert (unsigned.status_code, unsigned.content) == (401, b"")


async def test_no_qr_code_without_the_app_s_name(kit: AppKit) -> None:
    settings = kit.app.bot_data["settings"]
    kit.app.bot_data["settings"] = settings.model_copy(update={"app_name": None})
    async with kit.client() as http:
        answer = await http.get("/app/api/qr", headers=kit.headers(BOB))
    assert (answer.status_code, answer.content) == (404, b"")


async def test_the_table_page_has_the_sitting_s_totals_of_the_seated_players(
    kit: AppKit,
) -> None:
    await kit.say(ANN, "/set stake 0.5")
    await kit.say(ANN, "/hu Ann zimo qys")
    await kit.say(ANN, "/hu Bob pao Cat")
    async with kit.client() as http:
        view = (await http.get("/app/api/view", headers=kit.headers(BOB))).json()
    totals = view["table"]["sitting"]
    assert totals["hands"] == 2 and totals["money"]
    assert totals["columns"] == ["Mahjong"] and len(totals["games"]) == 1
    names = [row["name"] for row in totals["rows"]]
    assert sorted(names) == sorted(s for s in view["table"]["seats"] if s)
    with reading(kit.app.bot_data["service"].uow.engine) as db:
        card = cards.night(db, GROUP.id)  # what /summary draws
    assert isinstance(card, Card)
    assert names == [line.name for line in card.lines]  # the card's order: best first
    assert [(row["amounts"], row["money"]) for row in totals["rows"]] == [
        ([fmt(dict(line.nets)["mahjong"], signed=True)], fmt(line.money or 0, signed=True))
        for line in card.lines
    ]
    assert totals["rows"][0] == {"name": "Ann", "seated": True, "amounts": ["+18"], "money": "+9"}
    assert sum(int(row["amounts"][0]) for row in totals["rows"]) == 0


async def test_the_sitting_s_totals_are_the_night_s_across_tables_and_games(kit: AppKit) -> None:
    """Issue 37, point 14: four mahjong hands, then a 510K hand and a 斗地主 round at tables
    opened after it: the Table page counts six hands, every game's nets and the money, as
    /summary's card and caption do, whichever table is open now."""
    await kit.say(ANN, "/set stake 0.5")
    for user, command in (
        (ANN, "/hu Ann zimo"),
        (BOB, "/hu Bob pao Cat"),
        (CAT, "/hu Cat zimo qys"),
        (DAN, "/liuju"),
        (ANN, "/new 510k"),
        (BOB, "/r 1=25 2=35 3=20 4=0/20 out 2 1 3"),
        (ANN, "/new free 斗地主"),
        (ANN, "/seats Ann Bob Cat"),
        (CAT, "/s 1+30 2-10.5 3"),
    ):
        await kit.say(user, command)
    async with kit.client() as http:
        view = (await http.get("/app/api/view", headers=kit.headers(BOB))).json()
    summary = "\n".join(e.plain_text for e in await kit.say(DAN, "/summary"))
    totals = view["table"]["sitting"]
    assert totals["hands"] == 6 and "6 hand(s)" in summary  # not the 斗地主 table's one
    assert [g["title"] for g in totals["games"]] == ["Mahjong", "510K", "斗地主"]
    assert [g["hands"] for g in totals["games"]] == ["4 hand(s)", "1 hand(s)", "1 hand(s)"]
    assert totals["columns"] == ["Mahjong", "510K", "斗地主"] and totals["money"]
    with reading(kit.app.bot_data["service"].uow.engine) as db:
        card = cards.night(db, GROUP.id)
    assert isinstance(card, Card)
    expected = [
        {
            "name": line.name,
            "seated": line.name in {"Ann", "Bob", "Cat"},  # Dan is not at the 斗地主 table
            "amounts": [
                fmt(dict(line.nets)[u], signed=True) if u in dict(line.nets) else None
                for u in card.units
            ],
            "money": fmt(line.money or 0, signed=True),
        }
        for line in card.lines
    ]
    assert totals["rows"] == expected
    assert {row["name"] for row in totals["rows"]} == {"Ann", "Bob", "Cat", "Dan"}
    dan = next(row for row in totals["rows"] if row["name"] == "Dan")
    assert dan["amounts"][2] is None  # not at the 斗地主 table
    for i in (0, 2):  # mahjong and 斗地主 sum to zero across the night's players (510K scores)
        assert sum(Fraction(row["amounts"][i] or 0) for row in totals["rows"]) == 0


def test_the_mark_changes_with_what_the_pages_show_on_both_backends(
    engine: Engine, chat_id: int
) -> None:
    chat = Chat(engine, chat_id, admins=("老王",))
    chat.seat("mahjong", "老王", "小李", "阿芳", "大刘")

    def mark(thread_id: int = 0) -> str:
        """The chat's mark as the live poll reads it (`Service.app.live`, by its link)."""
        found = chat.service.app.live(chat.service.app.token(Place(chat_id, thread_id)))
        assert found is not None and found.place == Place(chat_id, thread_id)
        return found.mark

    marks = [mark()]
    assert mark() == marks[0]  # nothing new: the same mark
    for name, text in (
        ("小李", "/hu 老王 zimo"),
        ("小李", "/undo"),
        ("老王", "/dealer 阿芳"),
        ("老王", "/set stake 2"),
        ("老王", "/seats 老王 小李 阿芳 小明"),
        ("老王", "/reset confirm"),
    ):
        chat.say(name, text)
        marks.append(mark())
    assert len(set(marks)) == len(marks)
    assert mark(7) != marks[-1]  # a topic has no open table
    chat.say("小李", "/standings")  # a view writes nothing
    assert mark() == marks[-1]
