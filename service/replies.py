"""Reply models: what a use case answers. The bot renders them in the chat's language."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any
from zoneinfo import ZoneInfo

from service.hand_views import HandView

# around the game (issue 42): kept in `service.replies_around`, part of the union
from service.replies_around import PlanCancelled as PlanCancelled
from service.replies_around import PlanLine as PlanLine
from service.replies_around import PlanMade as PlanMade
from service.replies_around import PlanNoted as PlanNoted
from service.replies_around import PlanReminder as PlanReminder
from service.replies_around import PlansView as PlansView
from service.replies_around import SittingClosed as SittingClosed
from service.requests import NewTable, Request


@dataclass(frozen=True)
class Progress:
    """A running 510K marathon: each side's accumulated card points towards the target."""

    sides: tuple[tuple[str, int], ...]
    target: int
    hands: int
    newcomers: tuple[str, ...] = ()  # sat down since the marathon began: they start at 0
    took_over: tuple[tuple[str, str], ...] = ()  # (newcomer, who they replaced): 4 players,
    # the team keeps its progress


@dataclass(frozen=True)
class Recorded:
    view: HandView
    dealer: str | None = None  # mahjong: who deals next
    progress: Progress | None = None
    repeated: bool = False  # the same update came again: nothing new was recorded
    totals: tuple[tuple[str, Fraction | int], ...] = ()  # free scoring: the balances after it
    not_concealed: tuple[str, ...] = ()  # winners scored as not 门清 who could have said mq
    archived_season: int | None = None  # the hand's season, when it is no longer the current one
    replaced: int | None = None  # [Replace #N]: the hand number it replaced (undone with it)
    qqr_self_drawn: tuple[str, ...] = ()  # winners whose 全求人 was self-drawn: no ×2
    chain_unrecorded: tuple[tuple[str, int], ...] = ()  # a 杠上炮/抢杠 chain's kongs never
    # recorded with /gang: (whose, how many), their kong points not paid


@dataclass(frozen=True)
class Undone:
    view: HandView
    dealer: str | None = None


@dataclass(frozen=True)
class Edited:
    """/edit: record #`view.hand_no` corrected in place (`undone`: its last correction undone,
    the version before back). `before`: the version it replaced; `by`: who changed it;
    `edit_id`: the correction (its Undo); `older`: not the table's last hand, so only its
    payments changed; `dealer`: who deals next, where the correction moved it; `added` /
    `dropped`: the words of the command that changed."""

    view: HandView
    before: HandView
    by: str
    edit_id: int
    older: bool = False
    dealer: str | None = None
    added: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    undone: bool = False


@dataclass(frozen=True)
class TableView:
    """The open table: game, options and seats (None = free)."""

    game: str
    marathon: bool
    sisuang: bool
    zerosum: bool
    seats: tuple[str | None, ...]
    dealer: str | None
    event: str  # "opened" | "joined" | "seated" | "players" | "dealer" | "sub" | "left"
    who: str = ""  # the player the event is about
    left: tuple[str, ...] = ()  # opened: the replaced table's players who found no seat
    name: str = ""  # a free game's name
    kongs: tuple[tuple[int, str], ...] = ()  # /players of mahjong: the hand's kongs (seat, kind)
    claim: Claimable | None = None  # /join <guest>: the sender may say "I am this guest"
    claims: tuple[Claimable, ...] = ()  # /seats: each unclaimed guest, for whoever it is
    new: tuple[str, ...] = ()  # guests this command made: announced as new
    replaced: str = ""  # /sub: who left the seat (`who` took it)
    carries: bool = False  # /sub in a running marathon: `who` plays on with the seat's totals


@dataclass(frozen=True)
class NewAsk:
    """/new over a table with players seated: what replacing it loses, to confirm."""

    request: NewTable
    replaces: int  # the table's id
    game: str  # the table's game
    seated: tuple[str, ...]
    kept: tuple[str, ...]  # who keeps a seat at the new table
    kongs: int  # kongs of the hand being played: dropped unpaid
    marathon: bool  # a 连打 is running: its totals are dropped


@dataclass(frozen=True)
class RepeatAsk:
    """The same content as the table's last record, within two minutes of it: nothing is
    recorded until someone answers [Record again] (`Again`) or [No]."""

    view: HandView  # the last record
    seconds: int  # how long ago it was recorded
    near: int | None = None  # a near repeat (same winners and way, or finishing order, but
    # other content): the id of its kept content, for [Replace #N] / [Record both]
    text: str = ""  # near: the command as typed now
    added: tuple[str, ...] = ()  # near: words typed now and not in the record
    dropped: tuple[str, ...] = ()  # near: words of the record not typed now


@dataclass(frozen=True)
class UndoPick:
    """`/undo <n>` where several tables of the season have a #n: which one?"""

    hand_no: int
    choices: tuple[HandView, ...]


@dataclass(frozen=True)
class UndoAsk:
    """A bare /undo right after another member's undo: undo one more record?"""

    event_id: int
    hand_no: int | None  # None: a kong
    text: str
    undone_by: str  # who undid the record before


@dataclass(frozen=True)
class Claimable:
    """A guest a member may become: a button only `user_id` can press (0: whoever presses)."""

    player_id: int
    user_id: int
    name: str  # the guest's


@dataclass(frozen=True)
class NameAsk:
    """A new name one letter from a known player's: which one was meant? Nothing changed; each
    answer is the command again, with the known player or with the name as a new guest."""

    typed: str
    guess: str  # the known player's name
    known: Request  # the command with the known player
    new: Request  # the command with a new guest of the typed name
    user_id: int = 0  # the member who asked (who may answer); 0: anyone


@dataclass(frozen=True)
class Renamed:
    old: str
    new: str


@dataclass(frozen=True)
class Merged:
    """`/merge A B`: A's records are B's now."""

    gone: str
    kept: str
    records: int  # the records of A's that moved


@dataclass(frozen=True)
class Linked:
    guest: str
    username: str


@dataclass(frozen=True)
class Claimed:
    """A member became a guest: its seat and balance are theirs now."""

    name: str
    member: str  # the member's own (Telegram) name, so the table sees who it was


@dataclass(frozen=True)
class Unlinked:
    """A player is a guest again: nobody's account (`/unlink`)."""

    name: str


@dataclass(frozen=True)
class StandingsView:
    season: int
    archived: bool
    sections: tuple[tuple[str, tuple[tuple[str, Fraction], ...]], ...]  # unit → (name, balance)
    progress: Progress | None = None


@dataclass(frozen=True)
class HistoryView:
    season: int
    hands: tuple[HandView, ...]
    tz: str = "UTC"  # the chat's time zone (IANA name): times are shown in it
    versions: tuple[Version, ...] = ()  # `/history <n>` of a corrected record: its versions


@dataclass(frozen=True)
class Version:
    """One version of a corrected record: as it read, who wrote it and when (the recorder for
    the first, each correction's author for the next)."""

    view: HandView
    by: str
    at: datetime


@dataclass(frozen=True)
class SettleView:
    season: int
    sections: tuple[tuple[str, tuple[tuple[str, str, Fraction], ...]], ...]
    stake: Fraction | None  # the chat's stake (every game without one of its own)
    stakes: tuple[tuple[str, Fraction], ...] = ()  # unit → the stake it settles at (if any)
    squared: tuple[str, ...] = ()  # units squared hand by hand (not zero-sum 510K hands)
    archive: int | None = None  # the season id an admin may archive from this reply


@dataclass(frozen=True)
class MoneyView:
    """`/settle money`: each game's points times its stake, added up per player, squared."""

    season: int
    transfers: tuple[tuple[str, str, Fraction], ...]  # payer, payee, money (whole cents)
    games: tuple[tuple[str, Fraction], ...]  # unit → stake: the games counted
    left_out: tuple[str, ...]  # units with something to settle but no stake
    rounded: bool = False  # some money was not whole cents: rounded per player
    archive: int | None = None  # the season id an admin may archive from this reply


@dataclass(frozen=True)
class StakeSet:
    """`/set stake …`: the stake now of one game (`unit`) or of the chat (None)."""

    unit: str | None
    stake: Fraction | None  # the game's own stake, or the chat's (None: none)
    chat_stake: Fraction | None
    own: tuple[tuple[str, Fraction], ...] = ()  # the games with a stake of their own


@dataclass(frozen=True)
class SeasonLine:
    number: int
    opened_at: datetime
    archived_at: datetime | None
    hands: int


@dataclass(frozen=True)
class SeasonsView:
    seasons: tuple[SeasonLine, ...]


@dataclass(frozen=True)
class ResetAsk:
    season: int
    season_id: int


@dataclass(frozen=True)
class ResetDone:
    archived: int
    new: int
    last_hand: int | None = None  # this table's last hand of the archived season (one typed
    # meanwhile shows); the new season numbers the table's hands from 1 again


@dataclass(frozen=True)
class SettingChanged:
    key: str
    value: str


@dataclass(frozen=True)
class RulesView:
    game: str | None
    sisuang: bool
    zerosum: bool
    stake: Fraction | None
    stakes: tuple[tuple[str, Fraction], ...] = ()  # the games' own stakes: unit → stake


@dataclass(frozen=True)
class HelpView:
    pass


@dataclass(frozen=True)
class Info:
    """A short message with no data of its own."""

    msgid: str
    params: Mapping[str, Any] = field(default_factory=dict)


# --- /stats, /chart, /export (service.insight) -----------------------------------------


@dataclass(frozen=True)
class MahjongLine:
    name: str
    hands: int
    wins: int
    self_draws: int
    deal_ins: int
    biggest: Fraction | None  # the best net of a hand won; None: no win
    average: Fraction | None  # the mean net of the hands won; None: no win
    net: Fraction  # the season's balance (equals /standings)


@dataclass(frozen=True)
class HeadToHead:
    """Between two players: `payer` paid `payee` `paid` and got `back` from them; net ≥ 0."""

    payer: str
    payee: str
    paid: Fraction
    back: Fraction

    @property
    def net(self) -> Fraction:
        return self.paid - self.back


@dataclass(frozen=True)
class K510Line:
    name: str
    hands: int
    first_out: int
    wins: int  # results won (team wins with four players)
    results: int  # results taken part in: scored hands and finished marathons
    net: Fraction


@dataclass(frozen=True)
class FreeLine:
    name: str
    rounds: int
    wins: int  # rounds scored above 0
    biggest: Fraction | None  # the best round; None: no round won
    net: Fraction  # the balance in the unit (equals /standings)


@dataclass(frozen=True)
class FreeSection:
    """One free game's statistics (its unit: `free` or `free:<name>`)."""

    unit: str
    rounds: int
    lines: tuple[FreeLine, ...]  # best balance first


@dataclass(frozen=True)
class StatsView:
    season: int
    archived: bool
    mahjong_hands: int
    mahjong: tuple[MahjongLine, ...]  # best balance first
    head_to_head: tuple[HeadToHead, ...]  # largest net first
    k510_hands: int
    k510: tuple[K510Line, ...]
    undone: int  # undone hands, left out
    free: tuple[FreeSection, ...] = ()

    @property
    def empty(self) -> bool:
        # transfers count too: a table with only transfers has lines but no hands
        return not (self.mahjong_hands or self.mahjong or self.k510_hands or self.k510 or self.free)


@dataclass(frozen=True)
class ChartLine:
    name: str
    values: tuple[Fraction, ...]  # the balance at the start (0), then at each point of `at`


@dataclass(frozen=True)
class ChartSeries:
    """A game's balances after its live hands and transfers: every one, or (a long season)
    a few hundred spread over them; the last point is the balances now (/standings)."""

    unit: str  # "mahjong" | "510k" | "free" | "free:<name>"
    at: tuple[int, ...]  # each point's count of live records played: 0 first, all of them last
    lines: tuple[ChartLine, ...]  # best final balance first

    @property
    def hands(self) -> int:
        return self.at[-1]


@dataclass(frozen=True)
class ChartData:
    season: int
    archived: bool
    series: tuple[ChartSeries, ...]  # mahjong, then 510K; none: nothing to draw
    live_hands: int | None = None  # the season's hands (`storage.gateway.ledger.live_hands`)

    @property
    def filename(self) -> str:
        return f"jifen-season-{self.season}.png"

    @property
    def hands(self) -> int:
        """The season's hands, as /summary and /export count them (kongs, transfers and
        undone hands are not hands; the picture's axis counts records)."""
        if self.live_hands is not None:
            return self.live_hands
        return sum(s.hands for s in self.series)


# One payment of the ledger, as the database returns it: (UTC time to the second,
# "YYYY-MM-DD HH:MM:SS"; hand number, None for none; game: "mahjong" | "510k" | "510k3" |
# "free"; unit: "mahjong" | "510k" | "free" | "free:<name>"; payer's name, None for the table
# (510K, free rounds); payee's name; amount, exact, as stored: "-3", "45/2"; reason: "win" |
# "sealed" | "kong" | "score" | "pay"; recorded by; undone: 1, else 0; the hand's tiles as
# scored, "" when not given; the table's id: hand #1 of two tables told apart). A plain tuple:
# a season has millions.
ExportRow = tuple[
    str, int | None, str, str, str | None, str | None, str, str, str, int, str, int, int
]


@dataclass(frozen=True)
class ExportData:
    """A season's ledger: `rows` streams it from the database each time it is iterated (in
    a read of its own, bounded to the hands counted here), never all in memory."""

    season: int
    archived: bool
    rows: Iterable[ExportRow]  # hand by hand, payments in recorded order
    count: int  # rows
    hands: int  # the season's hands (`storage.gateway.ledger.live_hands`)
    tz: str = "UTC"  # the chat's time zone (IANA name): the time column is in it

    @property
    def filename(self) -> str:
        return f"jifen-season-{self.season}.csv"


# --- /me, /rating, the night's and the season's card (service.me, .rating, .cards) --------


@dataclass(frozen=True)
class MeCounts:
    """A member's record in one game over some seasons: balance and /stats' counters."""

    net: Fraction
    hands: int  # hands, 510K hands, free rounds
    wins: int  # mahjong wins, 510K results won, free rounds won
    self_draws: int = 0
    deal_ins: int = 0
    first_out: int = 0
    results: int = 0  # 510K results taken part in
    biggest: Fraction | None = None  # the best hand (mahjong) or round (free) won


@dataclass(frozen=True)
class MeGame:
    unit: str  # "mahjong" | "510k" | "free" | "free:<name>"
    season: MeCounts  # the season in play
    all_time: MeCounts  # every season, the one in play included


@dataclass(frozen=True)
class MeGroup:
    """A member's own record in one group, as that group's /standings and /stats show it."""

    title: str | None  # the group's title as last seen (None: not seen since it was kept)
    name: str  # the member's player's name there
    season: int  # the number of the season in play
    games: tuple[MeGame, ...]
    mates: tuple[tuple[str, int], ...]  # whom they played with most: (name, hands together)
    head_to_head: tuple[tuple[str, Fraction, Fraction], ...]  # mahjong, all time: (name,
    # paid them, got from them), largest difference first
    chat_id: int  # the group: shown only while the member is one of its members (bot side)


@dataclass(frozen=True)
class MeView:
    groups: tuple[MeGroup, ...]
    in_group: bool = False  # asked in a group: shown to the sender alone there


@dataclass(frozen=True)
class MineHand:
    """One of the member's last records: its number, when, as typed, and their net of it."""

    hand_no: int | None
    at: datetime
    text: str
    unit: str
    net: Fraction


@dataclass(frozen=True)
class MineGroup:
    """A member's account in one group this season: what /mine shows."""

    title: str | None  # the group's title (None: not seen since it was kept)
    name: str  # the member's player's name there
    season: int
    balances: tuple[tuple[str, Fraction], ...]  # (unit, net this season), in the games' order
    hands: tuple[MineHand, ...]  # newest first
    pays: tuple[tuple[str, Fraction], ...]  # /settle money: (to whom, money)
    gets: tuple[tuple[str, Fraction], ...]  # (from whom, money)
    counted: tuple[tuple[str, Fraction], ...]  # (unit, stake): the games money counts
    tz: str


@dataclass(frozen=True)
class MineView:
    """`/mine`: the sender's account in this group (in the private chat: in each group)."""

    groups: tuple[MineGroup, ...]
    in_group: bool  # asked in a group: shown to the sender alone there


@dataclass(frozen=True)
class MeElsewhere:
    """`/me` in a group: the record is told in the private chat, never here."""


@dataclass(frozen=True)
class RatingLine:
    name: str
    ordinal: float  # openskill's conservative estimate, mu - 3 sigma
    sittings: int
    change: float | None  # by the game's last sitting, if they played it


@dataclass(frozen=True)
class RatedSitting:
    """One sitting as it moved the rating: each player's place (1: best net) and change."""

    at: datetime  # its first hand
    hands: int
    places: tuple[tuple[str, int, float], ...]  # (name, place, change of the ordinal)


@dataclass(frozen=True)
class RatingGame:
    unit: str
    lines: tuple[RatingLine, ...]  # best first
    recent: tuple[RatedSitting, ...]  # newest first


@dataclass(frozen=True)
class RatingView:
    games: tuple[RatingGame, ...]
    tz: str = "UTC"


@dataclass(frozen=True)
class CardLine:
    name: str
    nets: tuple[tuple[str, Fraction], ...]  # (unit, net) for each game of the card it played
    money: Fraction | None  # the nets times the stake, added up (510K squared per hand)
    hands: int
    wins: int


@dataclass(frozen=True)
class CardHand:
    """The card's biggest hand: who won it, in which game, the winner's net for it."""

    name: str
    unit: str
    amount: Fraction
    hand_no: int | None


@dataclass(frozen=True)
class Card:
    """A picture of a night (`season` None) or of a season: each player's nets per game and in
    money, the biggest hand, the most wins, who pays whom; a season's also the longest run of
    hands won in a row."""

    title: str | None  # the chat's title
    season: int | None  # a season's card: its number
    start: datetime
    end: datetime
    tz: str
    units: tuple[str, ...]  # the games, in the order of the sections
    hands: tuple[tuple[str, int], ...]  # (unit, hands played)
    lines: tuple[CardLine, ...]  # best first
    biggest: tuple[CardHand, ...]  # per game that has wins of a value (mahjong, free)
    most_wins: tuple[tuple[str, int], ...]  # the players with the most wins, and how many
    plan: tuple[tuple[str, tuple[tuple[str, str, Fraction], ...]], ...]  # ("money" or a unit,
    # transfers): in money when a stake is set, else per game in points
    stake: Fraction | None  # the one stake of every game counted in money (None: not one)
    streak: tuple[tuple[str, int], ...] = ()  # a season's: the longest run of hands won
    games: tuple[tuple[str, Fraction], ...] = ()  # (unit, stake) counted in money, as /settle money
    left_out: tuple[str, ...] = ()  # games with points but no stake: not in the money
    rounded: bool = False  # some money was not whole cents: rounded so that it adds up

    @property
    def filename(self) -> str:
        """`jifen-2026-12-05.png`: the night's last hand's day in the chat's time zone."""
        end = self.end if self.end.tzinfo is not None else self.end.replace(tzinfo=UTC)
        when = end.astimezone(ZoneInfo(self.tz)).strftime("%Y-%m-%d")
        return f"jifen-season-{self.season}.png" if self.season else f"jifen-{when}.png"


Reply = (
    Recorded
    | Edited
    | StatsView
    | ChartData
    | ExportData
    | Undone
    | TableView
    | Linked
    | Claimed
    | NameAsk
    | Renamed
    | Merged
    | Unlinked
    | StandingsView
    | HistoryView
    | SettleView
    | MoneyView
    | StakeSet
    | SeasonsView
    | ResetAsk
    | NewAsk
    | UndoAsk
    | RepeatAsk
    | UndoPick
    | ResetDone
    | SettingChanged
    | RulesView
    | HelpView
    | Info
    | MeView
    | MeElsewhere
    | MineView
    | RatingView
    | Card
    | SittingClosed
    | PlanMade
    | PlansView
    | PlanCancelled
    | PlanNoted
    | PlanReminder
)
