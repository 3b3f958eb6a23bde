"""Issue 26, people not seats: a member claims a guest seated by name (/iam), a seat change
keeps the dealer with the person, /sub and /leave change one seat, a 510K marathon of four
keeps a replaced partner's progress with the team and shares its score by hands played, a
name one letter from a known player is asked about, /rename and /merge keep the ledger whole.
Through the service with typed commands (`helpers.Chat`), on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from service.errors import ServiceError
from service.replies import (
    Claimed,
    HistoryView,
    Merged,
    NameAsk,
    RatingView,
    Recorded,
    Renamed,
    SettleView,
    StatsView,
    TableView,
    Undone,
)
from tests.integration.helpers import Chat

_chats = itertools.count(-9_260_000_000_000)


def chat(engine: Engine, *admins: str) -> Chat:
    return Chat(engine, next(_chats), admins=admins)


def refused(c: Chat, who: str, command: str) -> ServiceError:
    with pytest.raises(ServiceError) as err:
        c.say(who, command)
    return err.value


def table(reply: object) -> TableView:
    assert isinstance(reply, TableView), reply
    return reply


def nets(reply: object) -> dict[str, Fraction | int]:
    assert isinstance(reply, Recorded), reply
    return dict(reply.view.net)


# --- 2. friends seated by name can be 我 ------------------------------------------------


def test_a_member_claims_the_guest_seated_under_their_name(engine: Engine) -> None:
    c = chat(engine)
    c.say("老王", "/new mahjong")
    seated = table(c.say("老王", "/seats 老王 小李 阿张 老陈"))
    assert seated.new == ("小李", "阿张", "老陈")  # every new guest announced
    assert [claim.name for claim in seated.claims] == ["小李", "阿张", "老陈"]
    # Before the claim, 我 is nobody at the table: the reply says 我, as typed, and how to fix it.
    err = refused(c, "Li", "/hu 我 自摸")
    assert err.params["ref"] == "我" and err.usage == "/iam 小李"
    # /join 小李 points to /iam instead of a dead end.
    assert refused(c, "Li", "/join 小李").usage == "/iam 小李"
    claimed = c.say("Li", "/iam 小李")
    assert isinstance(claimed, Claimed) and claimed.name == "小李"
    assert nets(c.say("Li", "/hu 我 自摸"))["小李"] == 9
    assert nets(c.say("Li", "/hu me zimo"))["小李"] == 9
    # Claimed once; another member is refused; the claimer asking again is told so.
    assert "someone else" in refused(c, "Zhou", "/iam 小李").msgid
    assert c.say("Li", "/iam 小李").msgid == "You are {name} already."  # type: ignore[union-attr]
    assert "No player named" in refused(c, "Zhou", "/iam 小赵").msgid


def test_me_before_the_claim_points_to_the_guest_of_the_sender_s_name(engine: Engine) -> None:
    c = chat(engine)
    c.say("老王", "/new mahjong")
    c.say("老王", "/seats 老王 小李 阿张 老陈")
    assert refused(c, "阿张", "/hu 我 自摸").usage == "/iam 阿张"  # not the first guest, 小李
    assert refused(c, "Zhou", "/hu me zimo").usage == "/iam 小李"  # nobody's name: the first


def test_the_issue_evening_a_friend_named_like_the_guest(engine: Engine) -> None:
    """小李's Telegram name is 小李 too: `/hu 我 自摸` before the claim makes no second 小李."""
    c = chat(engine)
    c.say("老王", "/new mahjong")
    c.say("老王", "/seats 老王 小李 阿张 老陈")
    assert refused(c, "小李", "/hu 我 自摸").params["ref"] == "我"
    assert isinstance(c.say("小李", "/iam 小李"), Claimed)
    assert nets(c.say("小李", "/hu 我 自摸"))["小李"] == 9
    with c.service.engine.connect() as conn:
        found = conn.execute(
            text("SELECT count(*) FROM player WHERE chat_id = :c AND name = '小李'"),
            {"c": c.chat_id},
        ).scalar_one()
    assert found == 1


# --- 3. a seat change is not a hand ------------------------------------------------------


def test_the_dealer_stays_the_same_person_through_seat_changes(engine: Engine) -> None:
    c = chat(engine)
    c.seat("mahjong", "老王", "小李", "阿张", "老陈")
    c.say("老王", "/hu 小李 自摸")  # the dealer 老王 lost: 小李 deals
    c.say("老王", "/hu 阿张 自摸")  # 小李 lost: 阿张 deals
    # A substitute for 老陈: 阿张 still deals (not seat 1 again).
    assert table(c.say("老王", "/seats 老王 小李 阿张 小周")).dealer == "阿张"
    # The dealer moves seats: still the dealer.
    assert table(c.say("老王", "/seats 阿张 小李 老王 小周")).dealer == "阿张"
    # The dealer leaves: whoever takes the seat deals.
    subbed = table(c.say("老王", "/sub 阿张 老陈"))
    assert subbed.dealer == "老陈" and subbed.replaced == "阿张" and subbed.new == ()
    assert nets(c.say("老王", "/hu 老陈 自摸"))["老陈"] == 9  # the dealer won: deals again
    assert table(c.say("老王", "/players")).dealer == "老陈"


def test_sub_leave_and_join_change_one_seat(engine: Engine) -> None:
    c = chat(engine)
    c.seat("mahjong", "Ann", "Bob", "Cat", "Dan")
    subbed = table(c.say("Ann", "/sub Dan Eve"))
    assert subbed.seats == ("Ann", "Bob", "Cat", "Eve") and subbed.new == ("Eve",)
    assert "already sits" in refused(c, "Ann", "/sub Eve Bob").msgid
    assert "do not sit" in refused(c, "Bob", "/leave").msgid  # the guest Bob is not him yet
    c.say("Bob", "/iam Bob")
    left = table(c.say("Bob", "/leave"))
    assert left.event == "left" and left.seats == ("Ann", None, "Cat", "Eve")
    err = refused(c, "Ann", "/hu Ann zimo")  # a free seat: nothing is recorded
    assert "Seat {seat} is free" in err.msgid and err.params["seat"] == 2
    assert "do not sit" in refused(c, "Bob", "/leave").msgid  # not any more
    assert table(c.say("Fay", "/join")).seats == ("Ann", "Fay", "Cat", "Eve")
    c.say("Fay", "/leave")
    assert table(c.say("Ann", "/sub 2 Gus")).seats == ("Ann", "Gus", "Cat", "Eve")
    assert nets(c.say("Ann", "/hu Gus zimo")) == {"Ann": -3, "Gus": 9, "Cat": -3, "Eve": -3}


def test_a_substituted_players_pending_kongs_stay_theirs(engine: Engine) -> None:
    c = chat(engine)
    c.seat("mahjong", "Ann", "Bob", "Cat", "Dan")
    c.say("Ann", "/gang Dan an")  # Dan's concealed kong: 1 from each other player
    c.say("Ann", "/gang Bob ming Dan")  # Dan pays Bob's exposed kong
    c.say("Dan", "/iam Dan")
    assert "kong" in refused(c, "Dan", "/leave").msgid  # leaving is refused; /sub is not
    c.say("Ann", "/sub Dan Eve")
    hand = nets(c.say("Ann", "/hu Ann zimo"))
    # Ann's self-draw: 3 from each of Bob, Cat, Eve; the kongs are Dan's, paid when the hand ends.
    assert hand == {"Ann": 9 - 1, "Bob": -3 - 1 + 1, "Cat": -3 - 1, "Eve": -3, "Dan": 3 - 1}
    assert c.balances() == {"Ann": 8, "Bob": -3, "Cat": -4, "Eve": -3, "Dan": 2}
    # A kong of Dan's is never Eve's: her 杠上花 needs a kong of her own.
    c.say("Ann", "/sub Eve Dan")
    c.say("Ann", "/gang Dan an")
    c.say("Ann", "/sub Dan Eve")
    assert "Which kong was it?" in refused(c, "Ann", "/hu Eve gangkai").msgid
    hand = nets(c.say("Ann", "/hu Eve gangkai an"))
    # 杠上花 on her concealed kong: 3 × 2 + 1 from each; Dan's kong: 1 from each but his seat.
    assert hand == {"Ann": -7 - 1, "Bob": -7 - 1, "Cat": -7 - 1, "Eve": 21, "Dan": 3}


# --- 4. a 510K marathon keeps a replaced partner's points -----------------------------


def test_a_marathon_team_keeps_its_progress_and_shares_its_score(engine: Engine) -> None:
    c = chat(engine, "阿明")
    c.say("阿明", "/new 510k marathon")
    c.say("阿明", "/seats 阿明 小红 大刘 老赵")
    first = c.say("阿明", "/r 阿明=40 小红=20 大刘=30 老赵=10 出 阿明 大刘")
    assert isinstance(first, Recorded) and first.progress is not None
    assert dict(first.progress.sides)["小红+老赵"] == -10  # 小红 20 − 20 held, 老赵 10 − 20
    c.say("阿明", "/sub 老赵 小孙")
    second = c.say("阿明", "/r 阿明=60 小红=0 大刘=40 小孙=0 出 阿明 大刘")
    assert isinstance(second, Recorded) and second.progress is not None
    assert dict(second.progress.sides)["小红+小孙"] == -10 - 40  # the team's −10 kept
    assert second.progress.took_over == (("小孙", "老赵"),)
    for _ in range(2):
        c.say("阿明", "/r 阿明=60 小红=0 大刘=40 小孙=0 出 阿明 大刘")
    done = c.say("阿明", "/r 阿明=60 小红=0 大刘=40 小孙=0 出 阿明 大刘")
    assert isinstance(done, Recorded) and done.progress is None
    # 5 hands: 小红 played 5 for her team, 老赵 1, 小孙 4. The team's −170 (its card points,
    # not doubled) is shared by hands: 10 player-hands, 小红 5/10, 老赵 1/10, 小孙 4/10.
    team = Fraction(-10 - 40 * 4)
    shares = {"小红": team * 5 / 10, "老赵": team * 1 / 10, "小孙": team * 4 / 10}
    got = nets(done)
    assert {name: got[name] for name in shares} == shares == {"小红": -85, "老赵": -17, "小孙": -68}
    winners = Fraction(90 + 120 * 4) * Fraction(11, 10) / 2  # each partner half, with the 10 %
    assert got["阿明"] == got["大刘"] == winners
    balances = c.balances("510k")
    assert balances == {**shares, "阿明": winners, "大刘": winners}
    # Settle-up squares it as zerosum would have: each team carries half of the hand's total,
    # shared among its people as its score is (the one who left carries his share).
    total = sum(balances.values(), Fraction(0))
    weight = {"阿明": Fraction(1, 4), "大刘": Fraction(1, 4), "小红": Fraction(1, 4)}
    weight |= {"老赵": Fraction(1, 20), "小孙": Fraction(4, 20)}
    settle = c.say("阿明", "/settle")
    assert isinstance(settle, SettleView)
    paid: dict[str, Fraction] = {}
    for payer, payee, amount in dict(settle.sections)["510k"]:
        paid[payer] = paid.get(payer, Fraction(0)) - amount
        paid[payee] = paid.get(payee, Fraction(0)) + amount
    assert paid == {name: value - total * weight[name] for name, value in balances.items()}
    # Undone, everything is as before the last hand, and pars with it.
    assert isinstance(c.say("阿明", "/undo"), Undone)
    assert c.balances("510k") == dict.fromkeys(("阿明", "小红", "大刘", "老赵", "小孙"), 0)
    assert pars(engine, c.chat_id) == {}


def pars(engine: Engine, chat_id: int) -> dict[int, Fraction]:
    """The non-zero pars of the chat's balance rows, by player id."""
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT b.player_id, b.par FROM balance b JOIN season s ON s.id = b.season_id"
                " WHERE s.chat_id = :chat"
            ),
            {"chat": chat_id},
        )
        return {pid: Fraction(par) for pid, par in rows if Fraction(par)}


def test_a_three_player_marathon_seat_keeps_its_progress(engine: Engine) -> None:
    """Issue 37: who takes a seat in a marathon of three plays on with its totals."""
    c = chat(engine)
    c.say("Ann", "/new 510k3 marathon")
    c.say("Ann", "/seats Ann Bob Cat")
    c.say("Ann", "/r Ann=40 Bob=30 Cat=30 out Ann Bob")
    c.say("Ann", "/sub Cat Dan")
    after = c.say("Ann", "/r Ann=40 Bob=30 Dan=30 out Ann Bob")
    assert isinstance(after, Recorded) and after.progress is not None
    assert after.progress.newcomers == () and after.progress.took_over == (("Dan", "Cat"),)
    assert dict(after.progress.sides)["Dan"] == 2 * (30 - 20)  # Cat's hand and his own


# --- 5. a typo does not create a player silently -----------------------------------------


def test_a_name_one_letter_from_a_known_player_is_asked_about(engine: Engine) -> None:
    c = chat(engine)
    c.seat("mahjong", "Erin", "Bob", "Carol", "Dave")
    c.say("Erin", "/hu Dave zimo")
    ask = c.say("Erin", "/seats Erin Bob Carol Daev")
    assert isinstance(ask, NameAsk) and (ask.typed, ask.guess) == ("Daev", "Dave")
    assert table(c.say("Erin", "/players")).seats == ("Erin", "Bob", "Carol", "Dave")
    assert table(c.press("Erin", ask.known)).seats == ("Erin", "Bob", "Carol", "Dave")
    ask = c.say("Erin", "/seats Erin Bob Carol Daev")
    assert isinstance(ask, NameAsk)
    seated = table(c.press("Erin", ask.new))
    assert seated.seats == ("Erin", "Bob", "Carol", "Daev") and seated.new == ("Daev",)
    # Known now: no question again. /sub and /join ask too.
    assert table(c.say("Erin", "/seats Erin Bob Carol Daev")).new == ()
    assert table(c.say("Erin", "/sub Daev Carl")).new == ("Carl",)  # Carol sits: not her
    c.say("Erin", "/sub Carl Daev")
    ask = c.say("Erin", "/sub Daev Dav")
    assert isinstance(ask, NameAsk) and ask.guess == "Dave"
    assert table(c.press("Erin", ask.known)).seats == ("Erin", "Bob", "Carol", "Dave")
    c.say("Bob", "/iam Bob")
    c.say("Bob", "/leave")
    ask = c.say("Erin", "/join Rob")
    assert isinstance(ask, NameAsk) and ask.guess == "Bob"
    assert table(c.press("Erin", ask.new)).new == ("Rob",)


def test_rename_keeps_the_ledger_on_the_player(engine: Engine) -> None:
    c = chat(engine, "Erin")
    c.seat("mahjong", "Erin", "Bob", "Carol", "Daev")
    c.say("Erin", "/hu Daev zimo")
    renamed = c.say("Erin", "/rename Daev Dave")
    assert isinstance(renamed, Renamed) and (renamed.old, renamed.new) == ("Daev", "Dave")
    assert c.balances() == {"Dave": 9, "Erin": -3, "Bob": -3, "Carol": -3}
    assert nets(c.say("Erin", "/hu Dave zimo"))["Dave"] == 9
    # Not an admin and not the player: refused; the player themself may.
    assert "Only group admins" in refused(c, "Bob", "/rename Carol Caroline").msgid
    c.say("Bob", "/iam Bob")
    c.say("Bob", "/rename Bob Bobby")
    c.say("Bob", "/standings")  # the Telegram name does not come back
    assert "Bobby" in c.balances()
    assert "another player" in refused(c, "Erin", "/rename Carol Dave").msgid
    undone = c.say("Erin", "/undo")
    assert isinstance(undone, Undone) and dict(undone.view.net)["Dave"] == 9  # the hand's net


def test_merge_moves_every_record_and_undo_still_works(engine: Engine) -> None:
    c = chat(engine, "Erin")
    c.seat("mahjong", "Erin", "Bob", "Carol", "Dave")
    c.say("Erin", "/hu Dave zimo")
    ask = c.say("Erin", "/seats Erin Bob Carol Daev")
    assert isinstance(ask, NameAsk)
    c.press("Erin", ask.new)  # the typo made a new player after all
    c.say("Erin", "/hu Daev zimo")
    c.say("Erin", "/pay Daev Bob 2")
    assert "admins" in refused(c, "Bob", "/merge Daev Dave").msgid
    assert "same record" in refused(c, "Erin", "/merge Daev Bob").msgid
    c.say("Erin", "/seats Erin Bob Carol Dave")
    assert "same record" in refused(c, "Erin", "/merge Daev Erin").msgid
    merged = c.say("Erin", "/merge Daev Dave")
    assert isinstance(merged, Merged) and merged.records == 2
    assert c.balances() == {"Dave": 9 + 9 - 2, "Bob": -3 - 3 + 2, "Carol": -6, "Erin": -6}
    history = c.say("Erin", "/history")
    assert isinstance(history, HistoryView)
    assert all("Daev" not in hand.names for hand in history.hands)
    undone = c.say("Erin", "/undo")  # the transfer, now Dave's
    assert isinstance(undone, Undone)
    assert {k: v for k, v in undone.view.net if v} == {"Dave": -2, "Bob": 2}
    undone = c.say("Erin", "/undo 2")
    assert isinstance(undone, Undone)
    assert c.balances() == {"Dave": 9, "Bob": -3, "Carol": -3, "Erin": -3}


def test_merge_rebuilds_the_ratings_and_stats(engine: Engine) -> None:
    c = chat(engine, "Erin")
    c.say("Erin", "/set rating on")
    c.seat("mahjong", "Erin", "Bob", "Carol", "Dave")
    c.say("Erin", "/hu Dave zimo")
    c.say("Erin", "/sub Dave Zed")
    c.say("Erin", "/hu Zed zimo")
    c.say("Erin", "/merge Zed Dave")
    view = c.say("Erin", "/rating")
    assert isinstance(view, RatingView)
    rated = {line.name: line.sittings for game in view.games for line in game.lines}
    assert "Zed" not in rated and rated["Dave"] == 1  # one sitting, now all his
    stats = c.say("Erin", "/stats")
    assert isinstance(stats, StatsView)
    lines = {line.name: line for line in stats.mahjong}
    assert "Zed" not in lines and lines["Dave"].hands == 2 and lines["Dave"].wins == 2
