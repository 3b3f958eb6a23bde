"""The command language's words: every keyword with its Chinese and pinyin aliases (all
lower-case), the lists error messages show, and the normalisation of typed text (full-width
forms → ASCII, commas → spaces)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

from bot.i18n import N_
from scoring.games import Game
from scoring.mahjong_model import KongKind, Pattern, WinType
from service.requests import Setting

_V = TypeVar("_V")


def aliases(groups: Mapping[_V, Iterable[str]]) -> dict[str, _V]:
    """Invert `{value: words}` into `{word: value}`."""
    return {word: value for value, words in groups.items() for word in words}


HOW = aliases(
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

PATTERNS = aliases(
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
AMBIGUOUS = {
    word: N_(
        "'{word}' counts differently by region: write 七大对 (qidui1) for one set of four, "
        "双豪七 (qidui2) for two"
    )
    for word in ("豪七", "haoqi")
}

QYS, MQ, QQR, FENG = "qys", "mq", "qqr", "feng"
FLAGS = aliases(
    {
        QYS: ("qys", "qingyise", "清一色", "清"),
        MQ: ("mq", "menqing", "门清", "门前清"),
        QQR: ("qqr", "quanqiuren", "全求人"),
        FENG: ("feng", "fenghu", "封胡", "封"),
    }
)

KONGS = aliases(
    {
        KongKind.AN: ("an", "angang", "暗杠", "暗"),
        KongKind.MING: ("ming", "minggang", "明杠", "明"),
        KongKind.BU: ("bu", "bugang", "jiagang", "补杠", "补", "加杠"),
    }
)

#: Words that cannot stand for a player where /hu expects one ("feng" and the kong words can:
#: Feng, Ming, An and Bu are common names).
NOT_A_PLAYER = frozenset({*HOW, *PATTERNS, *(word for word, flag in FLAGS.items() if flag != FENG)})

#: Keywords that are also given names: never cut out of a longer word.
GIVEN_NAMES = frozenset({"天和", "地和", "人和"})

ME = frozenset({"me", "i", "我"})
OUT = frozenset({"out", "出"})
SEASON = frozenset({"season", "赛季"})
MONEY = frozenset({"money", "cash", "钱", "金额", "算钱"})  # /settle money
ALL = frozenset({"all", "全部"})  # /export all: every version /edit replaced too
CONFIRM = frozenset({"confirm", "yes", "y", "ok", "确认", "是"})
SEATS = frozenset({"1", "2", "3", "4"})

GAMES = aliases(
    {
        Game.MAHJONG: ("mahjong", "mj", "majiang", "麻将"),
        Game.K510: ("510k", "510", "wsk", "wushik", "五十k"),
        Game.K510_3: ("510k3", "wsk3", "五十k3"),
        Game.FREE: ("free", "自由", "其他"),
    }
)
THREE = frozenset({"3", "3p", "3人", "三人"})
#: /new options: word → (option, value).
NEW_OPTIONS = aliases(
    {
        ("sisuang", True): ("sisuang", "死双"),
        ("sisuang", False): ("nosisuang", "不死双"),
        ("marathon", True): ("marathon", "lianda", "连打"),
        ("zerosum", True): ("zerosum", "linghe", "零和"),
        ("zerosum", False): ("nozerosum", "非零和"),
    }
)

SETTINGS = aliases(
    {
        Setting.STAKE: ("stake", "底分", "注码"),
        Setting.LANG: ("lang", "language", "语言"),
        Setting.SISUANG: ("sisuang", "死双"),
        Setting.ZEROSUM: ("zerosum", "零和"),
        Setting.TZ: ("tz", "timezone", "时区"),
        Setting.RATING: ("rating", "elo", "评分", "等级分"),
        Setting.IDLE: ("idle", "闲置", "空闲", "收桌"),
    }
)
LANGS = aliases(
    {
        "zh": ("zh", "cn", "zh-cn", "zh_cn", "zh-hans", "chinese", "中文", "汉语"),
        "en": ("en", "english", "英文", "英语"),
    }
)
SWITCH = aliases(
    {
        "on": ("on", "true", "1", "yes", "开", "开启", "是"),
        "off": ("off", "false", "0", "no", "关", "关闭", "否"),
    }
)


def synonyms() -> str:
    """The Chinese words of /hu that mean the same, for /rules: `自摸 = 自摸胡 · …`."""
    same: dict[object, list[str]] = {}
    for table in (HOW, PATTERNS, FLAGS):
        for word, meaning in table.items():
            if not word.isascii():
                same.setdefault(meaning, []).append(word)
    return " · ".join(f"{words[0]} = {' '.join(words[1:])}" for words in same.values() if words[1:])


# What is allowed, for error messages (language-neutral: keywords only).
HOW_LIST = (
    "zimo 自摸 · pao 点炮 · gangkai 杠上花 · gangpao 杠上炮 · qianggang 抢杠 · quanqiupao 全求炮 · "
    "haidi 海底捞月 · haidipao 海底炮 · tianhu 天胡 · dihu 地胡 · renhu 人胡"
)
EXTRA_LIST = (
    "jihu 鸡胡 · pph 碰碰胡 · qidui 七对 · qidui1 七大对 · qidui2 豪华大七对 · "
    "qidui3 超级豪华大七对 · qys 清一色 · mq 门清 · qqr 全求人 · feng 封胡"
)
KONG_LIST = "an 暗杠 · ming 明杠 · bu 补杠"
GAME_LIST = "mahjong 麻将 · 510k 五十k · 510k3 · free 自由"
NEW_LIST = f"{GAME_LIST} · 3 三人 · sisuang 死双 · marathon 连打 · zerosum 零和"
SETTING_LIST = "stake · lang · sisuang · zerosum · tz · rating"
LANG_LIST = "zh 中文 · en english"
SWITCH_LIST = "on 开 · off 关"


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
