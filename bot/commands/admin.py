"""The admins' commands: `/set` (stake, language, rules, time zone), `/reset`, `/link` and
`/unlink` (a guest and a Telegram user)."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from bot.commands.reader import (
    CONTROL,
    ParseError,
    guest_name,
    no_more,
    player_ref,
    show,
    split_words,
    unknown,
)
from bot.commands.timezones import EXAMPLE, zone_name
from bot.commands.words import (
    CONFIRM,
    GAMES,
    LANG_LIST,
    LANGS,
    SETTING_LIST,
    SETTINGS,
    SWITCH,
    SWITCH_LIST,
)
from bot.i18n import N_
from scoring.games import Game, free_unit
from service.requests import Link, RefKind, Reset, SetOption, SetStake, Setting, Unlink

_STAKE = re.compile(r"[0-9]{1,7}(?:\.[0-9]{0,4})?|\.[0-9]{1,4}")


def parse_link(args: str, usage: str) -> Link:
    """`/link <guest> @user` (either order; `me` for the sender)."""
    words = split_words(args)
    if len(words) != 2:
        raise ParseError(N_("give the guest's name and the @username to link"), usage)
    guest, user = words
    if guest[0] == "@" and user[0] != "@":
        guest, user = user, guest
    ref = player_ref(user, usage)
    if ref.kind not in (RefKind.USERNAME, RefKind.ME):
        raise ParseError(N_("'{word}' is not a @username"), usage, word=show(user))
    return Link(guest_name(guest, usage), ref)


def parse_unlink(args: str, usage: str) -> Unlink:
    """`/unlink <player>`: the player is a guest again."""
    words = split_words(args)
    if len(words) != 1:
        raise ParseError(N_("give the name of the player to unlink"), usage)
    ref = player_ref(words[0], usage)
    if ref.kind is not RefKind.NAME:
        raise ParseError(N_("'{word}' is not a player's name"), usage, word=show(words[0]))
    return Unlink(ref.value)


def parse_reset(args: str, usage: str) -> Reset:
    """`/reset` asks for a confirmation; `/reset confirm` archives."""
    words = split_words(args)
    if not words:
        return Reset()
    no_more(words[1:], usage)
    if words[0].lower() not in CONFIRM:
        raise ParseError(
            N_("'{word}': to archive the season say /reset confirm"), usage, word=show(words[0])
        )
    return Reset(confirm=True)


def _stake(word: str, usage: str) -> str:
    """A stake: a non-negative decimal, at most 4 decimals, at most 1000000 (normalised text);
    `off` is 0."""
    if SWITCH.get(word.lower()) == "off":
        return "0"
    if word.lower() in GAMES:
        raise ParseError(
            N_("give {word}'s stake too, e.g. /set stake {word} 1"), usage, word=show(word)
        )
    if not _STAKE.fullmatch(word) or Decimal(word) > 1_000_000:
        raise ParseError(
            N_("'{word}' is not a stake: a number from 0 to 1000000, at most 4 decimals"),
            usage,
            word=show(word),
        )
    return format(Decimal(word).normalize(), "f")


def game_stake(words: list[str], usage: str) -> SetStake:
    """`/set stake <game> <amount>` (either order): `mahjong`, `510k` (both 510K tables),
    `free` or a free game's name; `off` leaves the game to the chat's stake."""
    if len(words) != 2:
        raise ParseError(
            N_("give one game and its stake, e.g. /set stake mahjong 1 or /set stake 斗地主 0.1"),
            usage,
        )
    game, value = words
    if _is_stake(game) and not _is_stake(value):
        game, value = value, game
    if _is_stake(game):
        raise ParseError(
            N_("which game? mahjong 麻将, 510k 五十k, free 自由, or a free game's name (斗地主)"),
            usage,
        )
    kind = GAMES.get(game.lower())
    if kind is None:
        if len(game) > 24 or CONTROL.search(game) or game[0] in "/@":
            raise ParseError(N_("'{word}' is not a game name"), usage, word=show(game))
        unit = free_unit(game)
    else:
        unit = free_unit("") if kind is Game.FREE else kind.unit.value
    off = not _STAKE.fullmatch(value) and SWITCH.get(value.lower()) == "off"  # 0 is a stake
    return SetStake(unit, None if off else _stake(value, usage))


def _is_stake(word: str) -> bool:
    return SWITCH.get(word.lower()) == "off" or bool(_STAKE.fullmatch(word))


def parse_set(args: str, usage: str) -> SetOption | SetStake:
    """`/set stake 0.5` · `/set stake mahjong 1` · `/set lang zh|en` · `/set sisuang|zerosum
    on|off` · `/set tz Asia/Shanghai`."""
    words = split_words(args)
    if len(words) > 2 and SETTINGS.get(words[0].lower()) is Setting.STAKE:
        return game_stake(words[1:], usage)
    if len(words) != 2:
        raise ParseError(N_("give a setting and its value: {allowed}"), usage, allowed=usage)
    key_word, value = words
    key = SETTINGS.get(key_word.lower())
    if key is None:
        raise unknown(
            key_word,
            SETTINGS,
            usage,
            N_("unknown setting '{word}'; use: {allowed}"),
            N_("unknown setting '{word}' — did you mean '{guess}'? Use: {allowed}"),
            SETTING_LIST,
        )
    if key is Setting.STAKE:
        return SetOption(key, _stake(value, usage))
    if key is Setting.TZ:
        return SetOption(key, _zone(value))
    if key is Setting.IDLE:
        return SetOption(key, str(idle_minutes(value, usage)))
    choices, allowed = (LANGS, LANG_LIST) if key is Setting.LANG else (SWITCH, SWITCH_LIST)
    normalised = choices.get(value.lower())
    if normalised is None:
        raise ParseError(
            N_("'{word}' is not a value of {setting}; use: {allowed}"),
            usage,
            word=show(value),
            setting=key.value,
            allowed=allowed,
        )
    return SetOption(key, normalised)


_IDLE = re.compile(
    r"(?P<n>[0-9]{1,4}(?:\.[0-9]{1,2})?)\s*(?P<unit>h|hr|hrs|hours?|小时|个小时|钟头|"
    r"m|min|mins|minutes?|分|分钟|d|days?|天)?"
)
IDLE_RANGE = (10, 7 * 24 * 60)  # minutes: from ten minutes to a week


def idle_minutes(word: str, usage: str) -> int:
    """`/set idle 6h`: the gap in whole minutes (`6h`, `90m`, `1.5h`, `6小时`, a bare number
    is hours); `off` (关): 0, tables never close themselves."""
    if SWITCH.get(word.lower()) == "off":
        return 0
    found = _IDLE.fullmatch(word.lower())
    if found is None:
        raise ParseError(
            N_("'{word}' is not a length of time: write 6h, 90m or off"), usage, word=show(word)
        )
    unit = found["unit"] or "h"
    per = 1 if unit[0] in "m分" else 24 * 60 if unit[0] in "d天" else 60
    minutes = Fraction(Decimal(found["n"])) * per
    if not IDLE_RANGE[0] <= minutes <= IDLE_RANGE[1]:
        raise ParseError(
            N_("'{word}': give between 10 minutes and 7 days (6h, 90m), or off"),
            usage,
            word=show(word),
        )
    return int(minutes)


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
            word=show(word),
            example=EXAMPLE,
        )
    return zone
