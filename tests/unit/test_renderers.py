"""The renderer registry (`bot.presentation.render.RENDERERS`) covers the `Reply` union: every
type of reply has its renderer, and each renders in Chinese and in English."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from fractions import Fraction
from typing import get_args

import pytest

from bot.presentation.out import Out
from bot.presentation.render import RENDERERS, Renderer
from scoring import Formula, HandValue, KongKind, Pattern, Result510k, WinType
from scoring.games import Game
from service import replies as r
from service.hand_views import (
    FeeView,
    FreeView,
    HandView,
    K510View,
    KongView,
    MahjongView,
    Payment,
    TilesView,
    WinView,
)
from service.requests import NewTable, PlayerRef, RefKind, Score, ScoreEntry
from tests.unit.test_card import a_card

CJK = re.compile(r"[\u4e00-\u9fff]")
AT = datetime(2026, 3, 1, 20, 15, tzinfo=UTC)
NAMES = ("老王", "小李", "阿张", "Chen")
VALUE = HandValue(
    how=WinType.ZIMO,
    pattern=Pattern.PENGPENGHU,
    groups=0,
    qingyise=True,
    menqing=False,
    quanqiuren=False,
    k=4,
    base=3,
    unit=12,
    chain=1,
    formula=Formula.SELF_DRAW,
    value=12,
)


def view(detail: object, payments: tuple[Payment, ...] = (), **fields: object) -> HandView:
    given: dict[str, object] = {
        "event_id": 7,
        "hand_no": 3,
        "kind": "hand",
        "game": Game.MAHJONG,
        "text": "/hu 老王 自摸 清一色 碰碰胡",
        "at": AT,
        "undone": False,
        "recorded_by": "小李",
        "payments": payments,
        "detail": detail,
        "names": NAMES,
        "table_id": 1,
    }
    return HandView(**(given | fields))  # type: ignore[arg-type]


HAND = view(
    MahjongView((WinView("老王", VALUE, TilesView("11122233344455m", "111m 222m 333m 444m 55m")),)),
    tuple(Payment(n, "老王", 12, "win", VALUE) for n in NAMES[1:]),
)
KONG = view(KongView(KongKind.AN), kind="kong", text="/gang 老王 暗")
RESULT = Result510k(
    card_points=(50, -20, 40, 30),
    team_points=(90, 10),
    winner=0,
    ranking=(0, 2, 3, 1),
    doubled=False,
    bonus=Fraction(0),
    scores=(Fraction(45), Fraction(5), Fraction(45), Fraction(5)),
    incomplete=True,
)
K510 = view(
    K510View((50, -20, 40, 30), 90, RESULT),
    tuple(Payment(None, n, 45, "score") for n in NAMES),
    game=Game.K510,
    text="/r 老王=30 小李=0 阿张=40 Chen=20 out 老王 阿张",
)
ROUND = view(
    FreeView("free:斗地主"),
    (Payment(None, "老王", 30, "score"), Payment("小李", None, 30, "score")),
    game=Game.FREE,
    text="/s 老王+30 小李",
)
TABLE = r.TableView("mahjong", False, False, False, NAMES, "老王", "players")
SEASON = r.SeasonLine(2, AT, None, 40)
ME = r.MeCounts(Fraction(36), 10, 4, 2, 1, biggest=Fraction(36))

PLAN = r.PlanLine(1, AT, "麻将", 4, "老王", ("老王", "小李"), 1)
FEE = view(
    FeeView(
        "台费", Fraction(100), None, (("老王", Fraction("33.34")), ("小李", Fraction("33.33")))
    ),
    (
        Payment("老王", None, Fraction("33.34"), "fee"),
        Payment("小李", None, Fraction("33.33"), "fee"),
    ),
    kind="fee",
)

SAMPLES: list[r.Reply] = [
    r.Recorded(HAND, dealer="老王", not_concealed=("老王",)),
    r.Recorded(K510),
    r.Recorded(ROUND, totals=(("老王", 30), ("小李", -30))),
    r.Recorded(KONG),
    r.Undone(HAND, dealer="小李"),
    r.Edited(HAND, KONG, "小李", 9, older=True, added=("qys",), dropped=("pph",)),
    r.Edited(HAND, HAND, "小李", 10, dealer="老王", undone=True),
    TABLE,
    r.NewAsk(NewTable(Game.K510), 1, "mahjong", NAMES, NAMES, 1, False),
    r.NameAsk(
        "老玩",
        "老王",
        Score((ScoreEntry(PlayerRef(RefKind.ID, "1"), None),)),
        Score((ScoreEntry(PlayerRef(RefKind.NEW, "老玩"), None),)),
    ),
    r.Claimed("小李", "Li"),
    r.Linked("小李", "li"),
    r.Unlinked("小李"),
    r.Renamed("小李", "小黎"),
    r.Merged("小黎", "小李", 3),
    r.StandingsView(2, False, (("mahjong", (("老王", Fraction(36)), ("小李", -12))),)),
    r.HistoryView(2, (HAND, KONG, K510, ROUND), "Asia/Shanghai"),
    r.HistoryView(
        2, (HAND,), "UTC", (r.Version(HAND, "老王", HAND.at), r.Version(HAND, "小李", HAND.at))
    ),
    r.SeasonsView((SEASON,)),
    r.ResetAsk(2, 9),
    r.ResetDone(2, 3, last_hand=40),
    r.SettleView(2, (("mahjong", (("小李", "老王", Fraction(12)),)),), Fraction(1, 2), archive=9),
    r.MoneyView(2, (("小李", "老王", Fraction(6)),), (("mahjong", Fraction(1, 2)),), ()),
    r.StakeSet("mahjong", Fraction(1), None),
    r.UndoAsk(7, 3, "/hu 老王 自摸", "小李"),
    r.RepeatAsk(HAND, 30),
    r.UndoPick(3, (HAND, ROUND)),
    r.StatsView(
        2,
        False,
        1,
        (r.MahjongLine("老王", 1, 1, 1, 0, Fraction(36), Fraction(36), Fraction(36)),),
        (r.HeadToHead("小李", "老王", Fraction(12), Fraction(0)),),
        0,
        (),
        0,
    ),
    r.ChartData(2, False, ()),
    r.ExportData(2, False, (), 0, 0),
    r.SettingChanged("sisuang", "on"),
    r.RulesView("mahjong", True, False, Fraction(1, 2)),
    r.HelpView(),
    r.Info("Nothing to undo."),
    r.MeView(
        (r.MeGroup("牌友", "老王", 2, (r.MeGame("mahjong", ME, ME),), (("小李", 10),), (), -100),)
    ),
    r.MeElsewhere(),
    r.MineView(
        (
            r.MineGroup(
                "牌友",
                "老王",
                2,
                (("mahjong", Fraction(36)), ("free:斗地主", Fraction(-10))),
                (r.MineHand(7, AT, "/hu 老王 zimo", "mahjong", Fraction(24)),),
                (("老陈", Fraction(12)),),
                (("小李", Fraction(7, 2)),),
                (("mahjong", Fraction(1, 2)),),
                "Asia/Shanghai",
            ),
        ),
        in_group=True,
    ),
    r.RatingView(
        (
            r.RatingGame(
                "mahjong",
                (r.RatingLine("老王", 12.5, 3, 1.5),),
                (r.RatedSitting(AT, 8, (("老王", 1, 1.5),)),),
            ),
        ),
        "Asia/Shanghai",
    ),
    a_card(),
    r.Recorded(FEE),
    r.SittingClosed(7, AT, 12, "mahjong", "Asia/Shanghai"),
    r.PlanMade(1, PLAN, "Asia/Shanghai", 30),
    r.PlansView((PLAN,), "Asia/Shanghai"),
    r.PlanCancelled(PLAN, "Asia/Shanghai"),
    r.PlanNoted(PLAN, "Asia/Shanghai"),
    r.PlanReminder(-1, 0, PLAN, ((1, "老王"),), "Asia/Shanghai", "zh", 29),
]


def test_the_registry_is_the_reply_union() -> None:
    assert set(RENDERERS) == set(get_args(r.Reply))


def test_the_samples_cover_the_reply_union() -> None:
    assert {type(reply) for reply in SAMPLES} == set(get_args(r.Reply))


@pytest.mark.parametrize("reply", SAMPLES, ids=lambda reply: type(reply).__name__)
def test_every_reply_renders_in_both_languages(reply: r.Reply) -> None:
    zh, en = Renderer("zh").render(reply), Renderer("en").render(reply)
    assert isinstance(zh, Out) and isinstance(en, Out)
    assert zh.text.strip() and en.text.strip()
    assert CJK.search(zh.text), zh.text
    assert zh.text != en.text
    assert [len(row) for row in zh.buttons] == [len(row) for row in en.buttons]
