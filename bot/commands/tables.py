"""Opening a table and seating it: `/new`, `/join`, `/seats`, `/dealer`."""

from __future__ import annotations

from dataclasses import replace

from bot.commands.free import parse_new_free
from bot.commands.reader import (
    ParseError,
    distinct,
    guest_name,
    no_more,
    player_ref,
    show,
    split_words,
    unknown,
)
from bot.commands.words import CONFIRM, GAME_LIST, GAMES, ME, NEW_LIST, NEW_OPTIONS, THREE
from bot.i18n import N_
from scoring.games import Game
from service.requests import IAm, Join, Merge, NewTable, RefKind, Rename, Seats, SetDealer, Sub


def parse_new(args: str, usage: str) -> NewTable:
    """`/new mahjong [sisuang]` · `/new 510k|510k3 [3] [marathon] [zerosum]`, in any order."""
    game: Game | None = None
    game_word = ""
    three = False
    options: dict[str, tuple[bool, str]] = {}
    words = split_words(args)
    confirm = any(w.lower() in CONFIRM for w in words)
    words = [w for w in words if w.lower() not in CONFIRM]
    if words and GAMES.get(words[0].lower()) is Game.FREE:
        return replace(parse_new_free(words[1:], usage), confirm=confirm)
    for word in words:
        key = word.lower()
        if key in CONFIRM:
            confirm = True
        elif key in GAMES:
            if game is not None:
                raise ParseError(
                    N_("two games given: '{first}' and '{second}'"),
                    usage,
                    first=show(game_word),
                    second=show(word),
                )
            game, game_word = GAMES[key], word
        elif key in THREE:
            three = True
        elif key in NEW_OPTIONS:
            option, value = NEW_OPTIONS[key]
            if option in options:
                raise ParseError(
                    N_("'{second}' repeats '{first}'"),
                    usage,
                    first=show(options[option][1]),
                    second=show(word),
                )
            options[option] = value, word
        else:
            raise unknown(
                word,
                GAMES.keys() | NEW_OPTIONS.keys(),
                usage,
                N_("unknown game or option '{word}'; use: {allowed}"),
                N_("unknown game or option '{word}' — did you mean '{guess}'? Use: {allowed}"),
                NEW_LIST,
            )
    if game is None:
        raise ParseError(N_("which game? {allowed}"), usage, allowed=GAME_LIST)
    if game is Game.MAHJONG:
        if three:
            raise ParseError(N_("mahjong needs four players; three play 510k3"), usage)
        for option in ("marathon", "zerosum"):
            if option in options:
                raise ParseError(
                    N_("'{word}' is an option of 510k, not of mahjong"),
                    usage,
                    word=show(options[option][1]),
                )
    else:
        if three:
            game = Game.K510_3
        if "sisuang" in options:
            raise ParseError(
                N_("'{word}' is an option of mahjong, not of 510k"),
                usage,
                word=show(options["sisuang"][1]),
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


def parse_join(args: str, usage: str) -> Join:
    """`/join` (the sender) · `/join <guest>`."""
    words = split_words(args)
    if not words or (len(words) == 1 and words[0].lower() in ME):
        return Join()
    if len(words) > 1:
        raise ParseError(
            N_("a guest name is one word, without spaces: '{words}'"),
            usage,
            words=show(" ".join(words)),
        )
    return Join(guest_name(words[0], usage))


def parse_seats(args: str, usage: str) -> Seats:
    """`/seats A B C [D]` (a free table: 2–10 players): the whole seating in seat order
    (unknown names become guests); the table's game says how many it needs."""
    words = split_words(args)
    if not 2 <= len(words) <= 10:
        raise ParseError(
            N_("give 2 to 10 players in seat order (got {count})"), usage, count=str(len(words))
        )
    refs = [player_ref(word, usage) for word in words]
    for ref in refs:
        if ref.kind is RefKind.NAME:
            guest_name(ref.value, usage)
    distinct(refs, words, usage)
    return Seats(tuple(refs))


def parse_dealer(args: str, usage: str) -> SetDealer:
    """`/dealer <player>`."""
    words = split_words(args)
    if not words:
        raise ParseError(N_("say who deals"), usage)
    no_more(words[1:], usage)
    return SetDealer(player_ref(words[0], usage))


def parse_iam(args: str, usage: str) -> IAm:
    """`/iam 小李`: the sender is the guest 小李."""
    words = split_words(args)
    if not words:
        raise ParseError(N_("say which guest you are"), usage)
    if len(words) > 1:
        raise ParseError(
            N_("a guest name is one word, without spaces: '{words}'"),
            usage,
            words=show(" ".join(words)),
        )
    return IAm(guest_name(words[0], usage))


def parse_sub(args: str, usage: str) -> Sub:
    """`/sub A B`: B takes A's seat (A may be a seat number: a free seat)."""
    words = split_words(args)
    if len(words) != 2:
        raise ParseError(
            N_("give the player leaving, then the one taking the seat (got {count} words)"),
            usage,
            count=str(len(words)),
        )
    out, into = (player_ref(word, usage) for word in words)
    if into.kind is RefKind.SEAT:
        raise ParseError(N_("who takes the seat? Give a name, not a seat number"), usage)
    if into.kind is RefKind.NAME:
        guest_name(into.value, usage)
    distinct([out, into], words, usage)
    return Sub(out, into)


def parse_rename(args: str, usage: str) -> Rename:
    """`/rename A B`: player A is called B."""
    words = split_words(args)
    if len(words) != 2:
        raise ParseError(N_("give the player, then the new name (one word)"), usage)
    return Rename(player_ref(words[0], usage), guest_name(words[1], usage))


def parse_merge(args: str, usage: str) -> Merge:
    """`/merge A B`: A's records become B's."""
    words = split_words(args)
    if len(words) != 2:
        raise ParseError(N_("give the player to remove, then the player who stays"), usage)
    gone, kept = (player_ref(word, usage) for word in words)
    distinct([gone, kept], words, usage)
    return Merge(gone, kept)
