"""The chat-command parser: the contract's forms, aliases, full-width input, errors, robustness."""

from __future__ import annotations

import itertools
from dataclasses import fields
from decimal import Decimal
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_file
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.commands import catalog
from bot.commands.parsing import (
    LATIN,
    NotForThisBot,
    ParseError,
    command_text,
    normalise,
    parse,
    read,
)
from scoring.games import Game
from scoring.mahjong_model import KongKind, Pattern, WinType
from service.requests import (
    ChainKong,
    Chart,
    Export,
    Gang,
    Help,
    History,
    Hu,
    HuClause,
    Join,
    Link,
    Liuju,
    NewTable,
    PlayerRef,
    RefKind,
    Report,
    ReportEntry,
    Request,
    Reset,
    Rules,
    Seasons,
    Seats,
    SetDealer,
    SetOption,
    Setting,
    Settle,
    ShowPlayers,
    Standings,
    Stats,
    Undo,
)

USAGE = {command.name: command.usage for command in catalog.COMMANDS}

ME = PlayerRef(RefKind.ME)


def name(value: str) -> PlayerRef:
    return PlayerRef(RefKind.NAME, value)


def seat(n: int) -> PlayerRef:
    return PlayerRef(RefKind.SEAT, str(n))


def user(value: str) -> PlayerRef:
    return PlayerRef(RefKind.USERNAME, value)


A, B, C, D = name("A"), name("B"), name("C"), name("D")
WANG = name("老王")

_SOURCES = sorted((Path(__file__).parents[2] / "bot" / "commands").glob("*.py"))
#: Every message marked with N_ in the parser, as Babel extracts them.
EXTRACTED = frozenset(
    message
    for source in _SOURCES
    for _, message, _, _ in extract_from_file("python", source, keywords={"N_": None})
)


def error(text: str, bot_username: str | None = None) -> ParseError:
    """The ParseError of `text` (checked to be well-formed)."""
    with pytest.raises(ParseError) as info:
        parse(text, bot_username)
    err = info.value
    assert err.msgid in EXTRACTED
    assert err.usage == "" or err.usage in EXTRACTED
    assert all(isinstance(v, str) for v in err.params.values())
    str(err)  # every placeholder is filled
    return err


# --- the canonical forms of docs/commands.md ---

CANONICAL: list[tuple[str, Request]] = [
    ("/new mahjong", NewTable(Game.MAHJONG)),
    ("/new mahjong sisuang", NewTable(Game.MAHJONG, sisuang=True)),
    ("/new 510k", NewTable(Game.K510)),
    ("/new 510k3", NewTable(Game.K510_3)),
    ("/new 510k marathon", NewTable(Game.K510, marathon=True)),
    ("/new 510k3 marathon", NewTable(Game.K510_3, marathon=True)),
    ("/new 510k marathon zerosum", NewTable(Game.K510, marathon=True, zerosum=True)),
    ("/join", Join()),
    ("/join 小李", Join("小李")),
    ("/link 小李 @user", Link("小李", user("user"))),
    ("/seats A B C D", Seats((A, B, C, D))),
    ("/dealer A", SetDealer(A)),
    ("/players", ShowPlayers()),
    ("/gang A an", Gang(A, KongKind.AN)),
    ("/gang A ming C", Gang(A, KongKind.MING, C)),
    ("/gang A bu C", Gang(A, KongKind.BU, C)),
    (
        "/hu 老王 zimo qys pph",
        Hu((HuClause(WANG, WinType.ZIMO, pattern=Pattern.PENGPENGHU, qingyise=True),)),
    ),
    ("/hu 2 pao 3", Hu((HuClause(seat(2), WinType.DIANPAO, source=seat(3)),))),
    ("/hu me gangkai", Hu((HuClause(ME, WinType.GANGKAI),))),
    ("/hu A pao C feng B", Hu((HuClause(A, WinType.DIANPAO, source=C, sealed=B),))),
    (
        "/hu A pao C pph; B pao C qys",
        Hu(
            (
                HuClause(A, WinType.DIANPAO, source=C, pattern=Pattern.PENGPENGHU),
                HuClause(B, WinType.DIANPAO, source=C, qingyise=True),
            )
        ),
    ),
    ("/hu A gangkai 2", Hu((HuClause(A, WinType.GANGKAI, chain=2),))),
    (
        "/hu A gangkai an an",
        Hu((HuClause(A, WinType.GANGKAI, chain_kongs=(ChainKong(KongKind.AN),) * 2),)),
    ),
    (
        "/hu A gangkai ming C",
        Hu((HuClause(A, WinType.GANGKAI, chain_kongs=(ChainKong(KongKind.MING, C),)),)),
    ),
    (
        "/hu A gangkai an bu C",
        Hu(
            (
                HuClause(
                    A,
                    WinType.GANGKAI,
                    chain_kongs=(ChainKong(KongKind.AN), ChainKong(KongKind.BU, C)),
                ),
            )
        ),
    ),
    ("/hu A gangpao C", Hu((HuClause(A, WinType.GANGPAO, source=C),))),
    ("/hu A gangpao C 2", Hu((HuClause(A, WinType.GANGPAO, source=C, chain=2),))),
    ("/hu A qianggang C", Hu((HuClause(A, WinType.QIANGGANG, source=C),))),
    ("/hu 1 qianggang 3 3", Hu((HuClause(seat(1), WinType.QIANGGANG, source=seat(3), chain=3),))),
    ("/hu A quanqiupao C", Hu((HuClause(A, WinType.QUANQIUPAO, source=C),))),
    ("/hu A haidi", Hu((HuClause(A, WinType.HAIDILAO),))),
    ("/hu A haidipao C", Hu((HuClause(A, WinType.HAIDIPAO, source=C),))),
    ("/hu A tianhu", Hu((HuClause(A, WinType.TIANHU),))),
    ("/hu A dihu", Hu((HuClause(A, WinType.DIHU),))),
    ("/hu A renhu", Hu((HuClause(A, WinType.RENHU),))),
    ("/hu A zimo jihu", Hu((HuClause(A, WinType.ZIMO),))),
    ("/hu A zimo qidui", Hu((HuClause(A, WinType.ZIMO, pattern=Pattern.QIDUI),))),
    ("/hu A zimo qidui1", Hu((HuClause(A, WinType.ZIMO, pattern=Pattern.QIDUI, groups=1),))),
    ("/hu A zimo qidui2", Hu((HuClause(A, WinType.ZIMO, pattern=Pattern.QIDUI, groups=2),))),
    ("/hu A zimo qidui3", Hu((HuClause(A, WinType.ZIMO, pattern=Pattern.QIDUI, groups=3),))),
    (
        "/hu A pao C mq qqr",
        Hu((HuClause(A, WinType.DIANPAO, source=C, menqing=True, quanqiuren=True),)),
    ),
    ("/liuju", Liuju()),
    (
        "/r A=30 B=20 C=40 D=10 out A C",
        Report(
            (ReportEntry(A, 30), ReportEntry(B, 20), ReportEntry(C, 40), ReportEntry(D, 10)),
            (A, C),
        ),
    ),
    (
        "/r A=25 B=35 C=20 D=0/20 out B A C",
        Report(
            (ReportEntry(A, 25), ReportEntry(B, 35), ReportEntry(C, 20), ReportEntry(D, 0, 20)),
            (B, A, C),
        ),
    ),
    (
        "/r 1=50 2=30 3=10/10 out 1 2",
        Report(
            (ReportEntry(seat(1), 50), ReportEntry(seat(2), 30), ReportEntry(seat(3), 10, 10)),
            (seat(1), seat(2)),
        ),
    ),
    ("/undo", Undo()),
    ("/undo 3", Undo(hand_no=3)),
    ("/undo #12", Undo(hand_no=12)),
    ("/撤销 第3局", Undo(hand_no=3)),
    ("/undo confirm", Undo(confirm=True)),
    ("/new 510k confirm", NewTable(Game.K510, confirm=True)),
    ("/standings", Standings()),
    ("/rank", Standings()),
    ("/standings 2", Standings(2)),
    ("/history", History()),
    ("/history 5", History(5)),
    ("/settle", Settle()),
    ("/stats", Stats()),
    ("/chart", Chart()),
    ("/export", Export()),
    ("/rules", Rules()),
    ("/help", Help()),
    ("/start", Help()),
    ("/reset", Reset()),
    ("/reset confirm", Reset(confirm=True)),
    ("/seasons", Seasons()),
    ("/set stake 0.5", SetOption(Setting.STAKE, "0.5")),
    ("/set lang zh", SetOption(Setting.LANG, "zh")),
    ("/set lang en", SetOption(Setting.LANG, "en")),
    ("/set sisuang on", SetOption(Setting.SISUANG, "on")),
    ("/set sisuang off", SetOption(Setting.SISUANG, "off")),
    ("/set zerosum on", SetOption(Setting.ZEROSUM, "on")),
    ("/set zerosum off", SetOption(Setting.ZEROSUM, "off")),
]


@pytest.mark.parametrize(("text", "expected"), CANONICAL, ids=[t for t, _ in CANONICAL])
def test_canonical_forms(text: str, expected: Request) -> None:
    assert parse(text) == expected
    assert parse(text, "jifen_bot") == expected


@pytest.mark.parametrize(("text", "expected"), CANONICAL, ids=[t for t, _ in CANONICAL])
def test_addressed_to_the_bot(text: str, expected: Request) -> None:
    command, _, rest = text.partition(" ")
    assert parse(f"{command}@jifen_bot {rest}", "jifen_bot") == expected
    assert parse(f"{command}@Jifen_Bot {rest}", "@jifen_bot") == expected
    assert parse(f"{command}@anything {rest}") == expected  # no username known: accepted


def test_addressed_to_another_bot() -> None:
    err = error("/hu@other_bot 2 pao 3", bot_username="jifen_bot")
    assert isinstance(err, NotForThisBot)
    assert err.params == {"bot": "other_bot"}
    # even a command this bot does not know
    assert isinstance(error("/weather@other_bot", bot_username="jifen_bot"), NotForThisBot)


def test_commands_tuple() -> None:
    expected = {
        *[
            "new",
            "join",
            "seats",
            "dealer",
            "players",
            "link",
            "gang",
            "hu",
            "liuju",
            "r",
            "undo",
            "standings",
            "rank",
            "history",
        ],
        *[
            "settle",
            "stats",
            "chart",
            "export",
            "rules",
            "help",
            "reset",
            "seasons",
            "set",
            "start",
        ],
    }
    assert expected <= set(LATIN)
    assert all(c.isascii() and c.islower() for c in LATIN)
    assert len(set(LATIN)) == len(LATIN)
    for command in LATIN:
        try:
            parse(f"/{command}")
        except ParseError as err:
            assert "unknown command" not in err.msgid


def test_usage_is_marked_for_every_command() -> None:
    assert set(USAGE.values()) <= EXTRACTED
    assert USAGE["hu"] == "/hu <winner> <how> [pattern] [flags]"


def test_a_command_without_a_parser_takes_no_arguments() -> None:
    plain = [command for command in catalog.COMMANDS if command.parse is None]
    assert {command.name for command in plain} >= {"players", "liuju", "me", "summary"}
    for command in plain:
        assert not fields(command.makes[0]), command.name
        assert parse(f"/{command.name}") == command.makes[0]()
        with pytest.raises(ParseError) as refused:
            parse(f"/{command.name} x")
        assert refused.value.usage == command.usage
        assert refused.value.params == {"command": command.name, "word": "x"}


# --- aliases, case, spacing, full width ---

ALIASES: list[tuple[str, Request]] = [
    ("/new 麻将", NewTable(Game.MAHJONG)),
    ("/new MJ 死双", NewTable(Game.MAHJONG, sisuang=True)),
    ("/new mahjong nosisuang", NewTable(Game.MAHJONG, sisuang=False)),
    ("/new 五十K", NewTable(Game.K510)),
    ("/new wsk 连打 零和", NewTable(Game.K510, marathon=True, zerosum=True)),
    ("/new zerosum marathon 510", NewTable(Game.K510, marathon=True, zerosum=True)),
    ("/new 510k 3", NewTable(Game.K510_3)),
    ("/new 三人 510k 连打", NewTable(Game.K510_3, marathon=True)),
    ("/join me", Join()),
    ("/seats 老王 @Bob me 2", Seats((WANG, user("bob"), ME, seat(2)))),
    ("/dealer 我", SetDealer(ME)),
    ("/link @user 小李", Link("小李", user("user"))),
    ("/link 小李 me", Link("小李", ME)),
    ("/kong A 暗杠", Gang(A, KongKind.AN)),
    ("/gang 老王 明 3", Gang(WANG, KongKind.MING, seat(3))),
    ("/gang 老王 补杠 3", Gang(WANG, KongKind.BU, seat(3))),
    (
        "/hu 老王 自摸 清一色 碰碰胡",
        Hu((HuClause(WANG, WinType.ZIMO, pattern=Pattern.PENGPENGHU, qingyise=True),)),
    ),
    ("/hu 老王 点炮 3", Hu((HuClause(WANG, WinType.DIANPAO, source=seat(3)),))),
    ("/hu 老王 dianpao 3", Hu((HuClause(WANG, WinType.DIANPAO, source=seat(3)),))),
    ("/hu 老王 杠上花 2", Hu((HuClause(WANG, WinType.GANGKAI, chain=2),))),
    (
        "/hu 老王 杠上花 暗杠 补杠 3",
        Hu(
            (
                HuClause(
                    WANG,
                    WinType.GANGKAI,
                    chain_kongs=(ChainKong(KongKind.AN), ChainKong(KongKind.BU, seat(3))),
                ),
            )
        ),
    ),
    ("/hu 老王 杠上炮 3 2", Hu((HuClause(WANG, WinType.GANGPAO, source=seat(3), chain=2),))),
    ("/hu 老王 抢杠 3", Hu((HuClause(WANG, WinType.QIANGGANG, source=seat(3)),))),
    ("/hu 老王 全求炮 3", Hu((HuClause(WANG, WinType.QUANQIUPAO, source=seat(3)),))),
    ("/hu 老王 海底捞月", Hu((HuClause(WANG, WinType.HAIDILAO),))),
    ("/hu 老王 haidilao", Hu((HuClause(WANG, WinType.HAIDILAO),))),
    ("/hu 老王 海底捞", Hu((HuClause(WANG, WinType.HAIDILAO),))),
    ("/hu 老王 海底炮 3", Hu((HuClause(WANG, WinType.HAIDIPAO, source=seat(3)),))),
    ("/hu 老王 天胡", Hu((HuClause(WANG, WinType.TIANHU),))),
    ("/hu 老王 地胡", Hu((HuClause(WANG, WinType.DIHU),))),
    ("/hu 老王 人胡", Hu((HuClause(WANG, WinType.RENHU),))),
    ("/hu 老王 zimo 鸡胡", Hu((HuClause(WANG, WinType.ZIMO),))),
    ("/hu 老王 zimo 七对", Hu((HuClause(WANG, WinType.ZIMO, pattern=Pattern.QIDUI),))),
    ("/hu 老王 zimo 七小对", Hu((HuClause(WANG, WinType.ZIMO, pattern=Pattern.QIDUI),))),
    ("/hu 老王 zimo 七大对", Hu((HuClause(WANG, WinType.ZIMO, pattern=Pattern.QIDUI, groups=1),))),
    (
        "/hu 老王 zimo 豪华大七对",
        Hu((HuClause(WANG, WinType.ZIMO, pattern=Pattern.QIDUI, groups=2),)),
    ),
    (
        "/hu 老王 zimo 超级豪华大七对",
        Hu((HuClause(WANG, WinType.ZIMO, pattern=Pattern.QIDUI, groups=3),)),
    ),
    (
        "/hu 老王 zimo pengpenghu 门清 全求人",
        Hu(
            (
                HuClause(
                    WANG,
                    WinType.ZIMO,
                    pattern=Pattern.PENGPENGHU,
                    menqing=True,
                    quanqiuren=True,
                ),
            )
        ),
    ),
    ("/hu 老王 zimo 封 2", Hu((HuClause(WANG, WinType.ZIMO, sealed=seat(2)),))),
    ("/hu 老王 zimo 封胡 2", Hu((HuClause(WANG, WinType.ZIMO, sealed=seat(2)),))),
    # pattern and flags may come first; keywords in any case
    (
        "/HU 老王 QYS ZiMo PPH",
        Hu((HuClause(WANG, WinType.ZIMO, pattern=Pattern.PENGPENGHU, qingyise=True),)),
    ),
    # names that are also keywords, in a player's place
    (
        "/hu Feng pao Ming feng An",
        Hu((HuClause(name("Feng"), WinType.DIANPAO, name("Ming"), sealed=name("An")),)),
    ),
    ("/gang Ming ming An", Gang(name("Ming"), KongKind.MING, name("An"))),
    ("/draw", Liuju()),
    ("/流局", Liuju()),
    (
        "/report A=30 B=20 C=50 out A B",
        Report((ReportEntry(A, 30), ReportEntry(B, 20), ReportEntry(C, 50)), (A, B)),
    ),
    (
        "/r A=30 B=20 C=50 出 A B",
        Report((ReportEntry(A, 30), ReportEntry(B, 20), ReportEntry(C, 50)), (A, B)),
    ),
    (
        "/r A = 30 B=20 / 5 C=45 out A B",
        Report((ReportEntry(A, 30), ReportEntry(B, 20, 5), ReportEntry(C, 45)), (A, B)),
    ),
    (
        "/r out A B A=30 B=20 C=50",
        Report((ReportEntry(A, 30), ReportEntry(B, 20), ReportEntry(C, 50)), (A, B)),
    ),
    (
        "/r me=30 @Bob=20 3=50 out 我 @bob",
        Report(
            (ReportEntry(ME, 30), ReportEntry(user("bob"), 20), ReportEntry(seat(3), 50)),
            (ME, user("bob")),
        ),
    ),
    ("/standings season 3", Standings(3)),
    ("/history 20 season 2", History(20, 2)),
    ("/history season 2", History(10, 2)),
    ("/settle 1", Settle(1)),
    ("/stats 2", Stats(2)),
    ("/chart 3", Chart(3)),
    ("/export 4", Export(4)),
    ("/start deep-link-payload", Help()),
    ("/reset yes", Reset(confirm=True)),
    ("/reset 确认", Reset(confirm=True)),
    ("/set stake 00.50", SetOption(Setting.STAKE, "0.5")),
    ("/set stake .25", SetOption(Setting.STAKE, "0.25")),
    ("/set stake 1000000", SetOption(Setting.STAKE, "1000000")),
    ("/set stake 0", SetOption(Setting.STAKE, "0")),
    ("/set stake 2.0000", SetOption(Setting.STAKE, "2")),
    ("/set lang 中文", SetOption(Setting.LANG, "zh")),
    ("/set LANG English", SetOption(Setting.LANG, "en")),
    ("/set 语言 英文", SetOption(Setting.LANG, "en")),
    ("/set sisuang 开", SetOption(Setting.SISUANG, "on")),
    ("/set 死双 关", SetOption(Setting.SISUANG, "off")),
    ("/set zerosum true", SetOption(Setting.ZEROSUM, "on")),
    ("/set zerosum 0", SetOption(Setting.ZEROSUM, "off")),
    ("/set zerosum 1", SetOption(Setting.ZEROSUM, "on")),
]


@pytest.mark.parametrize(("text", "expected"), ALIASES, ids=[t for t, _ in ALIASES])
def test_aliases(text: str, expected: Request) -> None:
    assert parse(text) == expected


FULL_WIDTH: list[tuple[str, Request]] = [
    (
        "／ｒ　Ａ＝３０，Ｂ＝２０　Ｃ＝４０／１０　Ｄ＝１０　出　Ａ　Ｃ",
        Report(
            (ReportEntry(A, 30), ReportEntry(B, 20), ReportEntry(C, 40, 10), ReportEntry(D, 10)),
            (A, C),
        ),
    ),
    (
        "/r 老王＝３０、小李＝２０，老张＝５０ 出 老王 小李",
        Report(
            (
                ReportEntry(WANG, 30),
                ReportEntry(name("小李"), 20),
                ReportEntry(name("老张"), 50),
            ),
            (WANG, name("小李")),
        ),
    ),
    (
        "/hu 老王 点炮 ３；小李 点炮 ３ 清一色。",
        Hu(
            (
                HuClause(WANG, WinType.DIANPAO, source=seat(3)),
                HuClause(name("小李"), WinType.DIANPAO, source=seat(3), qingyise=True),
            )
        ),
    ),
    (
        "／ｈｕ＠ｊｉｆｅｎ＿ｂｏｔ　２　ｐａｏ　３",
        Hu((HuClause(seat(2), WinType.DIANPAO, seat(3)),)),
    ),
    ("  /hu   2\tpao\n3  ", Hu((HuClause(seat(2), WinType.DIANPAO, seat(3)),))),
    ("/hu\u00a02\u2003pao\u200b3", Hu((HuClause(seat(2), WinType.DIANPAO, seat(3)),))),
    ("/hu 2 pao 3;", Hu((HuClause(seat(2), WinType.DIANPAO, seat(3)),))),
    ("/hu老王 自摸", Hu((HuClause(WANG, WinType.ZIMO),))),
    ("/seats Ａ，Ｂ，Ｃ，Ｄ", Seats((A, B, C, D))),
    ("/set stake ０．５", SetOption(Setting.STAKE, "0.5")),
    ("/history １５", History(15)),
    ("/gang ＠Ｂｏｂ 暗", Gang(user("bob"), KongKind.AN)),
]


@pytest.mark.parametrize(("text", "expected"), FULL_WIDTH, ids=[t for t, _ in FULL_WIDTH])
def test_full_width_and_spacing(text: str, expected: Request) -> None:
    assert parse(text, "jifen_bot") == expected


def test_normalise() -> None:
    assert normalise("／ｈｕ　Ｌｅｅ，老王；３＝５") == "/hu Lee 老王;3=5"
    assert parse("/dealer Ｌｅｅ") == SetDealer(name(normalise("Ｌｅｅ")))


def test_player_references() -> None:
    clause = parse("/hu @Some_User pao 我 feng I")
    assert clause == Hu((HuClause(user("some_user"), WinType.DIANPAO, ME, sealed=ME),))
    assert parse("/dealer  Alice ") == SetDealer(name("Alice"))  # kept as typed
    assert parse("/dealer 4") == SetDealer(seat(4))


# --- errors name the problem ---

ERRORS: list[tuple[str, dict[str, str], str]] = [
    ("/hu 老王 zimoo", {"word": "zimoo", "guess": "zimo"}, "unknown way to win 'zimoo'"),
    ("/hu 老王 xyz", {"word": "xyz"}, "unknown way to win 'xyz'"),
    ("/hu 老王 zimo pphh", {"word": "pphh", "guess": "pph"}, "unknown pattern or flag 'pphh'"),
    ("/hu 老王 zimo 3", {"word": "3"}, "'3' is out of place"),
    ("/hu 2 pao 3 2", {"word": "2"}, "'2' is out of place"),
    ("/hu 2 gangpao 3 5", {"word": "5"}, "a chain of 5 kongs"),
    ("/hu 2 gangpao 3 0", {"word": "0"}, "a chain of 0 kongs"),
    ("/hu 2 qianggang 3 9999999999999", {"word": "9999999999999"}, "must be 1 to 4"),
    ("/hu 2 gangkai 7", {"word": "7"}, "a chain of 7 kongs"),
    ("/hu 2 gangkai an an an an an", {"word": "5"}, "a chain of 5 kongs"),
    ("/hu 2 gangkai 2 an an", {}, "not both"),
    ("/hu 2 gangkai ming", {"word": "ming"}, "'ming' must be followed by the player"),
    ("/hu 2 zimo an", {"word": "an"}, "record kongs with /gang"),
    ("/hu 2 pao", {"word": "pao"}, "'pao' must be followed by the player who paid"),
    ("/hu 2 pao qys", {"word": "pao"}, "must be followed by the player who paid"),
    ("/hu 2 zimo feng", {"word": "feng"}, "'feng' must be followed by the sealed player"),
    ("/hu zimo", {"word": "zimo"}, "start with the winner"),
    ("/hu 老王", {"winner": "老王"}, "say how 老王 won"),
    ("/hu 老王 qys", {"winner": "老王"}, "say how 老王 won"),
    ("/hu", {}, "say who won"),
    ("/hu ;", {}, "say who won"),
    ("/hu 1 zimo; 2 zimo; 3 zimo; 4 zimo", {"count": "4"}, "at most three"),
    ("/hu 2 zimo pao 3", {"first": "zimo", "second": "pao"}, "two ways to win"),
    ("/hu 2 zimo pph qidui", {"first": "pph", "second": "qidui"}, "two patterns"),
    ("/hu 2 zimo qys 清一色", {"first": "qys", "second": "清一色"}, "'清一色' repeats 'qys'"),
    ("/hu 5 zimo", {"word": "5"}, "there is no seat 5"),
    ("/hu @ zimo", {"word": "@"}, "not a Telegram username"),
    ("/hu @a-b zimo", {"word": "@a-b"}, "not a Telegram username"),
    ("/r A=3 B=20 C=40 D=10 out A C", {"entry": "A=3"}, "'A=3' is not a multiple of 5"),
    ("/r A=105 B=20 C=40 out A C", {"entry": "A=105"}, "cannot exceed 100"),
    ("/r A=30 B=20 C=40/12 out A C", {"entry": "C=40/12"}, "not a multiple of 5"),
    ("/r A=-5 B=20 C=40 out A C", {"entry": "A=-5"}, "whole numbers"),
    ("/r A= B=20 C=40 out A C", {"entry": "A="}, "missing its points"),
    ("/r A=30/ B=20 C=40 out A C", {"entry": "A=30/"}, "missing its points"),
    ("/r =30 B=20 C=40 out A C", {"entry": "=30"}, "missing the player"),
    ("/r A=30 B=20 A=50 out A B", {"player": "A"}, "A is named twice"),
    ("/r A=30 B=20 a=50 out A B", {"player": "a"}, "a is named twice"),
    ("/r A=30 B=20 C=50", {}, "say who went out"),
    ("/r A=30 B=20 C=50 out A", {"count": "1"}, "2 or 3 players who went out"),
    ("/r A=30 B=20 C=50 out A A", {"player": "A"}, "named twice"),
    ("/r A=30 B=20 C=50 A B", {"word": "A"}, "is 'out' missing"),
    ("/r A=50 B=50 out A B", {"count": "2"}, "3 or 4 entries"),
    ("/r", {"count": "0"}, "3 or 4 entries"),
    ("/new", {}, "which game?"),
    ("/new 510k mahjong", {"first": "510k", "second": "mahjong"}, "two games"),
    ("/new mahjon", {"word": "mahjon", "guess": "mahjong"}, "unknown game or option 'mahjon'"),
    ("/new mahjong marathon", {"word": "marathon"}, "option of 510k"),
    ("/new 510k sisuang", {"word": "sisuang"}, "option of mahjong"),
    ("/new mahjong 3", {}, "mahjong needs four players"),
    ("/new 510k marathon 连打", {"first": "marathon", "second": "连打"}, "repeats"),
    ("/join 1", {"word": "1"}, "cannot be a number"),
    ("/join @bob", {"word": "@bob"}, "cannot start with @"),
    ("/join " + "x" * 40, {}, "too long"),
    ("/join a=b", {"char": "="}, "cannot contain '='"),
    ("/join zimo", {"word": "zimo"}, "is a keyword"),
    ("/join out", {"word": "out"}, "is a keyword"),
    ("/join Mary Ann", {"words": "Mary Ann"}, "one word"),
    ("/join a\x07b", {}, "control characters"),
    ("/seats A", {"count": "1"}, "2 to 10 players"),
    ("/seats A B C D E F G H I J K", {"count": "11"}, "2 to 10 players"),
    ("/seats A B a D", {"player": "a"}, "named twice"),
    ("/seats A B C 5", {"word": "5"}, "no seat 5"),
    ("/dealer", {}, "say who deals"),
    ("/dealer A B", {"word": "B"}, "unexpected 'B'"),
    ("/link 小李", {}, "the guest's name and the @username"),
    ("/link 小李 老王", {"word": "老王"}, "not a @username"),
    ("/gang", {}, "say who konged"),
    ("/gang an", {"word": "an"}, "name the player who konged before 'an'"),
    ("/gang A", {}, "say which kong"),
    ("/gang A mingg C", {"word": "mingg", "guess": "ming"}, "unknown kong 'mingg'"),
    ("/gang A ming", {"word": "ming"}, "the player whose tile was konged"),
    ("/gang A an C", {"word": "C"}, "unexpected 'C'"),
    ("/gang A bu C D", {"word": "D"}, "unexpected 'D'"),
    ("/players all", {"command": "players", "word": "all"}, "takes no arguments"),
    ("/undo three", {"word": "three"}, "not a hand number"),
    ("/undo 0", {"word": "0"}, "not a hand number"),
    ("/liuju now", {"command": "liuju"}, "takes no arguments"),
    ("/standings x", {"word": "x"}, "not a season number"),
    ("/standings 0", {"word": "0"}, "not a season number"),
    ("/standings season", {}, "which season?"),
    ("/settle 1 2", {"word": "2"}, "unexpected '2'"),
    ("/history 0", {"word": "0"}, "Ask for 1 to 100"),
    ("/history 101", {"word": "101"}, "Ask for 1 to 100"),
    ("/history 5 6", {"word": "6"}, "unexpected '6'"),
    ("/history season", {}, "which season?"),
    ("/reset now", {"word": "now"}, "/reset confirm"),
    ("/set", {}, "give a setting and its value"),
    ("/set stake", {}, "give a setting and its value"),
    ("/set stake -1", {"word": "-1"}, "not a stake"),
    ("/set stake 0.12345", {"word": "0.12345"}, "not a stake"),
    ("/set stake 1000001", {"word": "1000001"}, "not a stake"),
    ("/set stake 1e3", {"word": "1e3"}, "not a stake"),
    ("/set stake nan", {"word": "nan"}, "not a stake"),
    ("/set stak 1", {"word": "stak", "guess": "stake"}, "unknown setting 'stak'"),
    ("/set lang fr", {"word": "fr", "setting": "lang"}, "'fr' is not a value of lang"),
    ("/set sisuang maybe", {"word": "maybe", "setting": "sisuang"}, "not a value of sisuang"),
    ("/stadings", {"word": "stadings", "guess": "standings"}, "unknown command /stadings"),
    ("/foo bar", {"word": "foo"}, "unknown command /foo"),
    ("/hu-x 2 pao 3", {"word": "hu-x"}, "unknown command /hu-x"),
    ("/hu@ 2 pao 3", {"word": "hu@"}, "unknown command /hu@"),
    ("/", {}, "a command follows the /"),
    ("/ hu 2 pao 3", {}, "a command follows the /"),
    ("hello", {"text": "hello"}, "not a command"),
    ("", {"text": ""}, "not a command"),
]


@pytest.mark.parametrize(("text", "params", "fragment"), ERRORS, ids=[t for t, _, _ in ERRORS])
def test_errors_name_the_problem(text: str, params: dict[str, str], fragment: str) -> None:
    err = error(text)
    assert params.items() <= err.params.items()
    assert fragment in str(err)
    assert not isinstance(err, NotForThisBot)


def test_error_carries_the_usage() -> None:
    assert error("/hu 老王 zimoo").usage == "/hu <winner> <how> [pattern] [flags]"
    assert error("/r A=3").usage == USAGE["r"]
    assert error("/nope").usage == USAGE["help"]


def test_long_words_are_shortened_in_messages() -> None:
    err = error("/hu 老王 " + "z" * 500)
    assert len(err.params["word"]) <= 30
    assert err.params["word"].endswith("…")


# --- regional words (/rules and docs/commands.md list them) ---


def zimo(
    pattern: Pattern = Pattern.JIHU,
    groups: int = 0,
    *,
    qingyise: bool = False,
    sealed: PlayerRef | None = None,
) -> Hu:
    """老王's self-drawn win."""
    return Hu(
        (
            HuClause(
                WANG, WinType.ZIMO, pattern=pattern, groups=groups, qingyise=qingyise, sealed=sealed
            ),
        )
    )


def pao(
    how: WinType = WinType.DIANPAO,
    source: PlayerRef | None = None,
    *,
    chain: int | None = None,
    chain_kongs: tuple[ChainKong, ...] = (),
    qingyise: bool = False,
) -> Hu:
    """老王's win paid by `source`."""
    return Hu(
        (HuClause(WANG, how, source, chain=chain, chain_kongs=chain_kongs, qingyise=qingyise),)
    )


SYNONYMS: list[tuple[str, Request]] = [
    ("/hu 老王 自摸胡", zimo()),
    *(
        (f"/hu 老王 {word} 3", pao(source=seat(3)))
        for word in ("放铳", "放冲", "接炮", "fangchong")
    ),
    ("/hu 老王 抢杠和 3", pao(WinType.QIANGGANG, source=seat(3))),
    ("/hu 老王 妙手回春", pao(WinType.HAIDILAO)),
    *((f"/hu 老王 自摸 {word}", zimo()) for word in ("平胡", "屁胡", "pinghu", "pihu")),
    *(
        (f"/hu 老王 自摸 {word}", zimo(Pattern.PENGPENGHU))
        for word in ("对对胡", "对对和", "碰碰和", "大对子", "duiduihu")
    ),
    ("/hu 老王 自摸 小七对", zimo(Pattern.QIDUI)),
    *((f"/hu 老王 自摸 {w}", zimo(Pattern.QIDUI, 1)) for w in ("龙七对", "龙七", "longqidui")),
    *((f"/hu 老王 自摸 {w}", zimo(Pattern.QIDUI, 2)) for w in ("双豪七", "双豪华七对")),
    *((f"/hu 老王 自摸 {w}", zimo(Pattern.QIDUI, 3)) for w in ("三豪七", "三豪华七对")),
    ("/hu 老王 自摸 清", zimo(qingyise=True)),
]


@pytest.mark.parametrize(("text", "expected"), SYNONYMS, ids=[t for t, _ in SYNONYMS])
def test_regional_synonyms(text: str, expected: Request) -> None:
    assert parse(text) == expected


def test_a_word_counted_differently_by_region_is_refused_with_the_choices() -> None:
    for word in ("豪七", "haoqi"):
        err = error(f"/hu 老王 自摸 {word}")
        assert "counts differently by region" in str(err) and "guess" not in err.params
        assert "七大对" in str(err) and "双豪七" in str(err)


# --- 人胡: the dealer pays, and may be named ---

RENHU: list[tuple[str, Request]] = [
    ("/hu 阿张 renhu 小李", Hu((HuClause(name("阿张"), WinType.RENHU, source=name("小李")),))),
    (
        "/hu 2 人胡 1 清一色",
        Hu((HuClause(seat(2), WinType.RENHU, source=seat(1), qingyise=True),)),
    ),
    ("/hu 2 renhu qys", Hu((HuClause(seat(2), WinType.RENHU, qingyise=True),))),
    ("/hu 2 人胡 封 3", Hu((HuClause(seat(2), WinType.RENHU, sealed=seat(3)),))),
    ("/hu 2 renhu Ming", Hu((HuClause(seat(2), WinType.RENHU, source=name("Ming")),))),
    ("/hu 阿张人胡小李", Hu((HuClause(name("阿张"), WinType.RENHU, source=name("小李")),))),
]


@pytest.mark.parametrize(("text", "expected"), RENHU, ids=[t for t, _ in RENHU])
def test_renhu_takes_an_optional_payer(text: str, expected: Request) -> None:
    assert parse(text) == expected


# --- words typed without spaces ---

GLUED: list[tuple[str, Request]] = [
    ("/hu 老王自摸", zimo()),
    ("/hu 老王 自摸清一色", zimo(qingyise=True)),
    ("/hu 老王自摸清一色碰碰胡", zimo(Pattern.PENGPENGHU, qingyise=True)),
    ("/hu 老王 清一色碰碰胡 自摸", zimo(Pattern.PENGPENGHU, qingyise=True)),
    ("/hu 老王 自摸清七对", zimo(Pattern.QIDUI, qingyise=True)),  # 清 between keywords
    ("/hu 老王 自摸清龙七对", zimo(Pattern.QIDUI, 1, qingyise=True)),
    ("/hu 老王 自摸封胡小李", zimo(sealed=name("小李"))),
    ("/hu 老王 点炮小李", pao(source=name("小李"))),
    ("/hu 老王点炮3清一色", pao(source=seat(3), qingyise=True)),
    ("/hu 老王 杠上炮3 2", pao(WinType.GANGPAO, source=seat(3), chain=2)),
    (
        "/hu 老王 杠上花暗杠补杠3",
        pao(WinType.GANGKAI, chain_kongs=(ChainKong(KongKind.AN), ChainKong(KongKind.BU, seat(3)))),
    ),
    ("/hu 我自摸", Hu((HuClause(ME, WinType.ZIMO),))),
    ("/hu Ann自摸", Hu((HuClause(name("Ann"), WinType.ZIMO),))),
    ("/hu 老王zimo qys", zimo(qingyise=True)),  # pinyin where it meets Chinese characters
    ("/hu 老王 自摸qys", zimo(qingyise=True)),
    (
        "/hu 老王点炮3；小李点炮3清一色",
        Hu(
            (
                HuClause(WANG, WinType.DIANPAO, source=seat(3)),
                HuClause(name("小李"), WinType.DIANPAO, source=seat(3), qingyise=True),
            )
        ),
    ),
    ("/gang 老王暗杠", Gang(WANG, KongKind.AN)),
    ("/gang 老王明杠小李", Gang(WANG, KongKind.MING, name("小李"))),
    ("/gang 老王 补杠3", Gang(WANG, KongKind.BU, seat(3))),
]


@pytest.mark.parametrize(("text", "expected"), GLUED, ids=[t for t, _ in GLUED])
def test_glued_keywords_are_split(text: str, expected: Request) -> None:
    assert parse(text) == expected


# Names with keyword characters: only keywords of two or more characters are cut out of a word.
NAMES: list[tuple[str, Request]] = [
    ("/hu 小明自摸", Hu((HuClause(name("小明"), WinType.ZIMO),))),  # 明 (ming) stays
    ("/hu 老王 点炮明明", pao(source=name("明明"))),
    ("/hu 清清 自摸 清", Hu((HuClause(name("清清"), WinType.ZIMO, qingyise=True),))),
    ("/hu 封哥自摸", Hu((HuClause(name("封哥"), WinType.ZIMO),))),
    ("/hu 安安 自摸", Hu((HuClause(name("安安"), WinType.ZIMO),))),
    ("/hu 王人和 自摸", Hu((HuClause(name("王人和"), WinType.ZIMO),))),  # 人和 is a name too
    ("/hu 李天和自摸", Hu((HuClause(name("李天和"), WinType.ZIMO),))),
    ("/hu Danzimo 自摸", Hu((HuClause(name("Danzimo"), WinType.ZIMO),))),  # inside Latin: no
    ("/hu 小Ming 自摸", Hu((HuClause(name("小Ming"), WinType.ZIMO),))),  # ming is a name
    ("/gang 小明 明 老王", Gang(name("小明"), KongKind.MING, WANG)),
]


@pytest.mark.parametrize(("text", "expected"), NAMES, ids=[t for t, _ in NAMES])
def test_names_with_keyword_characters(text: str, expected: Request) -> None:
    assert parse(text) == expected


def test_what_the_rule_cannot_tell_apart_is_refused_not_misread() -> None:
    # A name containing a keyword of two or more characters is cut, spaces or not: the
    # remainder is refused, never scored (docs: name that player by seat or @username).
    assert "'海底' is not a player" in str(error("/hu 海底小王 自摸"))
    assert "two ways to win" in str(error("/hu 老王 自摸 海底小王"))
    # A one-character keyword glued to a name is not cut: the word is unknown.
    assert "unknown pattern or flag '封小李'" in str(error("/hu 老王 自摸封小李"))
    # A @username is never cut.
    assert "not a Telegram username" in str(error("/hu @an自摸 zimo"))


# --- hints never change the score unnoticed ---


@pytest.mark.parametrize(
    "text",
    [
        "/hu 老王 自摸 龙八对",  # 龙七对 was once "corrected" to 七对, half the score
        "/hu 老王 自摸 七对子子",
        "/hu 老王 自摸 双龙七对",
        "/hu 老王 自模",
        "/hu 老王 zimo qidui4",  # another number is another hand
        "/hu 老王 zimo qidui12",
        "/gang 老王 明明",
    ],
)
def test_no_guess_for_chinese_words_or_other_numbers(text: str) -> None:
    err = error(text)
    assert "guess" not in err.params and "did you mean" not in str(err)
    assert err.params.get("allowed")  # the accepted words instead


def test_latin_typos_are_still_guessed() -> None:
    assert error("/hu 老王 zimo qiduii").params["guess"] == "qidui"
    assert error("/hu 老王 zimo qidui11").params.get("guess") is None
    assert error("/hu 老王 zimo qidiu1").params["guess"] == "qidui1"


# --- commands Telegram does not mark: /胡 and @bot /command ---

COMMAND_TEXTS: list[tuple[str, str | None]] = [
    ("/胡 老王 自摸", "/胡 老王 自摸"),
    ("／撤销", "／撤销"),  # as typed: recorded with the hand
    ("/排名。", "/排名"),
    ("　＠ｊｉｆｅｎ＿ｂｏｔ　／胡　老王，自摸 ", "／胡　老王，自摸"),
    ("/hu 2 pao 3", "/hu 2 pao 3"),
    ("/胡@jifen_bot 老王 自摸", "/胡@jifen_bot 老王 自摸"),
    ("@jifen_bot /胡 老王 自摸", "/胡 老王 自摸"),
    ("@JIFEN_BOT /hu 2 pao 3", "/hu 2 pao 3"),
    ("@jifen_bot /nonsense", "/nonsense"),  # addressed to us: answered with an error
    ("/胡说八道", None),  # not a command word followed by a space
    ("/胡老王 自摸", None),
    ("/胡@other_bot 老王 自摸", None),
    ("@other_bot /胡 老王 自摸", None),
    ("@jifen_bot 你好", None),
    ("胡了！", None),
    ("今天 /排名", None),
    ("/weather", None),
    ("/hu-x", None),
]


@pytest.mark.parametrize(("text", "expected"), COMMAND_TEXTS, ids=[t for t, _ in COMMAND_TEXTS])
def test_command_text(text: str, expected: str | None) -> None:
    assert command_text(text, "jifen_bot") == expected
    assert command_text(text, "@Jifen_Bot") == expected


def command_name(text: str) -> str | None:
    """The name of the command `text` starts with, as Telegram marks it (any addressee)."""
    typed = read(text, "jifen_bot", marked=True)
    return None if typed is None else typed.name


def test_command_name() -> None:
    assert [command_name(t) for t in ("/胡", "/hu@x", "/kong A an", "/排名", "/hu-x")] == [
        "hu",
        "hu",
        "gang",
        "standings",
        None,
    ]
    assert parse("/胡 老王自摸") == parse("/hu 老王 自摸")


# --- robustness: nothing but ParseError, ever ---

_VOCABULARY = [
    *LATIN,
    *[
        "zimo",
        "自摸",
        "pao",
        "点炮",
        "gangkai",
        "杠上花",
        "gangpao",
        "qianggang",
        "quanqiupao",
        "haidi",
        "haidipao",
    ],
    *[
        "tianhu",
        "dihu",
        "renhu",
        "jihu",
        "pph",
        "qidui",
        "qidui1",
        "qidui2",
        "qidui3",
        "qys",
        "mq",
        "qqr",
        "feng",
        "封",
    ],
    *[
        "an",
        "ming",
        "bu",
        "暗杠",
        "out",
        "出",
        "me",
        "我",
        "season",
        "confirm",
        "stake",
        "lang",
        "sisuang",
        "zerosum",
        "on",
        "off",
    ],
    *[
        "mahjong",
        "510k",
        "510k3",
        "marathon",
        "3",
        "三人",
        "0",
        "1",
        "2",
        "3",
        "4",
        "5",
        "100",
        "99999999999",
        "@x",
        "@",
        "A",
        "老王",
    ],
    *[";", ";", "=", "/", "A=30", "B=5/5", "C=0", "D=100", "1=50", "=", "=5", "A=/", "0.5", ".5"],
]


def _safe_parse(text: str, bot_username: str | None = None) -> None:
    try:
        result = parse(text, bot_username)
    except ParseError as err:
        assert isinstance(err.msgid, str)
        assert isinstance(err.usage, str)
        str(err)
    else:
        assert isinstance(result, Request)


@given(st.text(), st.one_of(st.none(), st.text(max_size=10)))
def test_arbitrary_text_raises_only_parse_error(text: str, bot: str | None) -> None:
    _safe_parse(text, bot)


@given(st.sampled_from(LATIN), st.text(), st.sampled_from(["", " ", "@jifen_bot ", "\u3000"]))
def test_arbitrary_arguments_raise_only_parse_error(command: str, args: str, sep: str) -> None:
    _safe_parse(f"/{command}{sep}{args}", "jifen_bot")


@settings(max_examples=400)
@given(
    st.sampled_from(LATIN),
    st.lists(st.one_of(st.sampled_from(_VOCABULARY), st.text(max_size=4)), max_size=12),
)
def test_keyword_soup_raises_only_parse_error(command: str, words: list[str]) -> None:
    _safe_parse(f"/{command} " + " ".join(words))


# --- round trips: a request written out the way users do parses back to itself ---

_NAMES = st.one_of(
    st.sampled_from(["老王", "小李", "Alice", "bob", "Feng", "Ming", "An", "Bu", "O'Neil"]),
    st.text(alphabet="王李张刘陈杨赵黄周吴", min_size=1, max_size=4),
)
REFS = st.one_of(
    st.integers(1, 4).map(seat),
    st.from_regex(r"[a-z0-9_]{1,12}", fullmatch=True).map(user),
    st.just(ME),
    _NAMES.map(name),
)


def _key(ref: PlayerRef) -> tuple[RefKind, str]:
    return ref.kind, ref.value.casefold()


def _distinct_refs(min_size: int, max_size: int) -> st.SearchStrategy[list[PlayerRef]]:
    return st.lists(REFS, min_size=min_size, max_size=max_size, unique_by=_key)


@st.composite
def ref_words(draw: st.DrawFn, ref: PlayerRef) -> str:
    if ref.kind is RefKind.ME:
        return draw(st.sampled_from(["me", "ME", "我", "i"]))
    if ref.kind is RefKind.USERNAME:
        return "@" + draw(st.sampled_from([ref.value, ref.value.upper()]))
    return ref.value


def _cased(draw: st.DrawFn, words: list[str]) -> str:
    word = draw(st.sampled_from(words))
    return draw(st.sampled_from([word, word.upper(), word.capitalize()]))


HOW_WORDS = {
    WinType.ZIMO: ["zimo", "自摸", "自摸胡"],
    WinType.DIANPAO: ["pao", "dianpao", "点炮", "放铳", "接炮"],
    WinType.GANGKAI: ["gangkai", "杠上花"],
    WinType.GANGPAO: ["gangpao", "杠上炮"],
    WinType.QIANGGANG: ["qianggang", "抢杠"],
    WinType.QUANQIUPAO: ["quanqiupao", "全求炮"],
    WinType.HAIDILAO: ["haidi", "haidilao", "海底捞月", "海底捞", "海底", "妙手回春"],
    WinType.HAIDIPAO: ["haidipao", "海底炮"],
    WinType.TIANHU: ["tianhu", "天胡"],
    WinType.DIHU: ["dihu", "地胡"],
    WinType.RENHU: ["renhu", "人胡"],
}
PATTERN_WORDS = {
    (Pattern.JIHU, 0): ["jihu", "鸡胡", "平胡", "屁胡"],
    (Pattern.PENGPENGHU, 0): ["pph", "pengpenghu", "碰碰胡", "对对胡", "大对子"],
    (Pattern.QIDUI, 0): ["qidui", "七对", "七小对", "小七对"],
    (Pattern.QIDUI, 1): ["qidui1", "七大对", "龙七对"],
    (Pattern.QIDUI, 2): ["qidui2", "豪华大七对", "豪华七对", "双豪七"],
    (Pattern.QIDUI, 3): ["qidui3", "超级豪华大七对", "超豪华七对", "三豪七"],
}
KONG_WORDS = {
    KongKind.AN: ["an", "暗杠", "暗"],
    KongKind.MING: ["ming", "明杠", "明"],
    KongKind.BU: ["bu", "补杠", "补"],
}
PAID_BY_ONE = {
    WinType.DIANPAO,
    WinType.GANGPAO,
    WinType.QIANGGANG,
    WinType.QUANQIUPAO,
    WinType.HAIDIPAO,
}


@st.composite
def chain_kongs(draw: st.DrawFn) -> ChainKong:
    kind = draw(st.sampled_from(KongKind))
    return ChainKong(kind, None if kind is KongKind.AN else draw(REFS))


@st.composite
def hu_clauses(draw: st.DrawFn) -> HuClause:
    how = draw(st.sampled_from(WinType))
    chain = None
    kongs: tuple[ChainKong, ...] = ()
    if how in (WinType.GANGPAO, WinType.QIANGGANG):
        chain = draw(st.none() | st.integers(1, 4))
    elif how is WinType.GANGKAI:
        kongs = tuple(draw(st.lists(chain_kongs(), max_size=4)))
        chain = None if kongs else draw(st.none() | st.integers(1, 4))
    pattern, groups = draw(st.sampled_from(list(PATTERN_WORDS)))
    return HuClause(
        draw(REFS),
        how,
        source=draw(REFS) if how in PAID_BY_ONE else None,
        chain=chain,
        chain_kongs=kongs,
        pattern=pattern,
        groups=groups,
        qingyise=draw(st.booleans()),
        menqing=draw(st.booleans()),
        quanqiuren=draw(st.booleans()),
        sealed=draw(st.none() | REFS),
    )


@st.composite
def clause_words(draw: st.DrawFn, clause: HuClause) -> list[str]:
    how = [_cased(draw, HOW_WORDS[clause.how])]
    if clause.source is not None:
        how.append(draw(ref_words(clause.source)))
    if clause.chain is not None:
        how.append(str(clause.chain))
    for kong in clause.chain_kongs:
        how.append(_cased(draw, KONG_WORDS[kong.kind]))
        if kong.source is not None:
            how.append(draw(ref_words(kong.source)))
    extras: list[list[str]] = [how]
    if clause.pattern is not Pattern.JIHU or draw(st.booleans()):
        extras.append([_cased(draw, PATTERN_WORDS[clause.pattern, clause.groups])])
    for flag, words in (
        (clause.qingyise, ["qys", "清一色", "清"]),
        (clause.menqing, ["mq", "门清"]),
        (clause.quanqiuren, ["qqr", "全求人"]),
    ):
        if flag:
            extras.append([_cased(draw, words)])
    if clause.sealed is not None:
        extras.append([_cased(draw, ["feng", "封胡", "封"]), draw(ref_words(clause.sealed))])
    ordered = draw(st.permutations(extras))
    return [draw(ref_words(clause.winner)), *(w for group in ordered for w in group)]


@st.composite
def clause_text(draw: st.DrawFn, clause: HuClause) -> str:
    return " ".join(draw(clause_words(clause)))


_CUT = {
    word
    for table in (HOW_WORDS, PATTERN_WORDS, KONG_WORDS)
    for words in table.values()
    for word in words
    if len(word) > 1 and not word.isascii()
} | {"清一色", "门清", "全求人", "封胡"}


def glued(words: list[str]) -> str:
    """`words` typed without a space next to every Chinese keyword of two or more characters
    (a @username keeps its space after it)."""
    text = words[0]
    for before, word in itertools.pairwise(words):
        cut = before in _CUT or word in _CUT
        text += word if cut and not text.split()[-1].startswith("@") else " " + word
    return text


@given(st.data(), st.lists(hu_clauses(), min_size=1, max_size=3))
def test_hu_round_trip_without_spaces(data: st.DataObject, clauses: list[HuClause]) -> None:
    texts = [glued(data.draw(clause_words(clause))) for clause in clauses]
    assert parse("/hu " + ";".join(texts)) == Hu(tuple(clauses))


@given(st.data(), st.lists(hu_clauses(), min_size=1, max_size=3))
def test_hu_round_trip(data: st.DataObject, clauses: list[HuClause]) -> None:
    texts = [data.draw(clause_text(clause)) for clause in clauses]
    separator = data.draw(st.sampled_from(["; ", " ;", "；", ";"]))
    assert parse("/hu " + separator.join(texts)) == Hu(tuple(clauses))


@st.composite
def reports(draw: st.DrawFn) -> Report:
    players = draw(_distinct_refs(3, 4))
    points = st.integers(0, 20).map(lambda n: n * 5)
    entries = tuple(ReportEntry(p, draw(points), draw(st.none() | points)) for p in players)
    out = draw(st.lists(st.sampled_from(players), min_size=2, max_size=3, unique_by=_key))
    return Report(entries, tuple(out))


@given(st.data(), reports())
def test_report_round_trip(data: st.DataObject, report: Report) -> None:
    equals = data.draw(st.sampled_from(["=", "＝", " = "]))
    words = []
    for entry in report.entries:
        held = "" if entry.held is None else f"/{entry.held}"
        words.append(f"{data.draw(ref_words(entry.player))}{equals}{entry.table}{held}")
    words.append(data.draw(st.sampled_from(["out", "OUT", "出"])))
    words.extend(data.draw(ref_words(p)) for p in report.out)
    assert parse("/r " + " ".join(words)) == report


@given(
    st.sampled_from(
        [
            (Game.MAHJONG, "mahjong"),
            (Game.K510, "510k"),
            (Game.K510_3, "510k3"),
            (Game.K510, "五十k"),
        ]
    ),
    st.booleans(),
    st.sampled_from([None, True, False]),
    st.data(),
)
def test_new_table_round_trip(
    game: tuple[Game, str], marathon: bool, option: bool | None, data: st.DataObject
) -> None:
    kind, word = game
    words = [word]
    if kind is Game.MAHJONG:
        expected = NewTable(kind, sisuang=option)
        if option is not None:
            words.append("sisuang" if option else "nosisuang")
    else:
        expected = NewTable(kind, marathon=marathon, zerosum=option)
        if marathon:
            words.append("marathon")
        if option is not None:
            words.append("zerosum" if option else "nozerosum")
    assert parse("/new " + " ".join(data.draw(st.permutations(words)))) == expected


@given(st.decimals(min_value=0, max_value=1_000_000, places=4, allow_nan=False))
def test_stake_round_trip(stake: Decimal) -> None:
    request = parse(f"/set stake {stake:f}")
    assert isinstance(request, SetOption)
    assert Decimal(request.value) == stake
    assert parse(f"/set stake {request.value}") == request  # normalised: a fixed point


@given(_distinct_refs(3, 4), st.data())
def test_seats_round_trip(refs: list[PlayerRef], data: st.DataObject) -> None:
    text = " ".join(data.draw(ref_words(r)) for r in refs)
    assert parse("/seats " + text) == Seats(tuple(refs))
