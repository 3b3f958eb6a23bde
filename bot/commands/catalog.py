"""The command table: every command jifen knows, one entry each, and the one place a command
is declared. Its name (Latin: Telegram marks only those), its other words in any language, how
it is written (the usage errors show), what it asks of the service (`makes`: the requests its
parser returns, each run by its use case in `service.core`), its parser, its line in Telegram's
command menu, who may use it, and whether typed alone it is asked by buttons.

Everything else is derived from here: the words `parse` accepts, the usage of an error, the
menu (`bot.app`), who must be checked for admin (`bot.chat.admin_check`), the one handler that
answers them all (`bot.chat.commands`). docs/commands.md tells players the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum

from bot.commands import admin, edit, fees, free, k510, mahjong, tables, undo, views, yue
from bot.i18n import N_
from service.requests import (
    Arrange,
    CancelPlan,
    Chart,
    Edit,
    Export,
    Fee,
    Gang,
    Help,
    History,
    Hu,
    IAm,
    Join,
    LastNight,
    Leave,
    Link,
    Liuju,
    Me,
    Merge,
    Mine,
    NewTable,
    OpenApp,
    Pay,
    Plans,
    Rating,
    Rename,
    Report,
    Request,
    Reset,
    Rules,
    Score,
    Seasons,
    Seats,
    SetDealer,
    SetOption,
    SetStake,
    Settle,
    ShowPlayers,
    Standings,
    Stats,
    Sub,
    Summary,
    Undo,
    Unlink,
)

#: A command's parser: its arguments (the text after the command word, normalised) and its
#: usage (for its errors) → the request; raises `ParseError` only.
Parser = Callable[[str, str], Request]


class Who(Enum):
    """Who may use a command."""

    ANYONE = "anyone"
    ADMINS = "admins"  # the group's admins only (the service refuses the others)
    ASKED = "asked"  # anyone, but whether the sender is an admin changes the answer


@dataclass(frozen=True)
class Command:
    """One command. `parse` None: it takes no arguments and makes `makes[0]()`."""

    name: str
    usage: str
    makes: tuple[type[Request], ...]
    parse: Parser | None = None
    aliases: tuple[str, ...] = ()
    menu: str | None = None
    who: Who = Who.ANYONE
    buttons: bool = False  # typed alone, it is asked by buttons (/hu's wizard, /s's)
    ephemeral: bool = False  # in a group it answers its sender alone (the menu says so)


def seasonal(make: Callable[[int | None], Request]) -> Parser:
    """A command taking an optional season number (`/standings 2`, `/chart season 2`)."""
    return lambda args, usage: make(views.season_arg(args, usage))


def help_or_me(args: str, usage: str) -> Request:
    """/help (anything after it ignored), and /start: with the deep link `?start=me` (`/start
    me`, the private chat opened by /me's button), the sender's record; `?start=mine` (opened
    where /mine could not answer privately in the group), their accounts."""
    word = args.strip().lower()
    return Me() if word == "me" else Mine() if word == "mine" else Help()


#: In the menu's order, then the rest; a family's commands together.
COMMANDS: tuple[Command, ...] = (
    Command(
        "hu",
        N_("/hu <winner> <how> [pattern] [flags]"),
        (Hu,),
        mahjong.parse_hu,
        aliases=("胡",),
        menu=N_("record a win: /hu A zimo qys"),
        buttons=True,
    ),
    Command(
        "gang",
        N_("/gang <player> an · /gang <player> ming <from> · /gang <player> bu <from>"),
        (Gang,),
        mahjong.parse_gang,
        aliases=("kong", "杠"),
        menu=N_("record a kong: /gang A an"),
    ),
    Command("liuju", N_("/liuju"), (Liuju,), aliases=("draw", "流局")),
    Command(
        "r",
        N_("/r <player>=<table points>[/<points in hand>] … out <first> <second> [<third>]"),
        (Report,),
        k510.parse_report,
        aliases=("report",),
        menu=N_("record a 510K hand"),
    ),
    Command(
        "s",
        N_("/s <player>+<points> <player>-<points> … [<player> without points: the balance]"),
        (Score,),
        free.parse_score,
        aliases=("score", "记", "记分"),
        menu=N_("record a round of any game: /s A+30 B-10 C"),
        buttons=True,
    ),
    Command(
        "pay",
        N_("/pay <payer> <payee> <amount>"),
        (Pay,),
        free.parse_pay,
        aliases=("付",),
        menu=N_("record a transfer: /pay A B 5"),
    ),
    Command(
        "undo",
        N_("/undo [hand number]"),
        (Undo,),
        undo.parse_undo,
        aliases=("撤销",),
        menu=N_("undo the last record"),
        who=Who.ASKED,  # a record named (`/undo 7`, a reply, a button): another table's needs one
    ),
    Command(
        "standings",
        N_("/standings [season]"),
        (Standings,),
        seasonal(Standings),
        aliases=("rank", "排名"),
        menu=N_("this season's balances"),
    ),
    Command(
        "history",
        N_("/history [n] [season <number>]"),
        (History,),
        views.parse_history,
        menu=N_("the last hands"),
    ),
    Command(
        "settle",
        N_("/settle [money] [season]"),
        (Settle,),
        views.parse_settle,
        aliases=("结算",),
        menu=N_("who pays whom"),
        who=Who.ASKED,  # an admin's settle-up offers to archive the season
    ),
    Command("stats", N_("/stats [season]"), (Stats,), seasonal(Stats)),
    Command("seasons", N_("/seasons"), (Seasons,)),
    Command("chart", N_("/chart [season]"), (Chart,), seasonal(Chart)),
    Command("export", N_("/export [all] [season]"), (Export,), views.parse_export),
    Command(
        "new",
        N_(
            "/new mahjong [sisuang] · /new 510k [marathon] [zerosum] · /new 510k3 [marathon]"
            " · /new free [name]"
        ),
        (NewTable,),
        tables.parse_new,
        menu=N_("open a table: mahjong, 510k, 510k3"),
    ),
    Command(
        "join",
        N_("/join [guest name]"),
        (Join,),
        tables.parse_join,
        aliases=("加入",),
        menu=N_("take a seat"),
    ),
    Command(
        "seats",
        N_("/seats <player 1> <player 2> <player 3> [<player 4>] (free: 2–10 players)"),
        (Seats,),
        tables.parse_seats,
    ),
    Command("dealer", N_("/dealer <player>"), (SetDealer,), tables.parse_dealer),
    Command("players", N_("/players"), (ShowPlayers,), menu=N_("seats and dealer")),
    Command("iam", N_("/iam <guest name>"), (IAm,), tables.parse_iam, aliases=("我是",)),
    Command(
        "sub",
        N_("/sub <player leaving> <player taking the seat>"),
        (Sub,),
        tables.parse_sub,
        aliases=("换",),
    ),
    Command("leave", N_("/leave"), (Leave,), aliases=("离座",)),
    Command(
        "rename",
        N_("/rename <player> <new name>"),
        (Rename,),
        tables.parse_rename,
        aliases=("改名",),
        who=Who.ASKED,  # an admin, or the player themself
    ),
    Command(
        "merge",
        N_("/merge <player to remove> <player who stays>"),
        (Merge,),
        tables.parse_merge,
        aliases=("合并",),
        menu=N_("merge two players: /merge A B"),
        who=Who.ADMINS,
    ),
    Command(
        "app",
        N_("/app"),
        (OpenApp,),
        menu=N_("the table at a glance: standings, chart, recording by taps"),
    ),
    Command(
        "rules",
        N_("/rules"),
        (Rules,),
        lambda args, usage: Rules(),  # anything after it ignored
        aliases=("规则",),
        menu=N_("the rules in force"),
    ),
    Command(
        "help",
        N_("/help"),
        (Help, Me, Mine),
        help_or_me,
        aliases=("start", "帮助"),
        menu=N_("how to use the bot"),
    ),
    Command(
        "me",
        N_("/me"),
        (Me,),
        aliases=("战绩",),
        menu=N_("my record in every group (only I see it)"),
        ephemeral=True,
    ),
    Command("rating", N_("/rating"), (Rating,), aliases=("评分",)),
    Command("summary", N_("/summary"), (Summary, LastNight), aliases=("战报", "总结")),
    Command(
        "set",
        N_(
            "/set stake 0.5 · /set stake mahjong 1 · /set lang zh|en · /set sisuang on|off · "
            "/set zerosum on|off · /set tz Asia/Shanghai · /set idle 6h|off"
        ),
        (SetOption, SetStake),
        admin.parse_set,
        menu=N_("settings: stake, language, time zone"),
        who=Who.ADMINS,
    ),
    Command(
        "reset",
        N_("/reset [confirm]"),
        (Reset,),
        admin.parse_reset,
        menu=N_("archive the season and start a new one"),
        who=Who.ADMINS,
    ),
    Command(
        "link",
        N_("/link <guest> @<username>"),
        (Link,),
        admin.parse_link,
        menu=N_("link a guest to a member: /link 小李 @li"),
        who=Who.ADMINS,
    ),
    Command("unlink", N_("/unlink <player>"), (Unlink,), admin.parse_unlink, who=Who.ADMINS),
    Command(
        "mine",
        N_("/mine"),
        (Mine,),
        aliases=("我的",),
        menu=N_("my balance, last hands and what I pay (only I see it)"),
        ephemeral=True,
    ),
    Command(
        "fee",
        N_(
            "/fee <amount> <what> [paid <payer> | all | <players>…] · /fee 120 台费 · "
            "/fee 120 台费 paid 老王 · /fee 30 茶水 小李 阿张"
        ),
        (Fee,),
        fees.parse_fee,
        aliases=("台费", "费用"),
        menu=N_("a cost beside the score, split: /fee 120 台费"),
    ),
    Command(
        "yue",
        N_(
            "/yue <when> [game] · /yue 周五 20:00 麻将 · /yue 明天 8点 · /yue 20:00 · "
            "/yue fri 8pm · /yue (what is arranged) · /yue cancel [n] — a day: 今天 明天 后天 "
            "周五 fri 12-25; a time: 20:00 8点 8点半 8pm (1–11 without am/上午: p.m.)"
        ),
        (Arrange, Plans, CancelPlan),
        yue.parse_yue,
        aliases=("约", "约局", "约牌"),
        menu=N_("arrange the next game, with a poll: /yue 周五 20:00 麻将"),
        who=Who.ASKED,  # whoever arranged a game, or an admin, may call it off
    ),
    Command(
        "edit",
        N_("/edit <n> <command>"),
        (Edit,),
        lambda args, usage: edit.parse_edit(args, usage, WORDS),  # the words of the table
        aliases=("改",),
        menu=N_("correct a record: /edit 7 /hu A pao B"),
        who=Who.ASKED,  # another table's record, or an earlier sitting's: an admin's
    ),
)

BY_NAME: Mapping[str, Command] = {command.name: command for command in COMMANDS}
#: Every word accepted after the / (lower-case) → its command.
WORDS: Mapping[str, Command] = {
    word: command for command in COMMANDS for word in (command.name, *command.aliases)
}
#: The commands of Telegram's command menu of a group's members, in its order.
MENU: tuple[Command, ...] = tuple(c for c in COMMANDS if c.menu and c.who is not Who.ADMINS)
#: A group's admins' menu: the members', then the admins' commands (/set, /reset, /merge…).
ADMIN_MENU: tuple[Command, ...] = MENU + tuple(
    c for c in COMMANDS if c.menu and c.who is Who.ADMINS
)
#: The private chat's menu.
PRIVATE_MENU: tuple[Command, ...] = tuple(BY_NAME[name] for name in ("me", "mine", "help"))


def _makers() -> dict[type[Request], Command]:
    found: dict[type[Request], Command] = {}
    for command in COMMANDS:  # first what each makes first (/me's Me, not /start me's)
        found.setdefault(command.makes[0], command)
    for command in COMMANDS:
        for kind in command.makes[1:]:
            found.setdefault(kind, command)
    return found


#: The command that makes each type of request (a button's request has one too: /reset's
#: Reset, /undo's Undo), for who may ask it.
MAKERS: Mapping[type[Request], Command] = _makers()
