"""A chat's time zone (/set tz): IANA names checked with zoneinfo, times shown in the zone."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

EXAMPLE = "Asia/Shanghai"


@cache
def _zones() -> dict[str, str]:
    """Every IANA zone name by its case-folded spelling."""
    return {name.casefold(): name for name in available_timezones() | {"UTC"}}


def zone_name(word: str) -> str | None:
    """The IANA zone `word` names, spelled as zoneinfo does (any case), or None."""
    return _zones().get(word.strip().casefold())


def local(at: datetime, zone: str) -> datetime:
    """A stored time (aware, or naive UTC) in `zone`."""
    aware = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return aware.astimezone(ZoneInfo(zone))


def zone_label(zone: str, at: datetime | None = None) -> str:
    """`UTC`, or the zone with its offset at `at` (now by default): `Asia/Shanghai, UTC+08:00`."""
    if zone == "UTC":
        return zone
    offset = local(at or datetime.now(UTC), zone).strftime("%z")
    return f"{zone}, UTC{offset[:3]}:{offset[3:]}"
