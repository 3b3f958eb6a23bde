"""/yue's times (issue 42, point 2): the forms the usage names, read in the chat's time zone
by `service.plans.resolve` with a clock given (no real time): a day and a time, a time alone
(the next time it comes), an hour from 1 to 11 without am/上午 taken as p.m."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.commands.reader import ParseError
from bot.commands.yue import parse_yue
from service.errors import ServiceError
from service.plans import resolve
from service.requests import Arrange, CancelPlan, Plans, When

SHANGHAI = "Asia/Shanghai"
# Wednesday 2026-12-09, 15:00 in Shanghai (07:00 UTC)
NOW = datetime(2026, 12, 9, 7, 0, tzinfo=UTC)


def at(text: str, zone: str = SHANGHAI) -> str:
    request = parse_yue(text, "/yue")
    assert isinstance(request, Arrange)
    moment = resolve(request.when, NOW, zone).astimezone(ZoneInfo(zone))
    return f"{moment:%a %m-%d %H:%M}"


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("周五 20:00 麻将", "Fri 12-11 20:00"),
        ("明天 8点", "Thu 12-10 20:00"),
        ("20:00", "Wed 12-09 20:00"),
        ("14:00", "Thu 12-10 14:00"),  # passed today: tomorrow
        ("fri 8pm", "Fri 12-11 20:00"),
        ("今晚8点半", "Wed 12-09 20:30"),
        ("后天 早上9:30", "Fri 12-11 09:30"),
        ("星期三 下午3点", "Wed 12-16 15:00"),  # today's 15:00 has come: next week's
        ("周日 7点 斗地主", "Sun 12-13 19:00"),
        ("12-25 20:00", "Fri 12-25 20:00"),
        ("12月1日 19点", "Wed 12-01 19:00"),  # passed this year: next year's
        ("sat 10am", "Sat 12-12 10:00"),
        ("明天 中午12点", "Thu 12-10 12:00"),
        ("明天 八点", "Thu 12-10 20:00"),
    ],
)
def test_the_forms_of_the_usage(typed: str, meant: str) -> None:
    assert at(typed) == meant


def test_the_game_and_the_other_forms() -> None:
    request = parse_yue("明天 8点 510k", "/yue")
    assert isinstance(request, Arrange) and request.game == "510k"
    assert request.when.hour == 8 and request.when.minute == 0
    assert parse_yue("", "/yue") == Plans()
    assert parse_yue("cancel", "/yue") == CancelPlan()
    assert parse_yue("取消 2", "/yue") == CancelPlan(2)
    assert at("20:00", "UTC") == "Wed 12-09 20:00"


@pytest.mark.parametrize("typed", ["周五", "麻将", "25:00", "13-40 20:00", "cancel x"])
def test_what_is_not_a_time_is_refused(typed: str) -> None:
    with pytest.raises(ParseError):
        parse_yue(typed, "/yue")


def test_no_such_day() -> None:
    request = parse_yue("2-30 20:00", "/yue")
    assert isinstance(request, Arrange)
    with pytest.raises(ServiceError):
        resolve(request.when, NOW, SHANGHAI)


@given(
    now=st.datetimes(
        min_value=datetime(2025, 1, 1), max_value=datetime(2030, 12, 31), timezones=st.just(UTC)
    ),
    zone=st.sampled_from(["Asia/Shanghai", "Europe/Berlin", "America/New_York", "UTC"]),
    day=st.sampled_from(["", "today", "tomorrow", "after", "weekday"]),
    value=st.integers(0, 6),
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
)
def test_a_time_is_read_as_typed_and_still_to_come(
    now: datetime, zone: str, day: str, value: int, hour: int, minute: int
) -> None:
    """Whatever the day and the zone: the game's local time is the one typed (24-hour clock
    given), on the day named, never in the past but today's, within a week and two days."""
    at = resolve(When(day, value, hour, minute, "am" if hour < 12 else ""), now, zone)
    here = at.astimezone(ZoneInfo(zone))
    today = now.astimezone(ZoneInfo(zone)).date()
    if (here.hour, here.minute) == (hour, minute):  # not a time a clock change skipped
        assert here.date() >= today
    assert at - now < timedelta(days=9)
    if day in ("", "weekday"):
        assert at > now
    if day == "weekday":
        assert here.weekday() == value
    if day == "tomorrow":
        assert here.date() == today + timedelta(days=1)
