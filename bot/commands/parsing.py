"""Chat command parser: the text of a message → a typed request of `service.requests`.

The grammar is the one docs/commands.md describes. Keywords are case-insensitive and have Chinese
and pinyin aliases; full-width characters (`／`, `＝`, `；`, `１`, the ideographic space) read as
their ASCII forms and commas as spaces. `parse` raises nothing but `ParseError`: its `msgid` (an
English template marked with `N_`) and `params` let the bot reply with a translated, specific
message, and its `usage` is the correct form of the command.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from typing import TypeVar

from bot.commands.timezones import EXAMPLE, zone_name
from bot.i18n import N_
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
    OpenApp,
    Pay,
    PlayerRef,
    RefKind,
    Report,
    ReportEntry,
    Request,
    Reset,
    Rules,
    Score,
    ScoreEntry,
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
    Unlink,
)

__all__ = [
    "COMMANDS",
    "USAGE",
    "NotForThisBot",
    "ParseError",
    "command_name",
    "command_text",
    "normalise",
    "parse",
    "synonyms",
]


class ParseError(Exception):
    """A message that is not a valid command.

    `msgid` is an English template (marked with `N_`) filled from `params`; `usage` is the correct
    form of the command (also marked), "" when there is none to show.
    """

    def __init__(self, msgid: str, usage: str = "", /, **params: str) -> None:
        super().__init__(msgid)
        self.msgid = msgid
        self.usage = usage
        self.params: dict[str, str] = params

    def __str__(self) -> str:
        return self.msgid.format_map(self.params)


class NotForThisBot(ParseError):
    """`/cmd@other_bot`: a command addressed to another bot, to be ignored silently."""


# --- usage of each command (keys: canonical command names) ---

USAGE: dict[str, str] = {
    "new": N_(
        "/new mahjong [sisuang] · /new 510k [marathon] [zerosum] · /new 510k3 [marathon]"
        " · /new free [name]"
    ),
    "join": N_("/join [guest name]"),
    "seats": N_("/seats <player 1> <player 2> <player 3> [<player 4>] (free: 2–10 players)"),
    "dealer": N_("/dealer <player>"),
    "players": N_("/players"),
    "link": N_("/link <guest> @<username>"),
    "unlink": N_("/unlink <player>"),
    "gang": N_("/gang <player> an · /gang <player> ming <from> · /gang <player> bu <from>"),
    "hu": N_("/hu <winner> <how> [pattern] [flags]"),
    "liuju": N_("/liuju"),
    "r": N_("/r <player>=<table points>[/<points in hand>] … out <first> <second> [<third>]"),
    "undo": N_("/undo [hand number]"),
    "standings": N_("/standings [season]"),
    "history": N_("/history [n] [season <number>]"),
    "settle": N_("/settle [season]"),
    "stats": N_("/stats [season]"),
    "chart": N_("/chart [season]"),
    "export": N_("/export [season]"),
    "rules": N_("/rules"),
    "help": N_("/help"),
    "reset": N_("/reset [confirm]"),
    "seasons": N_("/seasons"),
    "app": N_("/app"),
    "set": N_(
        "/set stake 0.5 · /set lang zh|en · /set sisuang on|off · /set zerosum on|off · "
        "/set tz Asia/Shanghai"
    ),
    "s": N_("/s <player>+<points> <player>-<points> … [<player> without points: the balance]"),
    "pay": N_("/pay <payer> <payee> <amount>"),
}

#: Every command word accepted (lower-case) → its canonical name.
_COMMAND_NAMES: dict[str, str] = {
    **{name: name for name in USAGE},
    "start": "help",
    "rank": "standings",
    "draw": "liuju",
    "kong": "gang",
    "report": "r",
    "流局": "liuju",
    "胡": "hu",
    "杠": "gang",
    "撤销": "undo",
    "排名": "standings",
    "帮助": "help",
    "规则": "rules",
    "加入": "join",
    "结算": "settle",
    "score": "s",
    "记": "s",
    "记分": "s",
    "付": "pay",
}

#: The Latin command names accepted (Telegram commands), aliases included.
COMMANDS: tuple[str, ...] = tuple(name for name in _COMMAND_NAMES if name.isascii())

# --- keywords (all lower-case) ---

_V = TypeVar("_V")


def _aliases(groups: Mapping[_V, Iterable[str]]) -> dict[str, _V]:
    """Invert `{value: words}` into `{word: value}`."""
    return {word: value for value, words in groups.items() for word in words}


_HOW = _aliases(
    {
        WinType.ZIMO: ("zimo", "zm", "自摸", "自摸胡"),
        WinType.DIANPAO: (
            *("pao", "dianpao", "fangpao", "fangchong", "dp"),
            *("点炮", "放炮", "放铳", "放冲", "接炮", "点炮胡", "放炮胡", "炮胡"),
        ),
        WinType.GANGKAI: ("gangkai", "gangshanghua", "gsh", "杠上花", "杠上开花", "杠开"),
        WinType.GANGPAO: ("gangpao", "gangshangpao", "gsp", "杠上炮"),
        WinType.QIANGGANG: ("qianggang", "qiangganghu", "qgh", "抢杠", "抢杠胡", "抢杠和"),
        WinType.QUANQIUPAO: ("quanqiupao", "全求炮"),
        WinType.HAIDILAO: ("haidi", "haidilao", "海底捞月", "海底捞", "海底", "妙手回春"),
        WinType.HAIDIPAO: ("haidipao", "海底炮"),
        WinType.TIANHU: ("tianhu", "天胡", "天和"),
        WinType.DIHU: ("dihu", "地胡", "地和"),
        WinType.RENHU: ("renhu", "人胡", "人和"),
    }
)

_PATTERNS = _aliases(
    {
        (Pattern.JIHU, 0): ("jihu", "pinghu", "pihu", "鸡胡", "平胡", "屁胡"),
        (Pattern.PENGPENGHU, 0): (
            *("pph", "pengpenghu", "pengpeng", "duiduihu"),
            *("碰碰胡", "碰碰和", "对对胡", "对对和", "大对子"),
        ),
        (Pattern.QIDUI, 0): ("qidui", "qidui0", "七对", "七小对", "七对子", "小七对"),
        (Pattern.QIDUI, 1): ("qidui1", "longqidui", "七大对", "龙七对", "龙七"),
        (Pattern.QIDUI, 2): (
            *("qidui2", "shuanghaoqi", "豪华大七对", "豪华七对"),
            *("双豪七", "双豪华七对"),
        ),
        (Pattern.QIDUI, 3): (
            *("qidui3", "sanhaoqi", "超级豪华大七对", "超级豪华七对", "超豪华七对"),
            *("三豪七", "三豪华七对"),
        ),
    }
)

#: Words whose number of fours differs by region: refused with the choices, never guessed.
_AMBIGUOUS = {
    word: N_(
        "'{word}' counts differently by region: write 七大对 (qidui1) for one set of four, "
        "双豪七 (qidui2) for two"
    )
    for word in ("豪七", "haoqi")
}

_QYS, _MQ, _QQR, _FENG = "qys", "mq", "qqr", "feng"
_FLAGS = _aliases(
    {
        _QYS: ("qys", "qingyise", "清一色", "清"),
        _MQ: ("mq", "menqing", "门清", "门前清"),
        _QQR: ("qqr", "quanqiuren", "全求人"),
        _FENG: ("feng", "fenghu", "封胡", "封"),
    }
)

_KONGS = _aliases(
    {
        KongKind.AN: ("an", "angang", "暗杠", "暗"),
        KongKind.MING: ("ming", "minggang", "明杠", "明"),
        KongKind.BU: ("bu", "bugang", "jiagang", "补杠", "补", "加杠"),
    }
)

#: Words that cannot stand for a player where /hu expects one ("feng" and the kong words can:
#: Feng, Ming, An and Bu are common names).
_NOT_A_PLAYER = frozenset(
    {*_HOW, *_PATTERNS, *(word for word, flag in _FLAGS.items() if flag != _FENG)}
)

#: Keywords that are also given names: never cut out of a longer word.
_GIVEN_NAMES = frozenset({"天和", "地和", "人和"})


def _glue_splitter(keywords: frozenset[str]) -> Callable[[str], list[str]]:
    """A function cutting a word typed without spaces into `keywords` and what stands between
    them, e.g. `老王自摸清一色` → `老王 自摸 清一色`, `点炮3` → `点炮 3`.

    The rule (docs/commands.md): a word that is a keyword, or has none in it, stays whole; in
    the others the Chinese keywords of two or more characters are cut out (the longest at each
    position, left to right), and a pinyin keyword only where it meets Chinese characters
    (`老王zimo`, never inside `Danzimo`) and unless it is also a name (feng, an, ming, bu).
    What stands between the cuts is read whole: a name, a seat number, or a one-character
    keyword (清 封 暗 明 补) — so 小明 stays 小明. 天和, 地和 and 人和 are also given names:
    they count only as whole words.
    """
    cut = sorted(
        (w for w in keywords if len(w) > 1 and not w.isascii() and w not in _GIVEN_NAMES),
        key=len,
        reverse=True,
    )
    pattern = re.compile(
        "|".join(map(re.escape, cut)) + r"|(?<![\x00-\x7f])[a-z0-9]+(?![\x00-\x7f])",
        re.IGNORECASE,
    )
    cuttable = frozenset(cut) | (keywords & _NOT_A_PLAYER)

    def split(word: str) -> list[str]:
        if word.lower() in keywords or word[0] == "@":
            return [word]
        pieces: list[str] = []
        start = 0
        for found in pattern.finditer(word):
            if found.group().lower() not in cuttable:  # a Latin run that is no keyword
                continue
            pieces += [word[start : found.start()], found.group()]
            start = found.end()
        return [piece for piece in (*pieces, word[start:]) if piece]

    return split


_split_hu = _glue_splitter(frozenset({*_HOW, *_PATTERNS, *_FLAGS, *_KONGS}))
_split_gang = _glue_splitter(frozenset(_KONGS))


_ME = frozenset({"me", "i", "我"})
_OUT = frozenset({"out", "出"})
_SEASON = frozenset({"season", "赛季"})
MAX_HAND_NO = 2**31 - 1
_CONFIRM = frozenset({"confirm", "yes", "y", "ok", "确认", "是"})
_SEATS = frozenset({"1", "2", "3", "4"})

_GAMES = _aliases(
    {
        Game.MAHJONG: ("mahjong", "mj", "majiang", "麻将"),
        Game.K510: ("510k", "510", "wsk", "wushik", "五十k"),
        Game.K510_3: ("510k3", "wsk3", "五十k3"),
        Game.FREE: ("free", "自由", "其他"),
    }
)
_THREE = frozenset({"3", "3p", "3人", "三人"})
#: /new options: word → (option, value).
_NEW_OPTIONS = _aliases(
    {
        ("sisuang", True): ("sisuang", "死双"),
        ("sisuang", False): ("nosisuang", "不死双"),
        ("marathon", True): ("marathon", "lianda", "连打"),
        ("zerosum", True): ("zerosum", "linghe", "零和"),
        ("zerosum", False): ("nozerosum", "非零和"),
    }
)

_SETTINGS = _aliases(
    {
        Setting.STAKE: ("stake", "底分", "注码"),
        Setting.LANG: ("lang", "language", "语言"),
        Setting.SISUANG: ("sisuang", "死双"),
        Setting.ZEROSUM: ("zerosum", "零和"),
        Setting.TZ: ("tz", "timezone", "时区"),
    }
)
_LANGS = _aliases(
    {
        "zh": ("zh", "cn", "zh-cn", "zh_cn", "zh-hans", "chinese", "中文", "汉语"),
        "en": ("en", "english", "英文", "英语"),
    }
)
_SWITCH = _aliases(
    {
        "on": ("on", "true", "1", "yes", "开", "开启", "是"),
        "off": ("off", "false", "0", "no", "关", "关闭", "否"),
    }
)


def synonyms() -> str:
    """The Chinese words of /hu that mean the same, for /rules: `自摸 = 自摸胡 · …`."""
    same: dict[object, list[str]] = {}
    for table in (_HOW, _PATTERNS, _FLAGS):
        for word, meaning in table.items():
            if not word.isascii():
                same.setdefault(meaning, []).append(word)
    return " · ".join(f"{words[0]} = {' '.join(words[1:])}" for words in same.values() if words[1:])


# What is allowed, for error messages (language-neutral: keywords only).
_HOW_LIST = (
    "zimo 自摸 · pao 点炮 · gangkai 杠上花 · gangpao 杠上炮 · qianggang 抢杠 · quanqiupao 全求炮 · "
    "haidi 海底捞月 · haidipao 海底炮 · tianhu 天胡 · dihu 地胡 · renhu 人胡"
)
_EXTRA_LIST = (
    "jihu 鸡胡 · pph 碰碰胡 · qidui 七对 · qidui1 七大对 · qidui2 豪华大七对 · "
    "qidui3 超级豪华大七对 · qys 清一色 · mq 门清 · qqr 全求人 · feng 封胡"
)
_KONG_LIST = "an 暗杠 · ming 明杠 · bu 补杠"
_GAME_LIST = "mahjong 麻将 · 510k 五十k · 510k3 · free 自由"
_NEW_LIST = f"{_GAME_LIST} · 3 三人 · sisuang 死双 · marathon 连打 · zerosum 零和"
_SETTING_LIST = "stake · lang · sisuang · zerosum · tz"
_LANG_LIST = "zh 中文 · en english"
_SWITCH_LIST = "on 开 · off 关"

# --- text normalisation and small readers ---


def _normalisation() -> dict[int, str]:
    """Full-width ASCII → ASCII; ideographic space, commas, 。 and zero-width spaces → space."""
    table = {code: chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)}
    for char in "\u3000,，、､。｡\u200b\ufeff":
        table[ord(char)] = " "
    return table


_NORMALISE = _normalisation()


def normalise(text: str) -> str:
    """`text` as the parser reads it (full-width → ASCII, commas → spaces): names typed in
    commands come out this way, so whoever matches them against stored names may apply it too."""
    return text.translate(_NORMALISE)


_HEAD = re.compile(
    r"/(?P<cmd>[A-Za-z0-9_]+|[^\sA-Za-z0-9_@/]+)(?:@(?P<bot>[A-Za-z0-9_]+))?(?P<rest>.*)",
    re.DOTALL,
)
_DIGITS = re.compile(r"[0-9]+")
_NOT_DIGITS = re.compile(r"[^0-9]+")
_USERNAME = re.compile(r"[A-Za-z0-9_]{1,32}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_STAKE = re.compile(r"[0-9]{1,7}(?:\.[0-9]{0,4})?|\.[0-9]{1,4}")
_AROUND_EQUALS = re.compile(r"\s*([=/])(?:\s+(?=[0-9]))?")  # "A = 30 / 10" → "A=30/10"
_GUEST_FORBIDDEN = re.compile(r"[=/;]")

_MAX_NAME = 64  # a Telegram first name
_MAX_GUEST = 32


def _show(text: str) -> str:
    """`text` shortened for an error message."""
    return text if len(text) <= 30 else text[:29] + "…"


def _words(args: str) -> list[str]:
    return args.replace(";", " ").split()


def _int(digits: str) -> int:
    """The value of ASCII `digits`, saturating at 10⁹ (no huge ints from hostile input)."""
    return int(digits) if len(digits) <= 9 else 10**9


def _unknown(
    word: str, choices: Iterable[str], usage: str, msgid: str, msgid_guess: str, allowed: str = ""
) -> ParseError:
    """The error for an unknown `word`, with `msgid_guess` when it looks like a typo of one of
    `choices`.

    Only a Latin word is guessed at, and only as a word with the same digits: a Chinese word
    that is not a keyword is more often another hand (龙七对 is not 七对) or a regional name
    than a typo, and a different number is a different hand (qidui4 is not qidui1) — a guess
    must never change the score unnoticed. The others get the list of `allowed` words.
    """
    if word.isascii() and len(word) <= 40:
        digits = _NOT_DIGITS.sub("", word)
        same = [c for c in choices if c.isascii() and _NOT_DIGITS.sub("", c) == digits]
        guess = difflib.get_close_matches(word.lower(), same, n=1, cutoff=0.75)
        if guess:
            return ParseError(msgid_guess, usage, word=_show(word), guess=guess[0], allowed=allowed)
    return ParseError(msgid, usage, word=_show(word), allowed=allowed)


def _no_more(words: list[str], usage: str) -> None:
    """Refuse words left over at the end of a command."""
    if words:
        raise ParseError(
            N_("unexpected '{word}' at the end of the command"), usage, word=_show(words[0])
        )


class _Cursor:
    """The words of a command, read left to right."""

    __slots__ = ("_pos", "_words")

    def __init__(self, words: list[str]) -> None:
        self._words = words
        self._pos = 0

    def peek(self) -> str | None:
        return self._words[self._pos] if self._pos < len(self._words) else None

    def next(self) -> str | None:
        word = self.peek()
        self._pos += word is not None
        return word


# --- players ---


def _player(word: str, usage: str) -> PlayerRef:
    """A player reference: seat 1–4, @username, me/我, or a name (kept as typed)."""
    if word in _SEATS:
        return PlayerRef(RefKind.SEAT, word)
    if word[0] == "@":
        if not _USERNAME.fullmatch(word, 1):
            raise ParseError(
                N_("'{word}' is not a Telegram username (letters, digits and _ after the @)"),
                usage,
                word=_show(word),
            )
        return PlayerRef(RefKind.USERNAME, word[1:].lower())
    if word.lower() in _ME:
        return PlayerRef(RefKind.ME)
    if _DIGITS.fullmatch(word):
        raise ParseError(N_("there is no seat {word}: seats are 1 to 4"), usage, word=_show(word))
    if len(word) > _MAX_NAME or _CONTROL.search(word):
        raise ParseError(N_("'{word}' is not a player's name"), usage, word=_show(word))
    return PlayerRef(RefKind.NAME, word)


def _ref_key(ref: PlayerRef) -> tuple[RefKind, str]:
    """What makes two references the same as typed (names are case-insensitive)."""
    return ref.kind, ref.value.casefold()


def _guest(word: str, usage: str) -> str:
    """A valid guest name."""
    if word[0] == "@":
        raise ParseError(
            N_("'{word}': a guest name cannot start with @ (a Telegram user sends /join)"),
            usage,
            word=_show(word),
        )
    if _DIGITS.fullmatch(word):
        raise ParseError(
            N_("'{word}': a guest name cannot be a number (1 to 4 are seats)"),
            usage,
            word=_show(word),
        )
    if len(word) > _MAX_GUEST:
        raise ParseError(
            N_("'{word}' is too long: a guest name has at most 32 characters"),
            usage,
            word=_show(word),
        )
    if _CONTROL.search(word):
        raise ParseError(N_("a guest name cannot contain control characters"), usage)
    if forbidden := _GUEST_FORBIDDEN.search(word):
        raise ParseError(
            N_("'{word}': a guest name cannot contain '{char}'"),
            usage,
            word=_show(word),
            char=forbidden.group(),
        )
    key = word.lower()
    if key in _ME or key in _OUT or key in _NOT_A_PLAYER:
        raise ParseError(
            N_("'{word}' is a keyword: choose another guest name"), usage, word=_show(word)
        )
    return word


def _distinct(refs: list[PlayerRef], words: list[str], usage: str) -> None:
    """Refuse a player named twice."""
    seen: set[tuple[RefKind, str]] = set()
    for ref, word in zip(refs, words, strict=True):
        if _ref_key(ref) in seen:
            raise ParseError(N_("{player} is named twice"), usage, player=_show(word))
        seen.add(_ref_key(ref))


# --- tables ---


def _parse_new(args: str) -> NewTable:
    """`/new mahjong [sisuang]` · `/new 510k|510k3 [3] [marathon] [zerosum]`, in any order."""
    usage = USAGE["new"]
    game: Game | None = None
    game_word = ""
    three = False
    options: dict[str, tuple[bool, str]] = {}
    words = _words(args)
    confirm = any(w.lower() in _CONFIRM for w in words)
    words = [w for w in words if w.lower() not in _CONFIRM]
    if words and _GAMES.get(words[0].lower()) is Game.FREE:
        return replace(_parse_new_free(words[1:]), confirm=confirm)
    for word in words:
        key = word.lower()
        if key in _CONFIRM:
            confirm = True
        elif key in _GAMES:
            if game is not None:
                raise ParseError(
                    N_("two games given: '{first}' and '{second}'"),
                    usage,
                    first=_show(game_word),
                    second=_show(word),
                )
            game, game_word = _GAMES[key], word
        elif key in _THREE:
            three = True
        elif key in _NEW_OPTIONS:
            option, value = _NEW_OPTIONS[key]
            if option in options:
                raise ParseError(
                    N_("'{second}' repeats '{first}'"),
                    usage,
                    first=_show(options[option][1]),
                    second=_show(word),
                )
            options[option] = value, word
        else:
            raise _unknown(
                word,
                _GAMES.keys() | _NEW_OPTIONS.keys(),
                usage,
                N_("unknown game or option '{word}'; use: {allowed}"),
                N_("unknown game or option '{word}' — did you mean '{guess}'? Use: {allowed}"),
                _NEW_LIST,
            )
    if game is None:
        raise ParseError(N_("which game? {allowed}"), usage, allowed=_GAME_LIST)
    if game is Game.MAHJONG:
        if three:
            raise ParseError(N_("mahjong needs four players; three play 510k3"), usage)
        for option in ("marathon", "zerosum"):
            if option in options:
                raise ParseError(
                    N_("'{word}' is an option of 510k, not of mahjong"),
                    usage,
                    word=_show(options[option][1]),
                )
    else:
        if three:
            game = Game.K510_3
        if "sisuang" in options:
            raise ParseError(
                N_("'{word}' is an option of mahjong, not of 510k"),
                usage,
                word=_show(options["sisuang"][1]),
            )

    def flag(option: str) -> bool | None:
        return options[option][0] if option in options else None

    return NewTable(
        game,
        marathon=bool(flag("marathon")),
        sisuang=flag("sisuang"),
        zerosum=flag("zerosum"),
        confirm=confirm,
    )


def _parse_join(args: str) -> Join:
    """`/join` (the sender) · `/join <guest>`."""
    usage = USAGE["join"]
    words = _words(args)
    if not words or (len(words) == 1 and words[0].lower() in _ME):
        return Join()
    if len(words) > 1:
        raise ParseError(
            N_("a guest name is one word, without spaces: '{words}'"),
            usage,
            words=_show(" ".join(words)),
        )
    return Join(_guest(words[0], usage))


def _parse_seats(args: str) -> Seats:
    """`/seats A B C [D]` (a free table: 2–10 players): the whole seating in seat order
    (unknown names become guests); the table's game says how many it needs."""
    usage = USAGE["seats"]
    words = _words(args)
    if not 2 <= len(words) <= 10:
        raise ParseError(
            N_("give 2 to 10 players in seat order (got {count})"), usage, count=str(len(words))
        )
    refs = [_player(word, usage) for word in words]
    for ref in refs:
        if ref.kind is RefKind.NAME:
            _guest(ref.value, usage)
    _distinct(refs, words, usage)
    return Seats(tuple(refs))


def _parse_dealer(args: str) -> SetDealer:
    """`/dealer <player>`."""
    usage = USAGE["dealer"]
    words = _words(args)
    if not words:
        raise ParseError(N_("say who deals"), usage)
    _no_more(words[1:], usage)
    return SetDealer(_player(words[0], usage))


def _parse_link(args: str) -> Link:
    """`/link <guest> @user` (either order; `me` for the sender)."""
    usage = USAGE["link"]
    words = _words(args)
    if len(words) != 2:
        raise ParseError(N_("give the guest's name and the @username to link"), usage)
    guest, user = words
    if guest[0] == "@" and user[0] != "@":
        guest, user = user, guest
    ref = _player(user, usage)
    if ref.kind not in (RefKind.USERNAME, RefKind.ME):
        raise ParseError(N_("'{word}' is not a @username"), usage, word=_show(user))
    return Link(_guest(guest, usage), ref)


def _parse_unlink(args: str) -> Unlink:
    """`/unlink <player>`: the player is a guest again."""
    usage = USAGE["unlink"]
    words = _words(args)
    if len(words) != 1:
        raise ParseError(N_("give the name of the player to unlink"), usage)
    ref = _player(words[0], usage)
    if ref.kind is not RefKind.NAME:
        raise ParseError(N_("'{word}' is not a player's name"), usage, word=_show(words[0]))
    return Unlink(ref.value)


# --- mahjong ---


def _parse_gang(args: str) -> Gang:
    """`/gang <player> an` · `/gang <player> ming|bu <from>`."""
    usage = USAGE["gang"]
    words = [piece for word in _words(args) for piece in _split_gang(word)]
    if not words:
        raise ParseError(N_("say who konged and which kong: {allowed}"), usage, allowed=_KONG_LIST)
    if len(words) == 1:
        if words[0].lower() in _KONGS:
            raise ParseError(
                N_("name the player who konged before '{word}'"), usage, word=_show(words[0])
            )
        raise ParseError(N_("say which kong: {allowed}"), usage, allowed=_KONG_LIST)
    player = _player(words[0], usage)
    kind = _KONGS.get(words[1].lower())
    if kind is None:
        raise _unknown(
            words[1],
            _KONGS,
            usage,
            N_("unknown kong '{word}'; use: {allowed}"),
            N_("unknown kong '{word}' — did you mean '{guess}'? Use: {allowed}"),
            _KONG_LIST,
        )
    if kind is KongKind.AN:
        _no_more(words[2:], usage)
        return Gang(player, kind)
    if len(words) < 3:
        raise ParseError(
            N_("'{word}' must be followed by the player whose tile was konged"),
            usage,
            word=_show(words[1]),
        )
    _no_more(words[3:], usage)
    return Gang(player, kind, _player(words[2], usage))


def _hu_player(words: _Cursor, msgid: str, after: str) -> PlayerRef:
    """The player that must follow `after` in a /hu clause (`msgid` names what is missing)."""
    word = words.next()
    if word is None or word.lower() in _NOT_A_PLAYER:
        raise ParseError(msgid, USAGE["hu"], word=_show(after))
    return _player(word, USAGE["hu"])


def _payer(words: _Cursor, after: str) -> PlayerRef:
    return _hu_player(words, N_("'{word}' must be followed by the player who paid"), after)


def _optional_payer(words: _Cursor) -> PlayerRef | None:
    """The player named next in the clause, if the next word is not a keyword (a seat number
    is a player here)."""
    word = words.peek()
    if word is None or word.lower() in _NOT_A_PLAYER or word.lower() in _FLAGS:
        return None
    words.next()
    return _player(word, USAGE["hu"])


def _chain_length(words: _Cursor) -> int | None:
    """An optional number of chained kongs (1–4) next in the clause."""
    word = words.peek()
    if word is None or not _DIGITS.fullmatch(word):
        return None
    words.next()
    if not 1 <= _int(word) <= 4:
        raise ParseError(
            N_("a chain of {word} kongs? The number must be 1 to 4"), USAGE["hu"], word=_show(word)
        )
    return _int(word)


def _gangkai_chain(words: _Cursor) -> tuple[int | None, tuple[ChainKong, ...]]:
    """After gangkai: `[n]`, or the chain's kongs inline (`an`, `ming <from>`, `bu <from>`)."""
    count = _chain_length(words)
    kongs: list[ChainKong] = []
    while (word := words.peek()) is not None and word.lower() in _KONGS:
        words.next()
        kind = _KONGS[word.lower()]
        source = None
        if kind is not KongKind.AN:
            source = _hu_player(
                words, N_("'{word}' must be followed by the player whose tile was konged"), word
            )
        kongs.append(ChainKong(kind, source))
    if count is not None and kongs:
        raise ParseError(
            N_("after gangkai give the number of kongs or the kongs themselves, not both"),
            USAGE["hu"],
        )
    if len(kongs) > 4:
        raise ParseError(
            N_("a chain of {word} kongs? The number must be 1 to 4"),
            USAGE["hu"],
            word=str(len(kongs)),
        )
    return count, tuple(kongs)


def _stray(word: str, how: WinType | None) -> ParseError:
    """The error for a word out of place in a /hu clause."""
    usage = USAGE["hu"]
    if _DIGITS.fullmatch(word):
        return ParseError(
            N_(
                "'{word}' is out of place: a number of kongs goes right after gangkai, "
                "or after the player of gangpao or qianggang"
            ),
            usage,
            word=_show(word),
        )
    if word.lower() in _AMBIGUOUS:
        return ParseError(_AMBIGUOUS[word.lower()], usage, word=_show(word))
    if word.lower() in _KONGS:
        return ParseError(
            N_("'{word}' is out of place: record kongs with /gang, or list them after gangkai"),
            usage,
            word=_show(word),
        )
    if how is None:
        return _unknown(
            word,
            _HOW,
            usage,
            N_("unknown way to win '{word}'; use one of: {allowed}"),
            N_("unknown way to win '{word}' — did you mean '{guess}'? Use one of: {allowed}"),
            _HOW_LIST,
        )
    return _unknown(
        word,
        _PATTERNS.keys() | _FLAGS.keys(),
        usage,
        N_("unknown pattern or flag '{word}'; use: {allowed}"),
        N_("unknown pattern or flag '{word}' — did you mean '{guess}'? Use: {allowed}"),
        _EXTRA_LIST,
    )


def _hu_clause(text: str) -> HuClause:
    """`<winner> <how> [pattern] [flags]` (pattern and flags may also come before the how)."""
    usage = USAGE["hu"]
    words = _Cursor([piece for word in text.split() for piece in _split_hu(word)])
    first = words.next()
    if first is None or first.lower() in _NOT_A_PLAYER:
        raise ParseError(
            N_("start with the winner, then how they won ('{word}' is not a player)"),
            usage,
            word=_show(first or ""),
        )
    winner = _player(first, usage)
    how: WinType | None = None
    source: PlayerRef | None = None
    chain: int | None = None
    kongs: tuple[ChainKong, ...] = ()
    pattern: tuple[Pattern, int] | None = None
    flags: dict[str, str] = {}  # flag → the word that gave it
    sealed: PlayerRef | None = None
    how_word = pattern_word = ""  # for duplicate errors
    while (word := words.next()) is not None:
        key = word.lower()
        if key in _HOW:
            if how is not None:
                raise ParseError(
                    N_("two ways to win in one clause: '{first}' and '{second}'"),
                    usage,
                    first=_show(how_word),
                    second=_show(word),
                )
            how, how_word = _HOW[key], word
            if how.needs_discarder:  # named right after the keyword
                source = _payer(words, word)
            elif how is WinType.RENHU:  # the dealer pays: naming him is optional
                source = _optional_payer(words)
            if how.chained:  # an optional chain length after him
                chain = _chain_length(words)
            elif how is WinType.GANGKAI:
                chain, kongs = _gangkai_chain(words)
        elif key in _PATTERNS:
            if pattern is not None:
                raise ParseError(
                    N_("two patterns in one clause: '{first}' and '{second}'"),
                    usage,
                    first=_show(pattern_word),
                    second=_show(word),
                )
            pattern, pattern_word = _PATTERNS[key], word
        elif key in _FLAGS:
            flag = _FLAGS[key]
            if flag in flags:
                raise ParseError(
                    N_("'{second}' repeats '{first}'"),
                    usage,
                    first=_show(flags[flag]),
                    second=_show(word),
                )
            flags[flag] = word
            if flag == _FENG:
                sealed = _hu_player(
                    words, N_("'{word}' must be followed by the sealed player"), word
                )
        else:
            raise _stray(word, how)
    if how is None:
        raise ParseError(
            N_("say how {winner} won: {allowed}"), usage, winner=_show(first), allowed=_HOW_LIST
        )
    pattern_, groups = pattern or (Pattern.JIHU, 0)
    return HuClause(
        winner,
        how,
        source=source,
        chain=chain,
        chain_kongs=kongs,
        pattern=pattern_,
        groups=groups,
        qingyise=_QYS in flags,
        menqing=_MQ in flags,
        quanqiuren=_QQR in flags,
        sealed=sealed,
    )


def _parse_hu(args: str) -> Hu:
    """`/hu <clause>[; <clause>…]`: one clause per winner."""
    clauses = [clause for clause in args.split(";") if clause.strip()]
    if not clauses:
        raise ParseError(N_("say who won and how, e.g. /hu 老王 zimo"), USAGE["hu"])
    if len(clauses) > 3:
        raise ParseError(
            N_("at most three players win at once ({count} clauses given)"),
            USAGE["hu"],
            count=str(len(clauses)),
        )
    return Hu(tuple(_hu_clause(clause) for clause in clauses))


# --- 510K ---


def _points(text: str, entry: str, usage: str) -> int:
    """Table points or points in hand: 0–100, a multiple of 5."""
    if not text:
        raise ParseError(N_("'{entry}' is missing its points"), usage, entry=_show(entry))
    if not _DIGITS.fullmatch(text):
        raise ParseError(
            N_("'{entry}': points are whole numbers from 0 to 100"), usage, entry=_show(entry)
        )
    value = _int(text)
    if value > 100:
        raise ParseError(N_("'{entry}': points cannot exceed 100"), usage, entry=_show(entry))
    if value % 5:
        raise ParseError(N_("'{entry}' is not a multiple of 5"), usage, entry=_show(entry))
    return value


def _entry(word: str, usage: str) -> ReportEntry:
    """`<player>=<table points>[/<points in hand>]`."""
    name, _, figures = word.partition("=")
    if not name:
        raise ParseError(N_("'{entry}' is missing the player before '='"), usage, entry=_show(word))
    table, slash, held = figures.partition("/")
    return ReportEntry(
        _player(name, usage),
        _points(table, word, usage),
        _points(held, word, usage) if slash else None,
    )


def _parse_report(args: str) -> Report:
    """`/r A=30 B=20 C=40/10 D=10 out A C`: entries, then `out` and who went out, in order."""
    usage = USAGE["r"]
    entries: list[ReportEntry] = []
    entry_words: list[str] = []
    out: list[PlayerRef] = []
    out_words: list[str] = []
    in_out = False
    for word in _AROUND_EQUALS.sub(r"\1", args.replace(":", "=")).replace(";", " ").split():
        if "=" in word:
            entries.append(_entry(word, usage))
            entry_words.append(word.partition("=")[0])
        elif in_out:
            out.append(_player(word, usage))
            out_words.append(word)
        elif word.lower() in _OUT:
            in_out = True
        else:
            raise ParseError(
                N_("'{word}' is not an entry like A=30 (is 'out' missing before it?)"),
                usage,
                word=_show(word),
            )
    if not 3 <= len(entries) <= 4:
        raise ParseError(
            N_("give every player's points, 3 or 4 entries like A=30 (got {count})"),
            usage,
            count=str(len(entries)),
        )
    _distinct([entry.player for entry in entries], entry_words, usage)
    if not in_out:
        raise ParseError(N_("say who went out, in order: out <first> <second>"), usage)
    if not 2 <= len(out) <= 3:
        raise ParseError(
            N_("'out' lists the 2 or 3 players who went out, in order (got {count})"),
            usage,
            count=str(len(out)),
        )
    _distinct(out, out_words, usage)
    return Report(tuple(entries), tuple(out))


# --- free scoring: /new free [name], /s, /pay ---

_MAX_GAME_NAME = 24
#: `+30`, `-10`, `赢30`, `输10` (after a name, or as the next word).
_SCORE = re.compile(r"(?P<sign>[+\-\u2212]|赢|输)(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_NAME_SCORE = re.compile(r"(?P<name>.+?)" + _SCORE.pattern)
_AMOUNT = re.compile(r"\+?(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_MAX_DIGITS = 12  # 10¹² is far above any bound: refuse longer numbers here


def _parse_new_free(words: list[str]) -> NewTable:
    """`/new free [name]`: a table for any game, its name one word."""
    usage = USAGE["new"]
    if len(words) > 1:
        raise ParseError(
            N_("a free game's name is one word, without spaces: '{words}'"),
            usage,
            words=_show(" ".join(words)),
        )
    name = words[0] if words else ""
    if len(name) > _MAX_GAME_NAME or _CONTROL.search(name):
        raise ParseError(
            N_("'{word}' is not a game name (at most 24 characters)"), usage, word=_show(name)
        )
    return NewTable(Game.FREE, name=name)


def _number(number: str, word: str, usage: str) -> Fraction:
    if len(number.replace(".", "")) > _MAX_DIGITS:
        raise ParseError(N_("'{word}': the amount is too big"), usage, word=_show(word))
    return Fraction(Decimal(number))


def _parse_score(args: str) -> Score:
    """`/s 老王+30 小李-10 阿张` (also `老王 +30`, `老王赢30 小李输10`): players and their
    scores; one player without a number takes the balance."""
    usage = USAGE["s"]
    entries: list[tuple[str, Fraction | None]] = []
    for word in _words(args):
        sign_only = _SCORE.fullmatch(word)
        glued = None if sign_only else _NAME_SCORE.fullmatch(word)
        match = sign_only or glued
        amount = None
        if match is not None:
            amount = _number(match["number"], word, usage)
            amount = amount if match["sign"] in ("+", "赢") else -amount
        if sign_only is not None:
            if not entries or entries[-1][1] is not None:
                raise ParseError(N_("'{word}' has no player before it"), usage, word=_show(word))
            entries[-1] = (entries[-1][0], amount)
        elif glued is not None:
            entries.append((glued["name"], amount))
        elif _DIGITS.fullmatch(word) and entries and entries[-1][1] is None and len(word) > 1:
            raise ParseError(
                N_("'{word}': write the sign, e.g. 老王+30 or 老王-30"), usage, word=_show(word)
            )
        else:
            entries.append((word, None))
    if not entries:
        raise ParseError(N_("give each player's score"), usage)
    refs = [_player(name, usage) for name, _ in entries]
    _distinct(refs, [name for name, _ in entries], usage)
    return Score(
        tuple(ScoreEntry(ref, amount) for ref, (_, amount) in zip(refs, entries, strict=True))
    )


def _parse_pay(args: str) -> Pay:
    """`/pay <payer> <payee> <amount>`."""
    usage = USAGE["pay"]
    words = _words(args)
    if len(words) != 3:
        raise ParseError(
            N_("give the payer, the payee and the amount (got {count} words)"),
            usage,
            count=str(len(words)),
        )
    payer, payee, amount = words
    match = _AMOUNT.fullmatch(amount)
    if match is None:
        raise ParseError(
            N_("'{word}' is not an amount: a positive number like 5 or 2.50"),
            usage,
            word=_show(amount),
        )
    refs = [_player(payer, usage), _player(payee, usage)]
    if _ref_key(refs[0]) == _ref_key(refs[1]):
        raise ParseError(N_("a player cannot pay themselves"), usage)
    return Pay(refs[0], refs[1], _number(match["number"], amount, usage))


# --- everyone ---


def _season(word: str, usage: str) -> int:
    if not _DIGITS.fullmatch(word) or not 1 <= _int(word) <= 1_000_000:
        raise ParseError(N_("'{word}' is not a season number"), usage, word=_show(word))
    return _int(word)


def _season_arg(args: str, usage: str) -> int | None:
    """`[season] <number>` or nothing."""
    words = _words(args)
    if words and words[0].lower() in _SEASON:
        if len(words) == 1:
            raise ParseError(N_("which season? Give its number"), usage)
        words = words[1:]
    if not words:
        return None
    _no_more(words[1:], usage)
    return _season(words[0], usage)


def _parse_history(args: str) -> History:
    """`/history [n] [season <number>]`, n in 1–100 (default 10)."""
    usage = USAGE["history"]
    words = _Cursor(_words(args))
    n: int | None = None
    season: int | None = None
    while (word := words.next()) is not None:
        if word.lower() in _SEASON and season is None:
            number = words.next()
            if number is None:
                raise ParseError(N_("which season? Give its number"), usage)
            season = _season(number, usage)
        elif _DIGITS.fullmatch(word) and n is None:
            n = _int(word)
            if not 1 <= n <= 100:
                raise ParseError(N_("'{word}' hands? Ask for 1 to 100"), usage, word=_show(word))
        else:
            raise ParseError(N_("unexpected '{word}'"), usage, word=_show(word))
    return History(10 if n is None else n, season)


def _parse_reset(args: str) -> Reset:
    """`/reset` asks for a confirmation; `/reset confirm` archives."""
    usage = USAGE["reset"]
    words = _words(args)
    if not words:
        return Reset()
    _no_more(words[1:], usage)
    if words[0].lower() not in _CONFIRM:
        raise ParseError(
            N_("'{word}': to archive the season say /reset confirm"), usage, word=_show(words[0])
        )
    return Reset(confirm=True)


def _parse_undo(args: str) -> Undo:
    """`/undo` (the table's last record) · `/undo 7` (hand #7) · `/undo confirm`."""
    usage = USAGE["undo"]
    words = _words(args)
    if not words:
        return Undo()
    _no_more(words[1:], usage)
    word = words[0]
    if word.lower() in _CONFIRM:
        return Undo(confirm=True)
    number = word.removeprefix("#").removeprefix("第").removesuffix("局")
    if not (number.isascii() and number.isdigit()) or not 0 < int(number) <= MAX_HAND_NO:
        raise ParseError(
            N_("'{word}' is not a hand number; write /undo 7 for hand #7"),
            usage,
            word=_show(word),
        )
    return Undo(hand_no=int(number))


def _stake(word: str, usage: str) -> str:
    """A stake: a non-negative decimal, at most 4 decimals, at most 1000000 (normalised text)."""
    if not _STAKE.fullmatch(word) or Decimal(word) > 1_000_000:
        raise ParseError(
            N_("'{word}' is not a stake: a number from 0 to 1000000, at most 4 decimals"),
            usage,
            word=_show(word),
        )
    return format(Decimal(word).normalize(), "f")


def _parse_set(args: str) -> SetOption:
    """`/set stake 0.5` · `/set lang zh|en` · `/set sisuang|zerosum on|off`."""
    usage = USAGE["set"]
    words = _words(args)
    if len(words) != 2:
        raise ParseError(N_("give a setting and its value: {allowed}"), usage, allowed=usage)
    key_word, value = words
    key = _SETTINGS.get(key_word.lower())
    if key is None:
        raise _unknown(
            key_word,
            _SETTINGS,
            usage,
            N_("unknown setting '{word}'; use: {allowed}"),
            N_("unknown setting '{word}' — did you mean '{guess}'? Use: {allowed}"),
            _SETTING_LIST,
        )
    if key is Setting.STAKE:
        return SetOption(key, _stake(value, usage))
    if key is Setting.TZ:
        return SetOption(key, _zone(value))
    choices, allowed = (_LANGS, _LANG_LIST) if key is Setting.LANG else (_SWITCH, _SWITCH_LIST)
    normalised = choices.get(value.lower())
    if normalised is None:
        raise ParseError(
            N_("'{word}' is not a value of {setting}; use: {allowed}"),
            usage,
            word=_show(value),
            setting=key.value,
            allowed=allowed,
        )
    return SetOption(key, normalised)


def _zone(word: str) -> str:
    """An IANA time zone name (any case), as zoneinfo spells it."""
    zone = zone_name(word)
    if zone is None:
        raise ParseError(
            N_(
                "'{word}' is not a time zone; give an IANA name such as {example} "
                "(or Europe/Berlin, America/New_York, UTC)"
            ),
            N_("/set tz Asia/Shanghai"),
            word=_show(word),
            example=EXAMPLE,
        )
    return zone


_Handler = Callable[[str], Request]


def _bare(make: Callable[[], Request], name: str) -> _Handler:
    """A command that takes no arguments."""

    def handler(args: str) -> Request:
        words = _words(args)
        if words:
            raise ParseError(
                N_("/{command} takes no arguments (got '{word}')"),
                USAGE[name],
                command=name,
                word=_show(words[0]),
            )
        return make()

    return handler


def _lenient(make: Callable[[], Request]) -> _Handler:
    """A command that ignores its arguments (/help, and /start with a deep-link payload)."""
    return lambda args: make()


def _seasonal(make: Callable[[int | None], Request], name: str) -> _Handler:
    """A command taking an optional season number."""
    return lambda args: make(_season_arg(args, USAGE[name]))


_HANDLERS: dict[str, _Handler] = {
    "new": _parse_new,
    "join": _parse_join,
    "seats": _parse_seats,
    "dealer": _parse_dealer,
    "players": _bare(ShowPlayers, "players"),
    "link": _parse_link,
    "unlink": _parse_unlink,
    "gang": _parse_gang,
    "hu": _parse_hu,
    "liuju": _bare(Liuju, "liuju"),
    "r": _parse_report,
    "undo": _parse_undo,
    "standings": _seasonal(Standings, "standings"),
    "history": _parse_history,
    "settle": _seasonal(Settle, "settle"),
    "stats": _seasonal(Stats, "stats"),
    "chart": _seasonal(Chart, "chart"),
    "export": _seasonal(Export, "export"),
    "rules": _lenient(Rules),
    "help": _lenient(Help),
    "reset": _parse_reset,
    "seasons": _bare(Seasons, "seasons"),
    "app": _bare(OpenApp, "app"),
    "set": _parse_set,
    "s": _parse_score,
    "pay": _parse_pay,
}


def _glued(rest: str) -> bool:
    """Whether the command word runs on into ASCII text ("/hu-x": not /hu)."""
    return rest[0].isascii() and not rest[0].isspace()


def _name(head: re.Match[str]) -> str | None:
    """The canonical name of the command `head` matched, None for an unknown one."""
    rest = head.group("rest")
    return None if rest and _glued(rest) else _COMMAND_NAMES.get(head.group("cmd").lower())


def command_name(text: str) -> str | None:
    """The canonical name of the command `text` starts with (`/胡 …` → "hu"), or None."""
    head = _HEAD.match(normalise(text).strip())
    return None if head is None else _name(head)


_MENTION = re.compile(r"@(?P<bot>[A-Za-z0-9_]+)\s*(?P<rest>/.*)", re.DOTALL)


def command_text(text: str, bot_username: str) -> str | None:
    """`text` as a command for this bot when Telegram may not have marked it as one: `/胡 …`
    (Telegram marks only Latin commands) or any known command word, and `@thisbot /command …`
    (returned without the mention). None for anything else: unknown words (`/胡说`), a command
    for another bot, a mention not followed by a command, ordinary text. The command is returned
    as typed (full-width forms kept: it is recorded with the hand)."""
    read = normalise(text)  # as long as `text`, character for character
    start, end = len(read) - len(read.lstrip()), len(read.rstrip())
    read = read[start:end]
    bot = bot_username.removeprefix("@").lower()
    if mention := _MENTION.match(read):
        return text[start + mention.start("rest") : end] if mention["bot"].lower() == bot else None
    head = _HEAD.match(read)
    if head is None or _name(head) is None:
        return None
    addressee = head.group("bot")
    return text[start:end] if addressee is None or addressee.lower() == bot else None


def parse(text: str, bot_username: str | None = None) -> Request:
    """The request a message asks for, e.g. `parse("/hu 老王 zimo qys")`.

    `bot_username` (with or without @) is this bot's: `/cmd@other_bot` raises `NotForThisBot`.
    Raises `ParseError` (and nothing else) for anything that is not a valid command.
    """
    text = normalise(text).strip()
    head = _HEAD.match(text)
    if head is None:
        if not text.startswith("/"):
            raise ParseError(
                N_("'{text}' is not a command: commands start with /"),
                USAGE["help"],
                text=_show(text),
            )
        raise ParseError(N_("a command follows the /, e.g. /help"), USAGE["help"])
    command, bot, rest = head.group("cmd", "bot", "rest")
    if bot and bot_username and bot.lower() != bot_username.removeprefix("@").lower():
        raise NotForThisBot(N_("this command is addressed to @{bot}"), "", bot=bot)
    name = _name(head)
    if name is None and rest and _glued(rest):
        command = text[1:].split(maxsplit=1)[0]
    if name is None:
        raise _unknown(
            command,
            _COMMAND_NAMES,
            USAGE["help"],
            N_("unknown command /{word}; /help lists the commands"),
            N_("unknown command /{word} — did you mean /{guess}?"),
        )
    return _HANDLERS[name](rest)
