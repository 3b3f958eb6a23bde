"""Typed requests: what a parsed chat command asks the service to do (no Telegram here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from scoring.games import Game
from scoring.mahjong_model import KongKind, Pattern, WinType


class RefKind(StrEnum):
    SEAT = "seat"  # "1".."4"
    NAME = "name"  # a first name or guest name (case-insensitive)
    USERNAME = "username"  # "@user" (stored without the @)
    ME = "me"  # "me" / "我": the sender
    ID = "id"  # a player by id (a button's answer; a record's content recorded again)
    NEW = "new"  # a name confirmed as a new guest (a button's answer to "did you mean …?")


@dataclass(frozen=True)
class PlayerRef:
    kind: RefKind
    value: str = ""  # seat number as text, the name, or the username without @; "" for ME
    typed: str = field(default="", compare=False)  # ME: the word typed (我, me), for replies


@dataclass(frozen=True)
class NewTable:
    game: Game
    marathon: bool = False
    sisuang: bool | None = None  # None: the chat's setting
    zerosum: bool | None = None
    confirm: bool = False  # replace an open table that has players seated
    replaces: int | None = None  # a confirm button's table: stale once another replaced it
    name: str = ""  # a free game's name (`/new free 斗地主`)


@dataclass(frozen=True)
class Join:
    guest: str | None = None  # None: the sender sits down
    new: bool = False  # the guest's name confirmed new ("did you mean …?" answered)
    player_id: int | None = None  # that answer: the known player meant


@dataclass(frozen=True)
class Seats:
    names: tuple[PlayerRef, ...]


@dataclass(frozen=True)
class Sub:
    """`/sub A B`: B takes A's seat."""

    out: PlayerRef
    into: PlayerRef


@dataclass(frozen=True)
class Leave:
    """`/leave`: the sender's seat becomes free."""


@dataclass(frozen=True)
class IAm:
    """`/iam 小李`: the sender claims the guest 小李."""

    name: str


@dataclass(frozen=True)
class Rename:
    """`/rename A B`: player A is called B from now on."""

    player: PlayerRef
    name: str


@dataclass(frozen=True)
class Merge:
    """`/merge A B` (admins): A's records become B's, A disappears."""

    gone: PlayerRef
    kept: PlayerRef


@dataclass(frozen=True)
class SetDealer:
    player: PlayerRef


@dataclass(frozen=True)
class ShowPlayers:
    pass


@dataclass(frozen=True)
class Link:
    guest: str
    user: PlayerRef  # a USERNAME ref (or ME)


@dataclass(frozen=True)
class Unlink:
    player: str  # the name of a player linked to a Telegram account


@dataclass(frozen=True)
class Claim:
    player_id: int  # the guest the sender says they are ("I am" button of /join <guest>)


@dataclass(frozen=True)
class Gang:
    player: PlayerRef
    kind: KongKind
    source: PlayerRef | None = None  # ming / bu: whose tile


@dataclass(frozen=True)
class ChainKong:
    """A kong given inline in `gangkai an bu <from>`."""

    kind: KongKind
    source: PlayerRef | None = None


@dataclass(frozen=True)
class HuClause:
    winner: PlayerRef
    how: WinType
    source: PlayerRef | None = None  # the discarder / robbed player for discard-type wins
    chain: int | None = (
        None  # gangpao/qianggang/gangkai n; None: default (1, or the recorded kongs)
    )
    chain_kongs: tuple[ChainKong, ...] = ()  # gangkai with the chain given inline
    pattern: Pattern = Pattern.JIHU
    groups: int = 0
    qingyise: bool = False
    menqing: bool = False
    quanqiuren: bool = False
    sealed: PlayerRef | None = None  # feng <B>
    tiles: str = ""  # the winner's hand as tiles, as written (read by the service); "": none
    pattern_word: bool = False  # with tiles: a pattern word was typed beside them


@dataclass(frozen=True)
class Hu:
    clauses: tuple[HuClause, ...]


@dataclass(frozen=True)
class Liuju:
    pass


@dataclass(frozen=True)
class ReportEntry:
    player: PlayerRef
    table: int
    held: int | None = None


@dataclass(frozen=True)
class Report:
    """`/r A=30 B=20 C=40 D=10 out A C`."""

    entries: tuple[ReportEntry, ...]
    out: tuple[PlayerRef, ...]


@dataclass(frozen=True)
class ScoreEntry:
    player: PlayerRef
    amount: Fraction | None  # None: the balancing amount


@dataclass(frozen=True)
class Score:
    """`/s 老王+30 小李-10 阿张`: one round of a free game."""

    entries: tuple[ScoreEntry, ...]


@dataclass(frozen=True)
class Pay:
    """`/pay 老王 小李 5`: a transfer between two players, at any table."""

    payer: PlayerRef
    payee: PlayerRef
    amount: Fraction


@dataclass(frozen=True)
class Fee:
    """`/fee 120 台费 [paid 老王 | all | 小李 阿张]`: a cost beside the score, in money, shared
    equally by the open table's players, the sitting's (`everyone`), or those named; with
    `payer`, that player paid it for them."""

    amount: Fraction
    what: str
    payer: PlayerRef | None = None
    players: tuple[PlayerRef, ...] = ()
    everyone: bool = False


@dataclass(frozen=True)
class When:
    """A time as typed for /yue, read in the chat's time zone when the game is arranged:
    `day` "" (the next time that hour comes), "today", "tomorrow", "after" (后天), "weekday"
    (`value` 0 = Monday … 6), or "date" (`value` = month × 100 + day); `half` "am"/"pm" when
    said (上午/晚上, am/pm), else "" (an hour from 1 to 11 is then taken as p.m.: an evening)."""

    day: str
    value: int
    hour: int
    minute: int
    half: str = ""


@dataclass(frozen=True)
class Arrange:
    """`/yue 周五 20:00 麻将`: the next game, with a poll of who comes."""

    when: When
    game: str = ""


@dataclass(frozen=True)
class Plans:
    """`/yue` alone: the games arranged and who said they come."""


@dataclass(frozen=True)
class CancelPlan:
    """`/yue cancel [n]`: the arranged game `n` of the list (None: the next one) called off."""

    number: int | None = None


@dataclass(frozen=True)
class PollPosted:
    """The bot posted the poll of arranged game `plan_id`: its poll and message ids kept."""

    plan_id: int
    poll_id: str
    message_id: int


@dataclass(frozen=True)
class PollVote:
    """A member answered a /yue poll (`option_ids` empty: the vote retracted)."""

    poll_id: str
    option_ids: tuple[int, ...]


@dataclass(frozen=True)
class Undo:
    event_id: int | None = None  # a button or a reply names the event
    hand_no: int | None = None  # `/undo 7`: the open table's hand #7 of the season
    confirm: bool = False  # a second bare /undo right after another member's
    # Its message's Undo (the button, or /undo replying to it): refused once the record was
    # corrected since (`edit.CORRECTED_SINCE`), so the button never undoes what it did not show.
    from_message: bool = False


@dataclass(frozen=True)
class Edit:
    """`/edit 7 /hu 阿张 pao 小李` (or the corrected command replying to the record's message):
    record #7 (`hand_no`) or the record a reply or the Mini App names (`event_id`) corrected in
    place. `options`: the corrected command as each editable command reads it (the words
    alone may read as several), each with its text as a command (`texts`); the service takes
    the one of the record's kind. `seen`: the version the sender saw (a record's or an edit's
    event id), to tell them when another member changed it since."""

    options: tuple[Request, ...]
    texts: tuple[str, ...]
    hand_no: int | None = None
    event_id: int | None = None
    seen: int | None = None


@dataclass(frozen=True)
class Again:
    """[Record again]: the content of record `event_id` once more (the two-minute rule)."""

    event_id: int


@dataclass(frozen=True)
class Answered:
    """[Replace #N] (`replace`) or [Record both] under a near repeat's question: the content
    kept as `near_id` recorded, #N undone first when it replaces it (one transaction)."""

    near_id: int
    replace: bool


@dataclass(frozen=True)
class Standings:
    season: int | None = None  # an archived season's number


@dataclass(frozen=True)
class History:
    n: int = 10
    season: int | None = None
    versions: int | None = None  # `/history #7`: hand #7's versions (`/history 7`: the last 7
    # hands, and hand #7's versions where it was corrected)


@dataclass(frozen=True)
class Settle:
    season: int | None = None
    money: bool = False  # `/settle money`: one list in money across the games


@dataclass(frozen=True)
class Stats:
    season: int | None = None


@dataclass(frozen=True)
class Chart:
    season: int | None = None


@dataclass(frozen=True)
class Export:
    season: int | None = None
    trail: bool = False  # `/export all`: every version /edit replaced too


@dataclass(frozen=True)
class Rules:
    pass


@dataclass(frozen=True)
class Help:
    pass


@dataclass(frozen=True)
class Reset:
    confirm: bool = False  # "/reset confirm" (or the button) archives; plain "/reset" asks
    season_id: int | None = None  # the button names the season it was asked for


@dataclass(frozen=True)
class Seasons:
    pass


@dataclass(frozen=True)
class OpenApp:
    """`/app`: the Mini App's link for this chat (answered by the bot, not the service)."""


class Setting(StrEnum):
    STAKE = "stake"
    LANG = "lang"
    SISUANG = "sisuang"
    ZEROSUM = "zerosum"
    TZ = "tz"
    RATING = "rating"
    IDLE = "idle"  # minutes without a record after which a table closes itself (0: never)


@dataclass(frozen=True)
class SetOption:
    key: Setting
    value: str  # validated: stake a non-negative decimal text, lang "zh"/"en", flags "on"/"off",
    # tz an IANA zone name as zoneinfo spells it, idle whole minutes as text ("0": off)


@dataclass(frozen=True)
class Me:
    """`/me` in a private chat (or `/start me`): the sender's own record in every group."""


@dataclass(frozen=True)
class Mine:
    """`/mine`: the sender's own account here (in a group; in the private chat, of each group
    they play in): balances this season, last hands, what they pay or get at /settle money."""


@dataclass(frozen=True)
class Rating:
    """`/rating`: the chat's skill ratings per game, when `/set rating on`."""


@dataclass(frozen=True)
class Summary:
    """`/summary`: the night's card (the chat's hands since play last paused for six hours)."""


@dataclass(frozen=True)
class LastNight:
    """The card of the night that ended before the chat's record number `before`: offered
    once when a table nobody closed closes itself (its button)."""

    before: int


@dataclass(frozen=True)
class SeasonCard:
    """The season's card (sent when `/reset` archives it): None, the season in play."""

    season: int | None = None


@dataclass(frozen=True)
class SetStake:
    """`/set stake mahjong 1`: a game's own stake (`/set stake 0.5` is the chat's, SetOption)."""

    unit: str  # the game's unit: mahjong, 510k, free, free:<name>
    value: str | None  # a non-negative decimal text ("0": the game plays for nothing); None:
    # no stake of its own any more (the chat's applies)


@dataclass(frozen=True)
class GuestRound:
    """A free round or a transfer typed to the bot in guest mode (`@jifen_bot 老王+30 小李-30
    阿张`, in a chat that never added it): the chat's free table is opened, and the players it
    names seated, as needed; then it is recorded as /s or /pay records it."""

    record: Score | Pay


Request = (
    NewTable
    | Join
    | Seats
    | SetDealer
    | ShowPlayers
    | Link
    | Unlink
    | Claim
    | Sub
    | Leave
    | IAm
    | Rename
    | Merge
    | Gang
    | Hu
    | Liuju
    | Report
    | Score
    | Pay
    | Fee
    | Arrange
    | Plans
    | CancelPlan
    | PollPosted
    | PollVote
    | Undo
    | Edit
    | Again
    | Answered
    | Standings
    | History
    | Settle
    | Stats
    | Chart
    | Export
    | Rules
    | Help
    | Reset
    | Seasons
    | SetOption
    | OpenApp
    | Me
    | Mine
    | Rating
    | Summary
    | LastNight
    | SeasonCard
    | SetStake
    | GuestRound
)
