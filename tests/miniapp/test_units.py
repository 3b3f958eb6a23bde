"""The Mini App's pieces alone: launch data, membership cache, forms, settings, chart thinning."""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass, replace
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.commands.parsing import ParseError, parse
from bot.miniapp import auth, forms
from bot.miniapp.api import update_id_of
from bot.miniapp.members import Members, Role
from bot.settings import InvalidSettings, Settings
from service.requests import PlayerRef, RefKind

TOKEN = "123:ABC"
NOW = 1_800_000_000
USER = json.dumps({"id": 7, "first_name": "小李", "language_code": "zh-hans"})


def signed(**fields: str) -> str:
    return auth.sign({"auth_date": str(NOW), "user": USER, **fields}, TOKEN)


def test_launch_data_signed_with_the_bot_token_is_accepted() -> None:
    launch = auth.verify(signed(start_param="tok"), TOKEN, max_age=3600, now=NOW + 10)
    assert launch == auth.Launch(7, "小李", None, "zh-hans", "tok", NOW)


@pytest.mark.parametrize(
    "data",
    [
        "",
        "hash=",
        signed().replace("auth_date=1800000000", "auth_date=1800000001"),  # tampered
        auth.sign({"auth_date": str(NOW), "user": USER}, "123:OTHER"),  # another bot's
        auth.sign({"auth_date": str(NOW)}, TOKEN),  # no user
        auth.sign({"auth_date": "soon", "user": USER}, TOKEN),
        "%%%",
    ],
)
def test_missing_forged_or_malformed_launch_data_is_refused(data: str) -> None:
    assert auth.verify(data, TOKEN, max_age=3600, now=NOW) is None


def test_launch_data_older_than_the_limit_or_from_the_future_is_refused() -> None:
    assert auth.verify(signed(), TOKEN, max_age=3600, now=NOW + 3600) is not None
    assert auth.verify(signed(), TOKEN, max_age=3600, now=NOW + 3601) is None
    assert auth.verify(signed(), TOKEN, max_age=3600, now=NOW - auth.FUTURE_SKEW - 1) is None


def test_the_hash_is_telegrams_hmac_of_the_sorted_lines() -> None:
    """The documented construction, written out once more."""
    import hashlib
    import hmac

    fields = {"user": USER, "auth_date": str(NOW), "query_id": "AAH"}
    lines = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    key = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    expected = hmac.new(key, lines.encode(), hashlib.sha256).hexdigest()
    assert f"hash={expected}" in auth.sign(fields, TOKEN)


class FakeBot:
    def __init__(self, status: str) -> None:
        self.status, self.calls = status, 0

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        self.calls += 1
        return type("Member", (), {"status": self.status})()


async def test_membership_is_asked_once_a_minute() -> None:
    now = [0.0]
    members, bot = Members(clock=lambda: now[0]), FakeBot("member")
    assert await members.role(bot, -5, 7) is Role.MEMBER  # type: ignore[arg-type]
    now[0] = 59
    assert await members.role(bot, -5, 7) is Role.MEMBER  # type: ignore[arg-type]
    assert bot.calls == 1
    bot.status, now[0] = "left", 61
    assert await members.role(bot, -5, 7) is Role.NONE  # type: ignore[arg-type]
    assert await Members().role(FakeBot("creator"), -5, 7) is Role.ADMIN  # type: ignore[arg-type]
    assert await Members().role(FakeBot("kicked"), 7, 7) is Role.ADMIN  # type: ignore[arg-type]
    assert await Members().role(FakeBot("member"), 8, 7) is Role.NONE  # type: ignore[arg-type]


FORMS = [
    {"kind": "hu", "clauses": [{"winner": 1, "how": "zimo", "pattern": "pph", "qys": True}]},
    {
        "kind": "hu",
        "clauses": [
            {"winner": 2, "how": "dianpao", "from": 3},
            {"winner": 4, "how": "dianpao", "from": 3},
        ],
    },
    {
        "kind": "hu",
        "clauses": [{"winner": 2, "how": "gangkai", "chain": 2, "mq": True, "sealed": 1}],
    },
    {"kind": "gang", "player": 1, "type": "bu", "from": 4},
    {"kind": "liuju"},
    {
        "kind": "report",
        "entries": [
            {"player": 1, "table": 30, "held": 5},
            {"player": 2, "table": 20},
            {"player": 3, "table": 50},
        ],
        "out": [3, 1],
    },
]


@pytest.mark.parametrize("form", FORMS)
def test_a_form_is_the_command_a_player_would_type(form: dict[str, Any]) -> None:
    text, request = forms.request(form, ["Ann", "Bob", "Cat", "Dan"])
    assert request == parse(text)  # the text shown reads back as exactly the request
    assert "1" not in text.split() and ("Ann" in text or form["kind"] == "liuju" or "Dan" in text)


def test_names_the_parser_would_read_otherwise_keep_their_seat_numbers() -> None:
    form = {"kind": "gang", "player": 1, "type": "ming", "from": 2}
    assert forms.request(form, ["me", "Bob"])[0] == "/gang 1 ming Bob"
    assert forms.request(form, ["Li Wei", "Bob"])[0] == "/gang 1 ming Bob"
    assert forms.request(form, ["Cat", "cat"])[0] == "/gang 1 ming 2"


@pytest.mark.parametrize(
    "form",
    [
        None,
        {},
        {"kind": "hu"},
        {"kind": "hu", "clauses": [{"winner": 5, "how": "zimo"}]},
        {"kind": "hu", "clauses": [{"winner": "1 zimo; 2", "how": "zimo"}]},
        {"kind": "gang", "player": 1, "type": "an; /reset"},
        {"kind": "report", "entries": [{"player": 1, "table": 1.5}], "out": [1, 2]},
    ],
)
def test_a_form_no_tap_makes_is_a_form_error(form: Any) -> None:
    with pytest.raises(forms.FormError):
        forms.request(form, ["Ann", "Bob", "Cat", "Dan"])


def test_the_parser_refuses_what_it_refuses_typed() -> None:
    with pytest.raises(ParseError):
        forms.request(
            {"kind": "report", "entries": [{"player": 1, "table": 30}] * 3, "out": [1, 2]}
        )


def test_an_idempotency_key_claims_a_negative_update_id_per_chat() -> None:
    key = "0b6f8e4c-6a1d-4f4e-9d0c-3f1f0c2b9a11"
    assert update_id_of(key, -5) == update_id_of(key, -5) < 0
    assert update_id_of(key, -5) != update_id_of(key, -6)


def test_the_app_settings() -> None:
    s = Settings.given(app_name="table", webhook_url="https://bot.example.com/hook/x")
    assert (s.app_listen, s.app_port, s.app_max_age) == ("127.0.0.1", 8080, 86400.0)
    assert s.app_page == "https://bot.example.com/app/"
    assert Settings.given(app_url="https://x.example/app/").app_page == "https://x.example/app/"
    loaded = Settings.load(JIFEN_APP_PORT="9000", JIFEN_APP_MAX_AGE="60", JIFEN_APP_LISTEN="::1")
    assert (loaded.app_port, loaded.app_max_age, loaded.app_listen) == (9000, 60.0, "::1")


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("JIFEN_APP_NAME", "a b", "JIFEN_APP_NAME must be the Mini App's short name"),
        ("JIFEN_APP_URL", "http://x.example/app/", "JIFEN_APP_URL must be the https URL"),
        ("JIFEN_APP_PORT", "0", "JIFEN_APP_PORT must be a port number from 1 to 65535"),
        ("JIFEN_APP_MAX_AGE", "nan", "JIFEN_APP_MAX_AGE must be seconds"),
        ("JIFEN_APP_MAX_AGE", "0", "JIFEN_APP_MAX_AGE must be seconds"),
    ],
)
def test_a_bad_app_setting_is_named(name: str, value: str, message: str) -> None:
    with pytest.raises(InvalidSettings, match=message):
        Settings.load(**{name: value})


#: Names a table may have: plain ones, keywords (me, 自摸, pph, feng, an, out), look-alikes of
#: scores (赢3, Ann-2) and of tiles (m1), names with a keyword inside (老王自摸), duplicates.
NAMES = ["Ann", "bob", "Bob", "老王", "me", "我", "自摸", "pph", "feng", "Ming", "out", "出", "赢3"]
NAMES += ["Ann-2", "m1", "老王自摸", "Li Wei", "@li", "7", "A.B", "小明", "杠开王", "qys"]
SEAT = st.integers(1, 4)
CLAUSE = st.fixed_dictionaries(
    {"winner": SEAT, "how": st.sampled_from(sorted(forms.HOWS))},
    optional={
        "from": SEAT,
        "chain": st.integers(1, 4),
        "pattern": st.sampled_from(forms.PATTERN_WORDS),
        "qys": st.booleans(),
        "mq": st.booleans(),
        "qqr": st.booleans(),
        "sealed": SEAT,
        "tiles": st.sampled_from(["11122233344455m", "[777p] 123m456m789s55s", "123m 456m"]),
    },
)
FORM = st.one_of(
    st.builds(lambda c: {"kind": "hu", "clauses": c}, st.lists(CLAUSE, min_size=1, max_size=3)),
    st.fixed_dictionaries(
        {"kind": st.just("gang"), "player": SEAT, "type": st.sampled_from(forms.KONG_WORDS)},
        optional={"from": SEAT},
    ),
    st.builds(
        lambda seats, out: {
            "kind": "report",
            "entries": [{"player": s, "table": 5 * s, "held": None} for s in seats],
            "out": out,
        },
        st.permutations([1, 2, 3, 4]),
        st.lists(SEAT, min_size=2, max_size=3, unique=True),
    ),
    st.builds(
        lambda seats, balance: {
            "kind": "score",
            "entries": [{"player": s, "amount": f"+{s}.5"} for s in seats if s != balance],
            "balance": balance,
        },
        st.lists(st.integers(1, 10), min_size=2, max_size=10, unique=True),
        st.one_of(st.none(), st.integers(1, 10)),
    ),
    st.builds(
        lambda payer, payee: {"kind": "pay", "payer": payer, "payee": payee, "amount": "2.5"},
        st.integers(1, 10),
        st.integers(1, 10),
    ),
)


def by_seat(value: Any, seats: list[str]) -> Any:
    """`value` with each player reference made the seat it names (a name: its seat)."""
    if isinstance(value, PlayerRef):
        if value.kind is RefKind.NAME:
            return seats.index(value.value) + 1
        return int(value.value) if value.kind is RefKind.SEAT else value
    if isinstance(value, tuple):
        return tuple(by_seat(item, seats) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        changed = {f.name: by_seat(getattr(value, f.name), seats) for f in fields(value)}
        return replace(value, **changed)
    return value


TRICKY = ["Ann-2", "赢3", "me", "自摸", "老王自摸", "m1", "Bob", "小明", "Ann", "Cat"]


@settings(max_examples=300)
@given(FORM, st.lists(st.sampled_from(NAMES), min_size=10, max_size=10))
@example({"kind": "score", "entries": [{"player": 7, "amount": "+1"}], "balance": 1}, TRICKY)
@example({"kind": "score", "entries": [{"player": 7, "amount": "+1"}], "balance": 2}, TRICKY)
@example({"kind": "pay", "payer": 3, "payee": 7, "amount": "2"}, TRICKY)
@example({"kind": "gang", "player": 4, "type": "ming", "from": 5}, TRICKY)
def test_a_form_and_its_text_make_one_request(form: dict[str, Any], seats: list[str]) -> None:
    """Built together, without parsing: the text read back names the same players."""
    try:
        text, request = forms.request(form, seats)
    except (forms.FormError, ParseError):
        return
    typed = parse(text)
    assert type(typed) is type(request), text
    assert by_seat(typed, seats) == by_seat(request, seats), text


def test_the_sitting_s_words_are_plain_text_and_its_rows_the_card_s() -> None:
    """The Table page shows the totals' words as text: no HTML escapes (`Renderer._` writes
    HTML); a game's column is empty for a player who did not play it."""
    from datetime import UTC, datetime
    from fractions import Fraction

    from bot.miniapp import sitting
    from bot.presentation.render import Renderer
    from service.replies import Card, CardLine

    at = datetime(2026, 12, 5, 20, tzinfo=UTC)
    line = CardLine("Ann", (("mahjong", Fraction(9, 2)),), Fraction(9, 4), 2, 1)
    other = CardLine(
        "Bob & Co", (("mahjong", Fraction(-9, 2)), ("free:A&B", Fraction(1))), None, 3, 0
    )
    card = Card(
        "t",
        None,
        at,
        at,
        "UTC",
        ("mahjong", "free:A&B"),
        (("mahjong", 2), ("free:A&B", 1)),
        (line, other),
        (),
        (),
        (),
        Fraction(1, 2),
    )
    totals = sitting.totals(Renderer("en")._, card, ("Bob & Co", None))
    assert totals is not None
    assert totals["columns"] == ["Mahjong", "A&B"] and totals["hands"] == 3
    html = sitting.totals(lambda msgid, **_: "&lt;M&amp;J&gt;", card, ())  # a template, escaped
    assert html is not None and html["columns"] == ["<M&J>", "A&B"]
    assert html["games"][0] == {"title": "<M&J>", "hands": "<M&J>"}
    assert totals["games"] == [
        {"title": "Mahjong", "hands": "2 hand(s)"},
        {"title": "A&B", "hands": "1 hand(s)"},
    ]
    assert totals["rows"] == [
        {"name": "Ann", "seated": False, "amounts": ["+4.5", None], "money": "+2.25"},
        {"name": "Bob & Co", "seated": True, "amounts": ["-4.5", "+1"], "money": None},
    ]
    empty = replace(card, lines=(), hands=())
    assert sitting.totals(Renderer("en")._, empty, ()) is None
    assert sitting.totals(Renderer("en")._, None, ()) is None
