"""Beyond one group, end to end (the bot as a process, the Bot API emulator, updates shaped as
Telegram sends them): /me in a private chat shows a member's groups and nothing of a group they
do not play in; /me in a group is shown to its sender alone; /rating matches openskill
computed directly from the sittings' placements, also after an undo in an early sitting; the
night's card is a photo (/summary, and the button under /settle)."""

from __future__ import annotations

import base64
import io
import random
import re
import struct
from fractions import Fraction

import pytest
from openskill.models import PlackettLuce

from service import rating
from storage.db import make_engine
from storage.gateway import players
from storage.unit_of_work import reading
from tests.e2e.conftest import Bots, Group, button_data, buttons, private, user

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(240)]

WANG, LI, ZHANG, CHEN = (
    user("老王", 3001),
    user("小李", 3002),
    user("阿张", 3003),
    user("Chen", 3004),
)
STRANGERS = tuple(user(name, 3100 + i) for i, name in enumerate(("Ann", "Ben", "Cat", "Dan")))


def seat(group: Group, game: str, players: tuple[dict, ...]) -> None:
    group.text(players[0], f"/new {game}")
    for player in players:
        group.text(player, "/join")


def png_size(content: bytes) -> tuple[int, int]:
    assert content[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", content[16:24])
    return width, height


def test_me_shows_my_groups_only_and_only_in_private(bots: Bots) -> None:
    bots.start()
    mahjong, k510, strangers = (
        bots.group("Friday mahjong"),
        bots.group("510K club"),
        bots.group("Strangers' table"),
    )
    seat(mahjong, "mahjong", (WANG, LI, ZHANG, CHEN))
    mahjong.text(LI, "/hu 老王 zimo qys pph")  # 老王 +36
    mahjong.text(LI, "/hu 小李 pao 老王")  # 老王 -2
    seat(k510, "510k", (WANG, LI, ZHANG, CHEN))
    k510.text(WANG, "/r 老王=30 小李=20 阿张=40 Chen=10 out 老王 阿张")
    seat(strangers, "mahjong", STRANGERS)
    strangers.text(STRANGERS[0], "/hu Ann zimo qys pph")

    # In a group: shown to him alone (an ephemeral message), nothing in public.
    reply = mahjong.say(WANG, "/me")
    assert reply["receiver_user_id"] == WANG["id"], reply
    assert "this season +34" in reply["plain_text"] and "Strangers" not in reply["plain_text"]
    assert "Only you see this message." in reply["plain_text"]
    assert buttons(reply) == []

    # The deep link opens the private chat with /start me: the record of both groups.
    chat = private(bots, WANG)
    text = chat.text(WANG, "/start me")
    assert "Friday mahjong" in text and "510K club" in text, text
    assert "Strangers" not in text and "Ann" not in text, text
    assert "this season +34 · all time +34" in text, text  # mahjong: +36 - 2
    assert "2 hands · 1 wins (1 self-drawn) · 1 deal-ins · biggest +36" in text, text
    assert "小李" in text  # whom he plays with, head-to-head
    assert text == chat.text(WANG, "/me")

    # A member of no group: nothing of anyone.
    nobody = user("Nobody", 3999)
    assert "No group has a player linked to you" in private(bots, nobody).text(nobody, "/me")


# ---------------------------------------------------------------- the rating


def nets_of(reply: str, names: tuple[str, ...]) -> dict[str, Fraction]:
    """`Net this hand: 老王 +36 · 小李 -12 · …` as numbers."""
    line = next(line for line in reply.splitlines() if line.startswith("Net this hand:"))
    found = dict(re.findall(r"(\S+) ([+-]?\d+(?:\.\d+)?)", line.removeprefix("Net this hand:")))
    return {name: Fraction(found.get(name, "0")) for name in names}


def expected(sittings: list[dict[str, Fraction]], names: tuple[str, ...]) -> dict[str, float]:
    """openskill itself over the sittings: placed by net, equal nets share a place."""
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    for nets in sittings:
        order = sorted(names, key=lambda n: -nets[n])
        ranks = [1 + sum(nets[m] > nets[n] for m in names) for n in order]
        rated = model.rate([[ratings[n]] for n in order], ranks=ranks)
        for name, [r] in zip(order, rated, strict=True):
            ratings[name] = r
    return {name: r.ordinal() for name, r in ratings.items()}


def shown(text: str) -> dict[str, tuple[float, int]]:
    """/rating's lines: name → (ordinal, sittings)."""
    return {
        name: (float(value), int(n))
        for name, value, n in re.findall(r"^\d+\. (\S+) (-?\d+\.\d) · (\d+) sitting", text, re.M)
    }


def kept(bots: Bots, group: Group) -> dict[str, float]:
    """The exact ordinals /rating shows rounded (its last sitting's ratings, as the bot
    computes them from its database)."""
    engine = make_engine(f"sqlite:///{bots.database}")
    try:
        with reading(engine) as db:
            last = rating.sittings(db, group.chat_id)["mahjong"][-1]
            names = {p.id: p.name for p in players.players_of_chat(db, group.chat_id)}
    finally:
        engine.dispose()
    return {names[pid]: rating.ordinal(k) for pid, k in last.ratings.items()}


def test_rating_matches_openskill_and_follows_an_undo(bots: Bots) -> None:
    bots.start()
    group = bots.group("rated night")
    players = (WANG, LI, ZHANG, CHEN)
    names = tuple(p["first_name"] for p in players)
    bots.client.set_member(group.chat, WANG, "administrator")
    assert "rating is off" in group.text(LI, "/rating")
    assert "skill rating" in group.text(WANG, "/set rating on")
    seat(group, "mahjong", players)
    rng = random.Random(30)
    sittings: list[dict[str, Fraction]] = []
    hands: list[list[tuple[dict, dict[str, Fraction]]]] = []  # per sitting: (reply, nets)
    for sitting in range(4):
        if sitting:
            assert "New table" in group.text(WANG, "/new mahjong confirm")  # the next sitting
        played, command = [], ""
        for _ in range(3):
            last = command  # the same hand right after it would be asked about: draw anew
            while command.removesuffix(" pph") == last.removesuffix(" pph"):  # a near one too
                a, b = rng.sample(names, 2)
                command = rng.choice([f"/hu {a} zimo", f"/hu {a} pao {b}", f"/hu {a} pao {b} pph"])
            reply = group.say(LI, command)
            played.append((reply, nets_of(reply["plain_text"], names)))
        hands.append(played)
        sittings.append({n: sum((nets[n] for _, nets in played), Fraction(0)) for n in names})

    want = expected(sittings, names)
    text = group.text(ZHANG, "/rating")
    assert {n: v for n, (v, _) in shown(text).items()} == {
        n: float(f"{v:.1f}") for n, v in want.items()
    }, text
    assert all(s == 4 for _, s in shown(text).values()), text
    assert kept(bots, group) == pytest.approx(want, abs=1e-9)

    # An admin undoes a hand of the first sitting (its Undo button): every later rating moves.
    reply, nets = hands[0][1]
    group.press_ok(WANG, reply, button_data(reply, "v1:undo:"))
    sittings[0] = {n: sittings[0][n] - nets[n] for n in names}
    again = expected(sittings, names)
    assert again != want
    assert kept(bots, group) == pytest.approx(again, abs=1e-9)
    text = group.text(ZHANG, "/rating")
    assert {n: v for n, (v, _) in shown(text).items()} == {
        n: float(f"{v:.1f}") for n, v in again.items()
    }, text


# ---------------------------------------------------------------- the night's card


def test_the_nights_card_is_a_photo_by_summary_and_under_settle(bots: Bots) -> None:
    bots.start()
    group = bots.group("card night")
    seat(group, "mahjong", (WANG, LI, ZHANG, CHEN))
    group.text(LI, "/hu 老王 zimo qys pph")
    group.text(LI, "/hu 阿张 pao Chen")
    photo = group.say(LI, "/summary")
    assert photo["media_kind"] == "photo", photo
    content = base64.b64decode(photo["content_b64"])
    width, height = png_size(content)
    assert width == 1080 and height > width, (width, height)
    assert "The night's card" in photo["plain_text"] and "2 hand(s)" in photo["plain_text"]

    settle = group.say(ZHANG, "/settle")
    card = button_data(settle, "v1:card")
    _, sent = group.press_ok(ZHANG, settle, card)
    assert sent["media_kind"] == "photo"
    assert png_size(base64.b64decode(sent["content_b64"])) == (width, height)
    assert io.BytesIO(content).getbuffer().nbytes > 10_000
