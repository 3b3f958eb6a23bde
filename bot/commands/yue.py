"""`/yue <when> [game]` (`约`): the next game. `/yue` alone lists what is arranged, `/yue cancel
[n]` calls one off. The time is read in the chat's time zone by the service (`service.plans`):

- a day (optional): `今天`/`今晚`/`today`/`tonight`, `明天`/`明晚`/`tomorrow`, `后天`,
  `周五`/`星期五`/`礼拜五`/`fri`/`friday`, a date `12-25`, `12/25`, `12月25日`;
- a time: `20:00`, `20点`, `8点`, `8点半`, `8点15`, `八点`, `8pm`, `8:30pm`; `上午`/`早上`/`am`
  or `下午`/`晚上`/`pm` beside it. An hour from 1 to 11 without them is taken as p.m.;
- the game (optional): the words left, `麻将`, `510k`, `斗地主`….
"""

from __future__ import annotations

import re

from bot.commands.reader import CONTROL, ParseError, show, split_words
from bot.i18n import N_
from service.requests import Arrange, CancelPlan, Plans, Request, When

CANCEL = frozenset({"cancel", "取消", "不约", "off"})
_CN = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN |= {"十": 10, "十一": 11, "十二": 12, "日": 7, "天": 7}
WEEKDAYS = {
    **{w: i for i, w in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))},
    **{w: i for i, w in enumerate(("一", "二", "三", "四", "五", "六", "日"))},
    "天": 6,
    **{str(i + 1): i for i in range(7)},
}
_DAY = re.compile(
    r"(?P<rel>今天|今晚|today|tonight|明天|明晚|tomorrow|tmr|后天|后晚)"
    r"|(?:周|星期|礼拜)(?P<cnday>[一二三四五六日天1-7])"
    r"|\b(?P<enday>mon|tue|wed|thu|fri|sat|sun)[a-z]*\b"
    r"|(?P<month>\d{1,2})(?:[-/.]|月)(?P<date>\d{1,2})(?:日|号)?"
)
_HALF = re.compile(
    r"上午|早上|早晨|凌晨|下午|晚上|傍晚|中午|\b(?:a\.?m\.?|p\.?m\.?)\b|(?<=\d)(?:am|pm)"
)
_TIME = re.compile(
    r"(?P<h>\d{1,2})[:：](?P<m>\d{2})"
    r"|(?P<h2>\d{1,2}|十[一二]?|[一二两三四五六七八九])\s*点(?:(?P<half>半)|(?P<m2>\d{1,2})(?![\da-z])分?)?"
    r"|(?P<h3>\d{1,2})(?=\s*(?:am|pm|a\.m\.|p\.m\.))"
)
_REL = {"今天": "today", "今晚": "today", "today": "today", "tonight": "today", "明天": "tomorrow"}
_REL |= {"明晚": "tomorrow", "tomorrow": "tomorrow", "tmr": "tomorrow", "后天": "after"}
_REL |= {"后晚": "after"}
_EVENING = frozenset({"今晚", "tonight", "明晚", "后晚"})
_MAX_GAME = 24


def parse_yue(args: str, usage: str) -> Request:
    """`/yue` (the list), `/yue cancel [n]`, or `/yue <when> [game]`."""
    words = split_words(args)
    if not words:
        return Plans()
    if words[0].lower() in CANCEL:
        if len(words) > 2 or (len(words) == 2 and not words[1].isdigit()):
            raise ParseError(N_("write /yue cancel, or /yue cancel 2 for the second"), usage)
        return CancelPlan(int(words[1]) if len(words) == 2 else None)
    return arrange(" ".join(words), usage)


def arrange(text: str, usage: str) -> Arrange:
    """A game's time (and name) as typed."""
    rest = text.lower()
    day, value, evening = "", 0, False
    found = _DAY.search(rest)
    if found is not None:
        if found["rel"]:
            day, evening = _REL[found["rel"]], found["rel"] in _EVENING
        elif found["cnday"] or found["enday"]:
            day, value = "weekday", WEEKDAYS[found["cnday"] or found["enday"]]
        else:
            day, value = "date", int(found["month"]) * 100 + int(found["date"])
            if not (1 <= int(found["month"]) <= 12 and 1 <= int(found["date"]) <= 31):
                raise ParseError(N_("'{word}' is not a date"), usage, word=show(found[0]))
        rest = rest[: found.start()] + " " + rest[found.end() :]
    clock = _TIME.search(rest)
    if clock is None:
        raise ParseError(
            N_("give the time of the game, like 20:00 or 8点 (a day before it if not today)"),
            usage,
        )
    hour_text = clock["h"] or clock["h2"] or clock["h3"]
    hour = int(hour_text) if hour_text.isdigit() else _CN[hour_text]
    minute = int(clock["m"] or clock["m2"] or 0) + (30 if clock["half"] else 0)
    if hour > 23 or minute > 59:
        raise ParseError(N_("'{word}' is not a time of day"), usage, word=show(clock[0]))
    rest = rest[: clock.start()] + " " + rest[clock.end() :]
    half = ""
    marker = _HALF.search(rest)
    if marker is not None:
        word = marker[0].replace(".", "")
        half = "am" if word in ("上午", "早上", "早晨", "凌晨", "am") else "pm"
        if word == "中午":
            half = "pm" if hour in (12, 1, 2) else ""
        rest = rest[: marker.start()] + " " + rest[marker.end() :]
    elif evening:
        half = "pm"
    if half and hour > 12:
        half = ""  # 20:00 pm: the 24-hour clock says it
    game = " ".join(rest.split())
    original = _original(text, game)
    if len(original) > _MAX_GAME or CONTROL.search(original):
        raise ParseError(N_("'{word}' is not a game's name"), usage, word=show(original))
    return Arrange(When(day, value, hour, minute, half), original)


def _original(text: str, lowered: str) -> str:
    """The game's name as it was typed (its case kept), found from its lower-cased form."""
    if not lowered:
        return ""
    start = text.lower().find(lowered)
    return text[start : start + len(lowered)] if start >= 0 else lowered
