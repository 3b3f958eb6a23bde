"""/stats, /chart and /export on SQLite and PostgreSQL: numbers worked out by hand, the export
agreeing with the standings, archived seasons, and a bounded number of queries."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import Engine

from bot.commands.timezones import local
from bot.presentation import export_csv, render_insight
from bot.presentation.render import Renderer
from service import insight
from service.errors import ServiceError
from service.replies import (
    ChartData,
    ExportData,
    ExportRow,
    HeadToHead,
    K510Line,
    MahjongLine,
    StatsView,
)
from service.requests import Chart, Export, Stats
from service.views import chat_zone, season_for
from storage.gateway.players import players_of_chat
from storage.unit_of_work import reading
from tests.conftest import migrated
from tests.integration.helpers import Chat, live_totals, utc

P4 = ("老王", "Li", "Zhang", "Chen")
T = TypeVar("T")


def ask(engine: Engine, chat_id: int, use_case: Callable[[Any, int, Any], T], req: Any) -> T:
    with reading(engine) as db:
        return use_case(db, chat_id, req)


def evening(engine: Engine, chat_id: int) -> Chat:
    """Five live mahjong hands and an undone one, then 510K with four and three players."""
    chat = Chat(engine, chat_id, admins=("老王",))
    chat.seat("mahjong", *P4)
    chat.say("老王", "/hu 老王 zimo qys pph")  # #1: 12 from each
    chat.say("Li", "/gang Li an")
    chat.say("Li", "/hu 2 pao 3")  # #2: Zhang 2 to Li; the kong: 1 from each
    chat.say("老王", "/hu 老王 pao Li pph feng Zhang")  # #3: Li 9, sealed Zhang 9
    chat.say("Li", "/hu Li pao Chen; Zhang pao Chen qys")  # #4: Chen 2 to Li, 9 to Zhang
    chat.say("Chen", "/hu Chen zimo")  # #5, undone
    chat.say("Chen", "/undo")
    chat.say("Chen", "/gang Chen bu 老王")
    chat.say("Chen", "/liuju")  # #6: 老王 1 to Chen for the kong
    chat.seat("510k", *P4)
    chat.say("Li", "/r 1=25 2=35 3=20 4=0/20 out 2 1 3")  # #7: 老王+Zhang 22.5, Li+Chen 7.5
    chat.say("Li", "/r 1=60 2=0 3=40 4=0 out 1 3")  # #8: 老王+Zhang 120, Li+Chen -40
    chat.seat("510k3", "老王", "Li", "Zhang")
    chat.say("Li", "/r 1=50 2=30 3=20 out 1 2")  # #9: 老王 wins
    return chat


@dataclass
class Evening:
    engine: Engine
    chat_id: int
    chat: Chat


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Evening]:
    """One evening per backend, shared by the tests that only read it."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('insight')}/jifen.sqlite3"
    else:
        url = request.getfixturevalue("pg_url")
    chat_id = -3_000_001  # apart from the `chat_id` fixture's numbers
    with migrated(url) as engine:
        yield Evening(engine, chat_id, evening(engine, chat_id))


def by_name(lines: tuple[T, ...]) -> dict[str, T]:
    return {line.name: line for line in lines}  # type: ignore[attr-defined]


def test_mahjong_stats_by_hand(played: Evening) -> None:
    engine, chat_id = played.engine, played.chat_id
    chat = played.chat
    view = ask(engine, chat_id, insight.stats, Stats())
    assert (view.season, view.archived, view.undone) == (1, False, 1)
    assert view.mahjong_hands == 5
    got = by_name(view.mahjong)
    assert got == {
        "老王": MahjongLine("老王", 5, 2, 1, 0, Fraction(36), Fraction(27), Fraction(52)),
        "Li": MahjongLine("Li", 5, 2, 0, 1, Fraction(5), Fraction(7, 2), Fraction(-14)),
        "Zhang": MahjongLine("Zhang", 5, 1, 0, 1, Fraction(9), Fraction(9), Fraction(-15)),
        "Chen": MahjongLine("Chen", 5, 0, 0, 1, None, None, Fraction(-23)),
    }
    assert [line.name for line in view.mahjong] == ["老王", "Li", "Zhang", "Chen"]
    assert {n: line.net for n, line in got.items()} == chat.balances()


def test_head_to_head_nets_every_pair(played: Evening) -> None:
    engine, chat_id = played.engine, played.chat_id
    chat = played.chat
    view = ask(engine, chat_id, insight.stats, Stats())
    assert view.head_to_head == (
        HeadToHead("Zhang", "老王", Fraction(21), Fraction(0)),
        HeadToHead("Li", "老王", Fraction(21), Fraction(1)),
        HeadToHead("Chen", "老王", Fraction(12), Fraction(1)),
        HeadToHead("Chen", "Zhang", Fraction(9), Fraction(0)),
        HeadToHead("Chen", "Li", Fraction(3), Fraction(0)),
        HeadToHead("Zhang", "Li", Fraction(3), Fraction(0)),
    )
    flows: dict[str, Fraction] = {}
    for p in view.head_to_head:
        flows[p.payer] = flows.get(p.payer, Fraction(0)) - p.net
        flows[p.payee] = flows.get(p.payee, Fraction(0)) + p.net
    assert flows == chat.balances()


def test_510k_stats(played: Evening) -> None:
    engine, chat_id = played.engine, played.chat_id
    chat = played.chat
    view = ask(engine, chat_id, insight.stats, Stats())
    assert view.k510_hands == 3
    got = by_name(view.k510)
    balances = chat.balances("510k")
    assert got == {
        "老王": K510Line("老王", 3, 2, 3, 3, balances["老王"]),
        "Li": K510Line("Li", 3, 1, 0, 3, balances["Li"]),
        "Zhang": K510Line("Zhang", 3, 0, 2, 3, balances["Zhang"]),
        "Chen": K510Line("Chen", 2, 0, 0, 2, balances["Chen"]),
    }
    assert balances["Chen"] == Fraction(15, 2) - 40


def test_marathon_hands_count_and_the_finish_is_one_result(engine: Engine, chat_id: int) -> None:
    chat = Chat(engine, chat_id)
    chat.seat("510k3 marathon", "A", "B", "C")
    for _ in range(8):  # A reaches 560 on the eighth hand
        chat.say("A", "/r A=50 B=30 C=20 out A B")
    view = ask(engine, chat_id, insight.stats, Stats())
    assert by_name(view.k510)["A"] == K510Line("A", 8, 8, 1, 1, Fraction(616))
    assert by_name(view.k510)["C"] == K510Line("C", 8, 0, 0, 1, Fraction(0))
    series = ask(engine, chat_id, insight.chart_data, Chart()).series[0]
    assert by_name(series.lines)["A"].values == (0,) * 8 + (616,)


def test_export_sums_equal_the_standings(played: Evening) -> None:
    engine, chat_id = played.engine, played.chat_id
    chat = played.chat
    data = ask(engine, chat_id, insight.export_rows, Export())
    assert data.filename == "jifen-season-1.csv"
    live: dict[tuple[str, str], Fraction] = {}
    for (
        _at,
        _hand,
        _game,
        unit,
        payer,
        payee,
        amount,
        _reason,
        _by,
        undone,
        _tiles,
        _t,
        _edited,
    ) in data.rows:
        if undone:
            continue
        for name, sign in ((payer, -1), (payee, 1)):
            if name is not None:
                live[(unit, name)] = live.get((unit, name), Fraction(0)) + sign * Fraction(amount)
    for unit in ("mahjong", "510k"):
        got = {name: amount for (u, name), amount in live.items() if u == unit}
        assert got == chat.balances(unit)
    assert live == live_totals(data.rows)
    undone = [row for row in data.rows if row[9]]
    assert {hand_no for _at, hand_no, *_ in undone} == {5}
    assert {(row[5], row[6]) for row in undone} == {("Chen", "3")}


def test_export_csv_is_utf8_with_bom_and_exact(played: Evening) -> None:
    engine, chat_id = played.engine, played.chat_id
    chat = played.chat
    data = ask(engine, chat_id, insight.export_rows, Export())
    raw = export_csv.export_csv(data, "en")
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert list(rows[0]) == ["time (UTC)", *export_csv.HEADER[1:]]
    assert len(rows) == len(list(data.rows)) == data.count
    assert {r["undone"] for r in rows if r["hand"] == "5"} == {"yes"}
    assert "22.5" in {r["amount"] for r in rows}
    assert rows[0]["payee"] == "老王" and rows[0]["reason"] == "win"
    totals: dict[str, Fraction] = {}
    for r in rows:
        if r["undone"] == "yes" or r["game"] != "mahjong":
            continue
        totals[r["payer"]] = totals.get(r["payer"], Fraction(0)) - Fraction(r["amount"])
        totals[r["payee"]] = totals.get(r["payee"], Fraction(0)) + Fraction(r["amount"])
    assert totals == chat.balances()
    table_side = [r for r in rows if r["game"].startswith("510k")]
    assert all(export_csv.TABLE in (r["payer"], r["payee"]) for r in table_side)


# /export's file as written before the rows streamed straight from the driver: the rows of the
# season's hands and transfers, names from the chat's players, each row's cells made one by one
# (and the table column of issue 37).
OLD_EXPORT = (
    "SELECT e.created_at, e.hand_no, e.game, t.unit, e.recorded_by_name, e.undone_by,"
    " t.payer_id, t.payee_id, t.amount, t.reason, e.tiles, e.table_id FROM event e"
    " JOIN transfer t ON t.event_id = e.id"
    " WHERE e.season_id = :s AND e.kind IN ('hand', 'pay') ORDER BY e.seq, t.id"
)


def old_export_csv(engine: Engine, chat_id: int, lang: str) -> bytes:
    with reading(engine) as db:
        season = season_for(db, chat_id, None)
        names = {p.id: p.name for p in players_of_chat(db, chat_id)}
        zone = chat_zone(db, chat_id)
        rows = db.execute(text(OLD_EXPORT), {"s": season.id}).all()
    buf = io.StringIO()
    writer = csv.writer(buf)
    guard = export_csv._cell
    tables: dict[int, int] = {}  # the tables numbered in the order of their first rows
    for at, hand_no, game, unit, by, undone_by, payer, payee, amount, reason, tiles, t in rows:
        writer.writerow(
            (
                local(utc(at), zone).strftime("%Y-%m-%d %H:%M:%S"),
                tables.setdefault(t, len(tables) + 1),
                "" if hand_no is None else hand_no,
                guard(unit if game == "free" else game),
                guard(export_csv.TABLE if payer is None else names.get(payer, "?")),
                guard(export_csv.TABLE if payee is None else names.get(payee, "?")),
                export_csv.decimal_text(Fraction(amount)),
                reason,
                guard(by),
                "no" if undone_by is None else "yes",
                tiles if reason in ("win", "sealed") else "",  # written since revision 0018
                "no",  # corrected by /edit: none here
            )
        )
    return export_csv._header(lang, zone).encode("utf-8-sig") + buf.getvalue().encode()


def test_the_streamed_file_is_the_file_as_it_was(engine: Engine, chat_id: int) -> None:
    """Every kind of record (mahjong hands and a kong, 510K with four and three, a free round,
    transfers, an undone hand and an undone round), names a spreadsheet could misread (quotes, a
    comma, a formula), Chinese text and a time zone: the file is byte for byte the old one."""
    chat = evening(engine, chat_id)
    chat.say("老王", "/set tz Asia/Shanghai")
    chat.seat("free 斗地主", "老王", 'Bo"B"', "Ann")
    chat.say("=SUM(A1)", '/s 老王+30 Bo"B"-10.25 Ann')
    chat.say("@admin", "/pay Ann 老王 2.5")
    chat.say('Zoë, "the boss"', '/s 老王+1 Bo"B"-1 Ann')
    chat.say("Li", "/undo")
    data = ask(engine, chat_id, insight.export_rows, Export())
    assert data.tz == "Asia/Shanghai" and data.count == len(list(data.rows)) > 30
    rows = list(csv.reader(io.StringIO(export_csv.export_csv(data, "en").decode("utf-8-sig"))))
    assert {r[3] for r in rows[1:]} == {"mahjong", "510k", "510k3", "free:斗地主"}
    assert {r[9] for r in rows[1:]} == {"yes", "no"}
    assert 'Bo"B"' in {r[4] for r in rows} and 'Zoë, "the boss"' in {r[8] for r in rows}
    assert {"'=SUM(A1)", "'@admin"} <= {r[8] for r in rows}
    assert export_csv.export_csv(data, "en") == old_export_csv(engine, chat_id, "en")
    zh = list(csv.reader(io.StringIO(export_csv.export_csv(data, "zh").decode("utf-8-sig"))))
    assert len(zh) == len(rows)
    # Chinese: the file's words translated, names and amounts as they are
    assert {r[3] for r in zh[1:]} == {"麻将", "510K", "510K 三人", "斗地主"}
    assert {r[9] for r in zh[1:]} == {"是", "否"}
    assert {r[7] for r in zh[1:]} <= {"胡牌", "杠", "封胡", "转账", "得分"}
    assert "（桌面）" in {r[4] for r in zh} | {r[5] for r in zh}
    words = {"mahjong", "win", "kong", "sealed", "pay", "score", "(table)", "yes", "no"}
    assert not words & {cell for r in zh[1:] for cell in r}
    assert [r[6] for r in zh[1:]] == [r[6] for r in rows[1:]]  # the amounts
    assert [r[8] for r in zh[1:]] == [r[8] for r in rows[1:]]  # the names


def test_archived_season_keeps_its_insight(engine: Engine, chat_id: int) -> None:
    chat = evening(engine, chat_id)
    before = ask(engine, chat_id, insight.stats, Stats())
    chat.say("老王", "/reset confirm")
    chat.seat("mahjong", *P4)
    chat.say("Li", "/hu Li zimo")
    archived = ask(engine, chat_id, insight.stats, Stats(season=1))
    assert archived.archived and archived.mahjong == before.mahjong
    assert archived.k510 == before.k510
    current = ask(engine, chat_id, insight.stats, Stats())
    assert current.season == 2 and current.mahjong_hands == 1 and current.k510_hands == 0
    chart = ask(engine, chat_id, insight.chart_data, Chart(season=1))
    assert chart.archived and chart.season == 1 and chart.hands == 8
    export = ask(engine, chat_id, insight.export_rows, Export(season=1))
    assert export.filename == "jifen-season-1.csv" and export.archived
    assert live_totals(export.rows)[("mahjong", "老王")] == 52
    with pytest.raises(ServiceError):
        ask(engine, chat_id, insight.export_rows, Export(season=7))


def test_chart_data_follows_the_balances(played: Evening) -> None:
    engine, chat_id = played.engine, played.chat_id
    chat = played.chat
    data = ask(engine, chat_id, insight.chart_data, Chart())
    assert [s.unit for s in data.series] == ["mahjong", "510k"]
    mahjong, k510 = data.series
    assert mahjong.at == (0, 1, 2, 3, 4, 5)  # #5 was undone: #6 is the fifth live hand
    assert by_name(mahjong.lines)["老王"].values == (0, 36, 35, 53, 53, 52)
    assert by_name(mahjong.lines)["Chen"].values == (0, -12, -13, -13, -24, -23)
    for series, unit in ((mahjong, "mahjong"), (k510, "510k")):
        assert all(len(line.values) == len(series.at) for line in series.lines)
        finals = {line.name: line.values[-1] for line in series.lines}
        assert finals == chat.balances(unit)
    assert k510.at == (0, 1, 2, 3)  # 510k #1 #2, then 510k3 #1: one series
    assert by_name(k510.lines)["Chen"].values[-1] == by_name(k510.lines)["Chen"].values[-2]


def test_an_empty_season(engine: Engine, chat_id: int) -> None:
    chat = Chat(engine, chat_id)
    chat.seat("mahjong", *P4)
    assert ask(engine, chat_id, insight.stats, Stats()).empty
    assert ask(engine, chat_id, insight.chart_data, Chart()).series == ()
    data = ask(engine, chat_id, insight.export_rows, Export())
    assert list(data.rows) == [] and data.count == 0
    assert export_csv.export_csv(data, "en").count(b"\n") == 1
    with pytest.raises(ServiceError):  # nothing at all recorded in another chat
        ask(engine, chat_id - 700_000, insight.stats, Stats())


@contextmanager
def counting(engine: Engine) -> Iterator[list[str]]:
    statements: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", count)


def test_a_season_loads_in_a_few_queries_however_long(engine: Engine, chat_id: int) -> None:
    """/stats, /chart and /export read a few statements, as many after 40 hands as after 4."""
    chat = Chat(engine, chat_id)
    chat.seat("mahjong", *P4)
    use_cases: list[tuple[Callable[[Any, int, Any], Any], Any]] = [
        (insight.stats, Stats()),
        (insight.chart_data, Chart()),
        (insight.export_rows, Export()),
    ]
    counts: list[list[int]] = []
    for hands in (4, 36):
        for n in range(hands):
            chat.say(P4[n % 4], f"/hu {n % 4 + 1} zimo")
        counts.append([])
        for use_case, req in use_cases:
            with counting(engine) as statements:
                ask(engine, chat_id, use_case, req)
            counts[-1].append(len(statements))
    assert counts[0] == counts[1], counts
    assert max(counts[1]) <= 8, counts


def test_rendering_in_both_languages(played: Evening) -> None:
    engine, chat_id = played.engine, played.chat_id
    view: StatsView = ask(engine, chat_id, insight.stats, Stats())
    chart: ChartData = ask(engine, chat_id, insight.chart_data, Chart())
    export: ExportData = ask(engine, chat_id, insight.export_rows, Export())
    for lang in ("en", "zh"):
        r = Renderer(lang)
        text = render_insight.stats_text(r._, view)
        assert "老王 +52" in text
        assert "Zhang → 老王 21" in text and "Li → 老王 20 (21 − 1)" in text
        assert render_insight.chart_caption(r._, chart)
        assert render_insight.export_caption(r._, export)
    en = render_insight.stats_text(Renderer("en")._, view)
    assert "hands 5 · wins 2 (self-drawn 1) · deal-ins 0" in en
    assert "biggest win +36 · average win +27" in en
    assert "hands 3 · first out 2 · wins 3 of 3" in en
    assert "1 undone hand(s) left out." in en


def test_names_are_escaped(engine: Engine, chat_id: int) -> None:
    chat = Chat(engine, chat_id)
    chat.seat("mahjong", "<b>", "A&B", "C", "D")
    chat.say("C", "/hu 1 pao 2")
    text = render_insight.stats_text(Renderer("en")._, ask(engine, chat_id, insight.stats, Stats()))
    assert "&lt;b&gt; +2" in text and "A&amp;B -2" in text and "A&B" not in text


def test_a_reseated_table_counts_who_really_sat(engine: Engine, chat_id: int) -> None:
    chat = Chat(engine, chat_id)
    chat.seat("mahjong", *P4)
    chat.say("Li", "/hu Li pao Chen")
    chat.say("Li", "/hu Zhang zimo")
    chat.say("Li", "/seats 小李 老王 Li Zhang")  # Chen leaves, the guest 小李 takes seat 1
    chat.say("Li", "/hu 小李 pao Li")
    got = by_name(ask(engine, chat_id, insight.stats, Stats()).mahjong)
    assert {n: (line.hands, line.wins, line.deal_ins) for n, line in got.items()} == {
        "老王": (3, 0, 0),
        "Li": (3, 1, 1),
        "Zhang": (3, 1, 0),
        "Chen": (2, 0, 1),
        "小李": (1, 1, 0),
    }
    assert {n: line.net for n, line in got.items()} == {
        n: a for n, a in chat.balances().items() if n in got
    }


def test_csv_amounts_are_exact_and_names_are_not_formulas() -> None:
    assert [export_csv.decimal_text(Fraction(n, d)) for n, d in ((45, 2), (18, 1), (1, 8))] == [
        "22.5",
        "18",
        "0.125",
    ]
    assert export_csv.decimal_text(Fraction(10, 3)) == "3.333333"  # no finite decimal: 6 places
    row: ExportRow = (
        "2025-01-02 03:04:05",
        7,
        "510k",
        "510k",
        None,
        "=HYPERLINK(1)",
        "15/2",
        "score",
        "@bob",
        0,
        "",
        41,  # the table's id: the file's table 1
        0,  # not corrected
    )
    data = ExportData(season=2, archived=True, rows=(row,), count=1, hands=1)
    text = export_csv.export_csv(data, "en").decode("utf-8-sig")
    assert (
        text.splitlines()[1]
        == "2025-01-02 03:04:05,1,7,510k,(table),'=HYPERLINK(1),7.5,score,'@bob,no,,no"
    )


def test_a_crowded_head_to_head_is_cut_short() -> None:
    pairs = tuple(HeadToHead(f"P{i}", "Q", Fraction(30 - i), Fraction(0)) for i in range(20))
    view = StatsView(1, False, 9, (), pairs, 0, (), 0)
    text = render_insight.stats_text(Renderer("en")._, view)
    assert "P14 → Q 16" in text and "P15" not in text
    assert text.endswith("… and 5 more pair(s).")


def test_games_are_in_the_standings_order() -> None:
    from scoring.games import Unit

    # /standings, /settle and /chart show sections in Unit order, free games by name
    units = ["free:poker", "510k", "free", "mahjong", "free:斗地主"]
    assert sorted(units, key=Unit.order) == ["mahjong", "510k", "free", "free:poker", "free:斗地主"]
