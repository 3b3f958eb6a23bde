"""Mahjong: `/gang` (a kong) and `/hu` (a win, up to three winners); words typed without
spaces are cut into their keywords (`老王自摸清一色`). A /hu clause may give the winner's hand
as tiles (`123m456m789s55s [777p]`, spaced or not, 🀇… too): they are passed on as written,
for the service to read."""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.commands.reader import (
    DIGITS,
    Cursor,
    ParseError,
    no_more,
    player_ref,
    show,
    split_words,
    unknown,
    whole,
)
from bot.commands.words import (
    AMBIGUOUS,
    EXTRA_LIST,
    FENG,
    FLAGS,
    GIVEN_NAMES,
    HOW,
    HOW_LIST,
    KONG_LIST,
    KONGS,
    MQ,
    NOT_A_PLAYER,
    PATTERNS,
    QQR,
    QYS,
)
from bot.i18n import N_
from scoring.mahjong_model import KongKind, Pattern, WinType
from scoring.tiles_notation import looks_like_tiles
from service.requests import ChainKong, Gang, Hu, HuClause, PlayerRef


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
        (w for w in keywords if len(w) > 1 and not w.isascii() and w not in GIVEN_NAMES),
        key=len,
        reverse=True,
    )
    pattern = re.compile(
        "|".join(map(re.escape, cut)) + r"|(?<![\x00-\x7f])[a-z0-9]+(?![\x00-\x7f])",
        re.IGNORECASE,
    )
    cuttable = frozenset(cut) | (keywords & NOT_A_PLAYER)

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


_HU_WORDS = frozenset({*HOW, *PATTERNS, *FLAGS, *KONGS})
_split_hu = _glue_splitter(_HU_WORDS)
_split_gang = _glue_splitter(frozenset(KONGS))
_TILE_START = re.compile(r"[0-9\[(【〔\U0001F000-\U0001F02B]")


def _cut_tiles(word: str) -> list[str]:
    """A word that starts with a keyword or a Chinese name and goes on with tiles, cut in two
    (`zimo11122233344455m`, `小李[777p]123m…`); any other word stays whole. Only the first
    place where tiles could start is tried."""
    found = None if _TILE_START.match(word) else _TILE_START.search(word, 1)
    if found is None:  # no place where tiles could start, or they start the word
        return [word]
    head, tail = word[: found.start()], word[found.start() :]
    glued = head.lower() in _HU_WORDS or not head[-1].isascii()
    if glued and not looks_like_tiles(head) and looks_like_tiles(tail):
        return [head, tail]
    return [word]


def read_whole(word: str) -> bool:
    """Whether /hu and /gang read `word` as one word: not cut into keywords or tiles."""
    return _split_hu(word) == [word] and _split_gang(word) == [word] and _cut_tiles(word) == [word]


def parse_gang(args: str, usage: str) -> Gang:
    """`/gang <player> an` · `/gang <player> ming|bu <from>`."""
    words = [piece for word in split_words(args) for piece in _split_gang(word)]
    if not words:
        raise ParseError(N_("say who konged and which kong: {allowed}"), usage, allowed=KONG_LIST)
    if len(words) == 1:
        if words[0].lower() in KONGS:
            raise ParseError(
                N_("name the player who konged before '{word}'"), usage, word=show(words[0])
            )
        raise ParseError(N_("say which kong: {allowed}"), usage, allowed=KONG_LIST)
    player = player_ref(words[0], usage)
    kind = KONGS.get(words[1].lower())
    if kind is None:
        raise unknown(
            words[1],
            KONGS,
            usage,
            N_("unknown kong '{word}'; use: {allowed}"),
            N_("unknown kong '{word}' — did you mean '{guess}'? Use: {allowed}"),
            KONG_LIST,
        )
    if kind is KongKind.AN:
        no_more(words[2:], usage)
        return Gang(player, kind)
    if len(words) < 3:
        raise ParseError(
            N_("'{word}' must be followed by the player whose tile was konged"),
            usage,
            word=show(words[1]),
        )
    no_more(words[3:], usage)
    return Gang(player, kind, player_ref(words[2], usage))


def _hu_player(words: Cursor, msgid: str, after: str, usage: str) -> PlayerRef:
    """The player that must follow `after` in a /hu clause (`msgid` names what is missing)."""
    word = words.next()
    if word is None or word.lower() in NOT_A_PLAYER or looks_like_tiles(word):
        raise ParseError(msgid, usage, word=show(after))
    return player_ref(word, usage)


def _payer(words: Cursor, after: str, usage: str) -> PlayerRef:
    return _hu_player(words, N_("'{word}' must be followed by the player who paid"), after, usage)


def _optional_payer(words: Cursor, usage: str) -> PlayerRef | None:
    """The player named next in the clause, if the next word is not a keyword (a seat number
    is a player here)."""
    word = words.peek()
    if word is None or word.lower() in NOT_A_PLAYER or word.lower() in FLAGS:
        return None
    if looks_like_tiles(word):
        return None
    words.next()
    return player_ref(word, usage)


def _chain_length(words: Cursor, usage: str) -> int | None:
    """An optional number of chained kongs (1–4) next in the clause."""
    word = words.peek()
    if word is None or not DIGITS.fullmatch(word):
        return None
    words.next()
    if not 1 <= whole(word) <= 4:
        raise ParseError(
            N_("a chain of {word} kongs? The number must be 1 to 4"), usage, word=show(word)
        )
    return whole(word)


def _gangkai_chain(words: Cursor, usage: str) -> tuple[int | None, tuple[ChainKong, ...]]:
    """After gangkai: `[n]`, or the chain's kongs inline (`an`, `ming <from>`, `bu <from>`)."""
    count = _chain_length(words, usage)
    kongs: list[ChainKong] = []
    while (word := words.peek()) is not None and word.lower() in KONGS:
        words.next()
        kind = KONGS[word.lower()]
        source = None
        if kind is not KongKind.AN:
            source = _hu_player(
                words,
                N_("'{word}' must be followed by the player whose tile was konged"),
                word,
                usage,
            )
        kongs.append(ChainKong(kind, source))
    if count is not None and kongs:
        raise ParseError(
            N_("after gangkai give the number of kongs or the kongs themselves, not both"),
            usage,
        )
    if len(kongs) > 4:
        raise ParseError(
            N_("a chain of {word} kongs? The number must be 1 to 4"),
            usage,
            word=str(len(kongs)),
        )
    return count, tuple(kongs)


def _stray(word: str, how: WinType | None, usage: str) -> ParseError:
    """The error for a word out of place in a /hu clause."""
    if DIGITS.fullmatch(word):
        return ParseError(
            N_(
                "'{word}' is out of place: a number of kongs goes right after gangkai, "
                "or after the player of gangpao or qianggang"
            ),
            usage,
            word=show(word),
        )
    if word.lower() in AMBIGUOUS:
        return ParseError(AMBIGUOUS[word.lower()], usage, word=show(word))
    if word.lower() in KONGS:
        return ParseError(
            N_("'{word}' is out of place: record kongs with /gang, or list them after gangkai"),
            usage,
            word=show(word),
        )
    if how is None:
        return unknown(
            word,
            HOW,
            usage,
            N_("unknown way to win '{word}'; use one of: {allowed}"),
            N_("unknown way to win '{word}' — did you mean '{guess}'? Use one of: {allowed}"),
            HOW_LIST,
        )
    return unknown(
        word,
        PATTERNS.keys() | FLAGS.keys(),
        usage,
        N_("unknown pattern or flag '{word}'; use: {allowed}"),
        N_("unknown pattern or flag '{word}' — did you mean '{guess}'? Use: {allowed}"),
        EXTRA_LIST,
    )


def _hu_clause(text: str, usage: str) -> HuClause:
    """`<winner> <how> [pattern] [flags] [tiles]` (pattern, flags and tiles may also come before
    the how; the tiles' words are joined, spaced as typed)."""
    pieces = (piece for word in text.split() for piece in _split_hu(word))
    words = Cursor([cut for piece in pieces for cut in _cut_tiles(piece)])
    first = words.next()
    if first is None or first.lower() in NOT_A_PLAYER:
        raise ParseError(
            N_("start with the winner, then how they won ('{word}' is not a player)"),
            usage,
            word=show(first or ""),
        )
    winner = player_ref(first, usage)
    how: WinType | None = None
    source: PlayerRef | None = None
    chain: int | None = None
    kongs: tuple[ChainKong, ...] = ()
    pattern: tuple[Pattern, int] | None = None
    flags: dict[str, str] = {}  # flag → the word that gave it
    sealed: PlayerRef | None = None
    tiles: list[str] = []
    how_word = pattern_word = ""  # for duplicate errors
    while (word := words.next()) is not None:
        key = word.lower()
        if looks_like_tiles(word) or (DIGITS.fullmatch(word) and _among_tiles(tiles, words)):
            tiles.append(word)
        elif key in HOW:
            if how is not None:
                raise ParseError(
                    N_("two ways to win in one clause: '{first}' and '{second}'"),
                    usage,
                    first=show(how_word),
                    second=show(word),
                )
            how, how_word = HOW[key], word
            if how.needs_discarder:  # named right after the keyword
                source = _payer(words, word, usage)
            elif how is WinType.RENHU:  # the dealer pays: naming him is optional
                source = _optional_payer(words, usage)
            if how.chained:  # an optional chain length after him
                chain = _chain_length(words, usage)
            elif how is WinType.GANGKAI:
                chain, kongs = _gangkai_chain(words, usage)
        elif key in PATTERNS:
            if pattern is not None:
                raise ParseError(
                    N_("two patterns in one clause: '{first}' and '{second}'"),
                    usage,
                    first=show(pattern_word),
                    second=show(word),
                )
            pattern, pattern_word = PATTERNS[key], word
        elif key in FLAGS:
            flag = FLAGS[key]
            if flag in flags:
                raise ParseError(
                    N_("'{second}' repeats '{first}'"),
                    usage,
                    first=show(flags[flag]),
                    second=show(word),
                )
            flags[flag] = word
            if flag == FENG:
                sealed = _hu_player(
                    words, N_("'{word}' must be followed by the sealed player"), word, usage
                )
        else:
            raise _stray(word, how, usage)
    if how is None:
        raise ParseError(
            N_("say how {winner} won: {allowed}"), usage, winner=show(first), allowed=HOW_LIST
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
        qingyise=QYS in flags,
        menqing=MQ in flags,
        quanqiuren=QQR in flags,
        sealed=sealed,
        tiles=" ".join(tiles),
        pattern_word=pattern is not None and bool(tiles),
    )


def _among_tiles(tiles: list[str], words: Cursor) -> bool:
    """Digits stand among tiles (`123 456m`: their suit is missing) when tiles come before or
    right after them."""
    after = words.peek()
    return bool(tiles) or (after is not None and looks_like_tiles(after))


def parse_hu(args: str, usage: str) -> Hu:
    """`/hu <clause>[; <clause>…]`: one clause per winner."""
    clauses = [clause for clause in args.split(";") if clause.strip()]
    if not clauses:
        raise ParseError(N_("say who won and how, e.g. /hu 老王 zimo"), usage)
    if len(clauses) > 3:
        raise ParseError(
            N_("at most three players win at once ({count} clauses given)"),
            usage,
            count=str(len(clauses)),
        )
    return Hu(tuple(_hu_clause(clause, usage) for clause in clauses))
