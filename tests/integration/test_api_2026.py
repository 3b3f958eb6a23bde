"""Issue 40, points 3-5, through the real Application over the emulator: the command menus per
role and language (the exact setMyCommands calls, sent only when they differ), /standings,
/settle money and /summary as Rich Message tables (the exact sendRichMessage, and the text
where the API refuses it, asked once per process), and guest mode (guest_message updates,
answerGuestQuery; a redelivered guest update recorded once)."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from telegram import Update

from bot.app import build_application, set_menu
from bot.chat.flood import FloodGuard
from bot.commands import catalog
from bot.i18n import translator
from bot.settings import Settings
from service.context import Actor, Ctx
from service.core import Service
from service.errors import ServiceError
from service.replies import StandingsView
from service.requests import Standings
from tests.emulator.api import Chat, FakeApiError, FakeBotApi, OutboxEntry, User
from tests.emulator.request import EmulatorRequest

_ids = itertools.count(1)  # chats and update ids unique across the session's PostgreSQL
PLAYERS = [
    User(301 + i, name, username=name.lower(), language_code="en")
    for i, name in enumerate(("Ann", "Bob", "Cat", "Dan"))
]
ANN, BOB, CAT, DAN = PLAYERS
WANG = User(401, "老王", language_code="zh-hans")
JSON = dict[str, Any]


@dataclass
class Harness:
    api: FakeBotApi
    app: Any
    calls: list[tuple[str, JSON]]
    group: Chat
    outside: Chat  # a chat that never added the bot

    def called(self, method: str) -> list[JSON]:
        return [params for name, params in self.calls if name == method]

    async def process(self, update: JSON) -> list[OutboxEntry]:
        seq = self.api.last_seq
        self.api.take_updates()
        await self.app.process_update(Update.de_json(update, self.app.bot))
        return self.api.outbox_since(seq)

    async def say(self, user: User, text: str) -> list[OutboxEntry]:
        return await self.process(self.api.send_text(self.group, user, text))

    async def guest(self, user: User, text: str) -> list[OutboxEntry]:
        return await self.process(self.api.guest_message(self.outside, user, text))


def recording(api: FakeBotApi, calls: list[tuple[str, JSON]]) -> None:
    """Every call the bot makes, with its parameters as the API got them."""
    call = api.call

    def recorded(method: str, params: Any = None) -> Any:
        calls.append((method, dict(params or {})))
        return call(method, params)

    api.call = recorded  # type: ignore[method-assign]


def failing(api: FakeBotApi, method: str, error: FakeApiError) -> None:
    """`method` answers `error` (as Telegram answers ok: false)."""

    def refuse(params: JSON) -> Any:
        raise error

    setattr(api, f"_m_{method.lower()}", refuse)


def application(engine: Engine, api: FakeBotApi, **settings: Any) -> Any:
    config = Settings.given(
        token="123:TEST",
        database_url=str(engine.url),
        rate_limit=False,
        flood=None,
        **settings,
    )
    return build_application(
        config, engine=engine, request=EmulatorRequest(api), updates_request=EmulatorRequest(api)
    )


@pytest.fixture
def make(engine: Engine) -> Callable[..., Any]:
    """A started bot over a fresh emulator (`setup` prepares the emulator before start)."""

    async def start(setup: Callable[[FakeBotApi], None] = lambda api: None) -> Harness:
        n = next(_ids)
        group = Chat(-100_700_000 - n, "supergroup", title="night")
        outside = Chat(-100_800_000 - n, "supergroup", title="never added the bot")
        api = FakeBotApi(first_update_id=9_000_000 + 1000 * n)
        api.add_chat(group)
        for user in (*PLAYERS, WANG):
            api.set_member(group.id, user, "member")
        api.set_member(group.id, ANN, "creator")
        calls: list[tuple[str, JSON]] = []
        recording(api, calls)
        setup(api)
        app = application(engine, api)
        await app.initialize()
        await app.post_init(app)
        started.append(app)
        return Harness(api, app, calls, group, outside)

    started: list[Any] = []
    return start


@pytest.fixture
async def bot(make: Callable[..., Any]) -> AsyncIterator[Harness]:
    harness = await make()
    yield harness
    await harness.app.shutdown()
    await harness.app.post_shutdown(harness.app)


# ---------------------------------------------------------------- point 3: the menus


def lines(lang: str, commands: tuple[catalog.Command, ...]) -> list[JSON]:
    say = translator(lang).gettext
    return [
        {"command": c.name, "description": say(c.menu or "")}
        | ({"is_ephemeral": True} if c.ephemeral else {})
        for c in commands
    ]


async def test_each_role_sees_its_menu_in_both_languages(bot: Harness) -> None:
    admins = [c.name for c in catalog.ADMIN_MENU]
    assert admins[: len(catalog.MENU)] == [c.name for c in catalog.MENU]
    assert set(admins[len(catalog.MENU) :]) == {"reset", "set", "merge", "link"}
    assert not {"reset", "set", "merge", "link"} & {c.name for c in catalog.MENU}
    assert [c.name for c in catalog.PRIVATE_MENU] == ["me", "mine", "help"]
    assert {c.name for c in catalog.COMMANDS if c.ephemeral} == {"me", "mine"}
    scopes = {
        "all_group_chats": catalog.MENU,
        "all_chat_administrators": catalog.ADMIN_MENU,
        "all_private_chats": catalog.PRIVATE_MENU,
    }
    for kind, commands in scopes.items():
        for lang, code in (("en", ""), ("zh", "zh")):
            shown = bot.api.commands({"type": kind}, code)
            assert shown == lines(lang, commands), (kind, lang)
    admin_zh = bot.api.commands({"type": "all_chat_administrators"}, "zh")
    zh = {c["command"]: c["description"] for c in admin_zh}
    assert zh["reset"] != translator("en").gettext(catalog.BY_NAME["reset"].menu or "")
    # the exact requests: a scope object and a language code per list
    sent = bot.called("setMyCommands")
    assert {(p["scope"]["type"], p.get("language_code")) for p in sent} == {
        (kind, code) for kind in (*scopes, "default") for code in (None, "zh")
    }
    for params in sent:
        assert set(params) <= {"commands", "scope", "language_code"}
        assert all(
            set(c)
            == {"command", "description"} | ({"is_ephemeral"} if c.get("is_ephemeral") else set())
            for c in params["commands"]
        )


async def test_the_menus_are_sent_once_across_restarts_and_workers(bot: Harness) -> None:
    first = len(bot.called("setMyCommands"))
    assert first == 8
    await set_menu(bot.app)  # a restart, or a second worker beside the first
    assert len(bot.called("setMyCommands")) == first
    assert len(bot.called("getMyCommands")) == 16  # each list compared before it is sent


async def test_a_refused_menu_does_not_stop_the_bot_and_the_app_button_stays(
    engine: Engine,
) -> None:
    api = FakeBotApi(first_update_id=9_000_000 + 1000 * next(_ids))
    calls: list[tuple[str, JSON]] = []
    recording(api, calls)
    failing(api, "setMyCommands", FakeApiError(400, "Bad Request: BOT_COMMAND_INVALID"))
    app = application(engine, api, app_name="table", app_url="https://bot.example.com/app/")
    async with app:
        await app.post_init(app)
        assert api.commands({"type": "all_group_chats"}) == []
        [button] = [p for name, p in calls if name == "setChatMenuButton"]
        assert button["menu_button"]["type"] == "web_app"
        assert button["menu_button"]["web_app"]["url"] == "https://bot.example.com/app/"
        assert api.call("getChatMenuButton", {})["type"] == "web_app"


# ---------------------------------------------------------------- point 4: tables


async def play(bot: Harness) -> None:
    await bot.say(ANN, "/new free")
    await bot.say(ANN, "/seats Ann Bob Cat")
    await bot.say(ANN, "/s Ann+30 Bob-10 Cat")
    await bot.say(BOB, "/s Bob+5 Cat-5 Ann")


def table_rows(params: JSON) -> list[list[str]]:
    blocks = params["rich_message"]["blocks"]
    tables = [b for b in blocks if b["type"] == "table"]
    return [[cell.get("text", "") for cell in row] for t in tables for row in t["cells"]]


async def test_standings_as_a_compact_table_with_the_texts_content(bot: Harness) -> None:
    await play(bot)
    [text] = await bot.say(CAT, "/standings")  # the emulator is an older API: text
    [refused] = bot.called("sendRichMessage")
    bot.api.rich_messages = True
    bot.app.bot_data.pop("rich_refused")  # a new process, on a server that takes them
    [rich] = await bot.say(CAT, "/standings")
    assert rich.media_kind == "rich"
    params = bot.called("sendRichMessage")[-1]
    assert refused == params
    assert params["chat_id"] == bot.group.id
    assert set(params) == {"chat_id", "rich_message", "reply_markup"}  # [我的账]
    [[mine]] = params["reply_markup"]["inline_keyboard"]
    assert mine["callback_data"] == "v1:mine"
    blocks = params["rich_message"]["blocks"]
    assert set(params["rich_message"]) == {"blocks"}
    assert blocks[0] == {"type": "heading", "text": "Standings of season 1:", "size": 3}
    [table] = [b for b in blocks if b["type"] == "table"]
    assert table["is_compact"] is True and table["is_striped"] is True
    head = table["cells"][0]
    assert [c["text"] for c in head] == ["#", "Player", "Balance"]
    assert all(c["is_header"] and c["valign"] == "middle" for c in head)
    assert [c["align"] for c in head] == ["right", "left", "right"]
    rows = table_rows(params)[1:]
    assert rows == [["1", "Ann", "+30"], ["2", "Bob", "-5"], ["3", "Cat", "-25"]]
    for number, name, amount in rows:  # the same content as the text
        assert f"{number}. {name} {amount}" in text.plain_text
    assert table["caption"] in text.plain_text


async def test_a_refused_rich_message_falls_back_to_text_once_per_process(
    bot: Harness,
) -> None:
    await play(bot)
    bot.api.rich_messages = True
    failing(bot.api, "sendRichMessage", FakeApiError(400, "Bad Request: RICH_MESSAGE_INVALID"))
    [first] = await bot.say(CAT, "/standings")
    assert first.media_kind is None and first.plain_text.startswith("Standings of season 1:")
    [second] = await bot.say(CAT, "/standings")
    assert second.plain_text == first.plain_text
    assert len(bot.called("sendRichMessage")) == 1  # not asked again by this process
    assert bot.called("sendMessage")[-1]["text"].startswith("<b>Standings")


async def test_settle_money_and_the_nights_card(bot: Harness) -> None:
    bot.api.rich_messages = True
    await play(bot)
    await bot.say(ANN, "/set stake 0.5")
    [money] = await bot.say(ANN, "/settle money")
    assert money.media_kind == "rich"
    params = bot.called("sendRichMessage")[-1]
    rows = table_rows(params)
    assert rows[0] == ["Pays", "To", "Amount"]
    assert sorted(rows[1:]) == [["Bob", "Ann", "2.50"], ["Cat", "Ann", "12.50"]]
    *copies, [archive] = params["reply_markup"]["inline_keyboard"]  # an admin's: archive
    assert sorted(row[0]["copy_text"]["text"] for row in copies) == [
        "Bob → Ann 2.50",
        "Cat → Ann 12.50",
    ]
    assert archive["callback_data"].startswith("v1:reset:")
    assert "Counted: free scoring at 0.5 per point." in money.plain_text
    summary = await bot.say(BOB, "/summary")
    assert [e.media_kind for e in summary] == ["rich", "photo"]  # the table, then the card
    card = table_rows(bot.called("sendRichMessage")[-1])
    assert card[0] == ["Player", "Free", "Money"]
    assert ["Ann", "+30", "15"] in card
    pressed = await bot.process(
        bot.api.press_button(bot.group, ANN, money.message_id, archive["callback_data"])
    )  # the table's button works as the text's did
    assert any("archived" in e.plain_text.lower() for e in pressed), pressed


# ---------------------------------------------------------------- point 5: guest mode


def standings_of(engine: Engine, chat: Chat) -> dict[str, str]:
    service = Service(engine)
    ctx = Ctx(chat_id=chat.id, actor=Actor(None, "viewer"), is_admin=False)
    try:
        view = service.execute(ctx, Standings())
    except ServiceError:  # nothing recorded in this chat
        return {}
    assert isinstance(view, StandingsView)
    return {name: str(amount) for _unit, rows in view.sections for name, amount in rows}


async def test_a_guest_round_is_recorded_once_and_answered_with_the_totals(
    bot: Harness, engine: Engine
) -> None:
    update = bot.api.guest_message(bot.outside, WANG, "@jifen_bot 老王+30 小李-30 阿张")
    [answer] = await bot.process(update)
    [params] = bot.called("answerGuestQuery")
    assert params["guest_query_id"] == update["guest_message"]["guest_query_id"]
    result = params["result"]
    assert result["type"] == "article" and result["title"] and result["id"]
    content = result["input_message_content"]
    assert content["parse_mode"] == "HTML"
    assert answer.media_kind == "guest" and answer.chat_id == bot.outside.id
    assert "老王 +30" in answer.plain_text and "现在总分：老王 +30" in answer.plain_text
    assert standings_of(engine, bot.outside) == {"老王": "30", "阿张": "0", "小李": "-30"}
    again = await bot.process(update)  # Telegram redelivers it: nothing recorded twice
    assert again == [] and len(bot.called("answerGuestQuery")) == 2
    assert standings_of(engine, bot.outside) == {"老王": "30", "阿张": "0", "小李": "-30"}
    await bot.guest(WANG, "@jifen_bot /pay 小李 老王 5")
    assert standings_of(engine, bot.outside) == {"老王": "35", "阿张": "0", "小李": "-35"}
    await bot.guest(WANG, "@jifen_bot 老王+10 小周-10")  # a new player sits down
    assert standings_of(engine, bot.outside)["小周"] == "-10"
    assert not bot.called("sendMessage")  # the bot is not in that chat: only guest answers


async def test_the_mention_alone_answers_the_standings(bot: Harness) -> None:
    await bot.guest(WANG, "@jifen_bot 老王+30 小李")
    [answer] = await bot.guest(WANG, "@jifen_bot")
    assert answer.plain_text.startswith("第 1 赛季积分")
    assert "老王 +30" in answer.plain_text


async def test_mahjong_in_guest_mode_says_how_to_add_the_bot(bot: Harness, engine: Engine) -> None:
    for line in ("@jifen_bot /hu 老王 自摸", "@jifen_bot /new mahjong", "@jifen_bot /r A=50"):
        [answer] = await bot.guest(WANG, line)
        assert "把我加进群" in answer.plain_text, answer.plain_text
    [bad] = await bot.guest(WANG, "@jifen_bot 老王+30 老王-30")
    assert bad.plain_text.startswith("⚠️")
    assert standings_of(engine, bot.outside) == {}


async def test_a_failed_guest_answer_is_logged_not_raised(bot: Harness, engine: Engine) -> None:
    failing(bot.api, "answerGuestQuery", FakeApiError(400, "Bad Request: QUERY_ID_INVALID"))
    assert await bot.guest(WANG, "@jifen_bot 老王+30 小李") == []
    assert standings_of(engine, bot.outside) == {"老王": "30", "小李": "-30"}


async def test_guest_mentions_over_the_flood_limit_are_dropped(engine: Engine) -> None:
    n = next(_ids)
    outside = Chat(-100_800_000 - n, "supergroup", title="never added the bot")
    api = FakeBotApi(first_update_id=9_000_000 + 1000 * n)
    app = application(engine, api)
    app.bot_data["flood"] = FloodGuard(limit=2, window=600)
    async with app:
        answered = []
        for amount in (1, 2, 3):
            seq = api.last_seq
            update = api.guest_message(outside, WANG, f"@jifen_bot 老王+{amount} 小李")
            api.take_updates()
            await app.process_update(Update.de_json(update, app.bot))
            answered.append(len(api.outbox_since(seq)))
    assert answered == [1, 1, 0]  # the third: no warning (nowhere to say it), nothing recorded
    assert standings_of(engine, outside) == {"老王": "3", "小李": "-3"}


async def test_a_table_in_a_forum_topic_stays_in_its_topic(bot: Harness) -> None:
    forum = Chat(bot.group.id - 50_000, "supergroup", title="club", is_forum=True)
    bot.api.add_chat(forum)
    for user in PLAYERS:
        bot.api.set_member(forum.id, user, "member")
    bot.api.rich_messages = True
    for text in ("/new free", "/seats Ann Bob", "/s Ann+3 Bob"):
        await bot.process(bot.api.send_text(forum, ANN, text, 77))
    [rich] = await bot.process(bot.api.send_text(forum, BOB, "/standings", 77))
    assert rich.media_kind == "rich" and rich.message_thread_id == 77
    assert bot.called("sendRichMessage")[-1]["message_thread_id"] == 77


async def test_nothing_to_tabulate_is_said_in_text(bot: Harness) -> None:
    bot.api.rich_messages = True
    await bot.say(ANN, "/new free")
    await bot.say(ANN, "/seats Ann Bob")
    [empty] = await bot.say(BOB, "/standings")
    assert empty.media_kind is None and "No hands recorded yet." in empty.plain_text
    [square] = await bot.say(ANN, "/settle money")
    assert square.media_kind is None and "No game has a stake yet" in square.plain_text
    assert bot.called("sendRichMessage") == []  # not asked: nothing a table would hold


async def test_the_same_round_again_says_how_to_record_it_without_buttons(
    bot: Harness, engine: Engine
) -> None:
    await bot.guest(WANG, "@jifen_bot 老王+30 小李")
    [asked] = await bot.guest(WANG, "@jifen_bot 老王+30 小李")
    assert "完全一样" in asked.plain_text and "两分钟后再发一次" in asked.plain_text
    assert asked.reply_markup is None
    assert standings_of(engine, bot.outside) == {"老王": "30", "小李": "-30"}
