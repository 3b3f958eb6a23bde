"""/hu with tiles through the real Application, updates shaped as Telegram sends them: the reply
says which reading was scored (in both languages), refusals say why and how to write it, the
tiles' kongs against /gang, the wizard's "enter the tiles", /history and /export."""

# ruff: noqa: F811  (the tests take test_bot's `bot` fixture, imported here, as a parameter)

from __future__ import annotations

import csv
import io

from tests.integration.test_bot import ANN, BOB, CAT, DAN, ZHANG, Harness, bot  # noqa: F401
from tests.integration.test_near_repeats import typed as recorded


async def test_the_reply_says_which_reading_was_scored(bot: Harness) -> None:
    await bot.seat()
    en = await bot.text(CAT, "/hu Ann zimo 11122233344455m")
    assert "• Ann wins: 自摸 self-draw · 碰碰胡 all pungs · 清一色 one suit · 门清 concealed" in en
    assert "Tiles: 111m 222m 333m 444m 55m — the highest-scoring of their 4 readings" in en
    assert "Bob → Ann 16 · self-draw" in en and "scored as not concealed" not in en
    await bot.say(ANN, "/set lang zh")  # the chat's language (张三's phone does not choose it)
    zh = await bot.text(ZHANG, "/hu Ann pao Bob [777p] 123m456m789s55s")
    assert "• Ann 胡：点炮 · 鸡胡" in zh and "手牌：[777p] 123m 456m 789s 55s" in zh
    assert "Bob → Ann 2" in zh and "门清" not in zh


async def test_unicode_tiles_and_several_winners(bot: Harness) -> None:
    await bot.seat()
    both = "/hu Ann pao Dan 🀇🀇🀈🀈🀉🀉🀊🀊🀋🀋🀌🀌🀍🀍; Bob pao Dan 111222333444p77m"
    text = await bot.text(DAN, both)  # both won on Dan's 7m
    assert "Tiles: 11m 22m 33m 44m 55m 66m 77m" in text  # 七对 清一色: 4 × 2 × 2 = 16
    assert "Dan → Ann 24" in text and "Dan → Bob 12" in text  # 碰碰胡 门清: 4 × 2 = 8


async def test_refusals_say_why_and_change_nothing(bot: Harness) -> None:
    await bot.seat()
    before = await bot.text(ANN, "/standings")
    for typed, reason in [
        ("/hu Ann zimo 11111m222m333m44m55m", "1m is written 5 times"),
        ("/hu Ann zimo 123m456m789s55s", "11 tiles given, 14 needed"),
        ("/hu Ann zimo 1112223334445m6p", "not a winning hand: 2m 6p do not fit"),
        ("/hu Ann zimo [123m] 456m789s55s11z", "no chow (不准吃牌)"),
        ("/hu Ann zimo qidui 11122233344455m", "'七对 qidui' was given, but the tiles read"),
        ("/hu Ann zimo mq [777p] 123m456m789s55s", "the tiles show the exposed group '[777p]'"),
        ("/hu Ann pao Bob qidui2 11335577m99p1111s", "hold 1 set(s) of four identical tiles"),
        ("/hu Ann zimo [2222p] 123m456m789s55s", "record it first with /gang"),
    ]:
        text = await bot.text(CAT, typed)
        assert text.startswith("⚠️ Ann's tiles") and reason in text, (typed, text)
        assert "Write it like this" in text, typed
    await bot.say(ANN, "/set lang zh")
    zh = await bot.text(ZHANG, "/hu Ann zimo 1112223334445m6p")
    assert "Ann 的手牌：这不是胡牌：2m 6p 凑不进四副" in zh and "请这样写" in zh
    await bot.say(ANN, "/set lang en")
    assert await bot.text(ANN, "/standings") == before


async def test_the_tiles_kongs_against_gang(bot: Harness) -> None:
    await bot.seat()
    await bot.say(ANN, "/gang Ann ming Bob")
    wrong = await bot.text(CAT, "/hu Ann zimo (2222p) 123m456m789s55s")
    assert "tiles show 1 concealed and 0 exposed kong(s)" in wrong
    assert "0 concealed and 1 exposed kong(s) of Ann recorded with /gang" in wrong
    paid = await bot.text(CAT, "/hu Ann zimo [2222p] 123m456m789s55s")
    assert "Bob → Ann 1 · 明杠 exposed kong" in paid and "Bob → Ann 3 · self-draw" in paid
    # none recorded: the tiles' concealed kong is recorded with the hand, paid as /gang would
    paid = await recorded(bot, CAT, "/hu Ann zimo (2222p) 123m456m789s55s")  # a near repeat
    assert "门清 concealed" in paid and "Dan → Ann 1 · 暗杠 concealed kong" in paid
    chain = await bot.text(CAT, "/hu Ann gangkai (2222p) 123m456m789s55s")
    assert "Bob → Ann 9 · each pays 4 × 2 + 1" in chain and "暗杠 concealed kong" not in chain


async def test_the_wizard_offers_to_enter_the_tiles(bot: Harness) -> None:
    await bot.seat()
    screen = (await bot.say(ANN, "/hu"))[0]
    for label in ("2. Bob", "点炮 on a discard", "3. Cat", "🀄 Enter the tiles"):
        data = next(b["callback_data"] for row in screen.buttons for b in row if b["text"] == label)
        entries = await bot.press(ANN, screen, data)
        screen = next((e for e in entries if e.message_id == screen.message_id), screen)
    assert "Send Bob's tiles with this command" in screen.plain_text
    assert "/hu 2 pao 3 [777p] 123m456m789s55s" in screen.plain_text
    assert [[b["text"] for b in row] for row in screen.buttons] == [["Cancel"]]
    text = await bot.text(BOB, "/hu 2 pao 3 [777p] 123m456m789s55s")
    assert "Cat → Bob 2" in text


async def test_history_and_export_show_the_tiles(bot: Harness) -> None:
    await bot.seat()
    await bot.say(ANN, "/hu Ann pao Bob [777p] 123m456m789s55s")
    await bot.say(ANN, "/hu Cat zimo")
    history = await bot.text(ANN, "/history")
    assert "🀄 Ann: [777p] 123m 456m 789s 55s" in history
    (file,) = [e for e in await bot.say(BOB, "/export") if e.media_kind == "document"]
    assert file.content is not None
    rows = list(csv.DictReader(io.StringIO(file.content.decode("utf-8-sig"))))
    assert [(r["hand"], r["payee"], r["tiles"]) for r in rows] == [
        ("1", "Ann", "[777p] 123m 456m 789s 55s"),
        ("2", "Cat", ""),
        ("2", "Cat", ""),
        ("2", "Cat", ""),
    ]
