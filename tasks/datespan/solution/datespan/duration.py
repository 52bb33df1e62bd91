"""Exact durations in whole seconds, with ISO 8601 and human-friendly notations.

A :class:`Duration` is a signed number of seconds. Days are always 24 hours and
weeks 7 days; calendar units (years, months) are not durations because their
length varies, so they are rejected by the parsers.

Two text notations are supported:

* ISO 8601: ``P1DT2H30M``, ``PT45S``, ``P2W``, ``-PT1H`` (a leading minus sign is an
  extension of the standard);
* human: ``1h30m``, ``2d 4h``, ``1w2d``, ``-45s``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR
WEEK = 7 * DAY

_ISO = re.compile(
    r"(-)?P(?:([0-9]+)W)?(?:([0-9]+)D)?(?:T(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+)S)?)?"
)
_HUMAN_PART = re.compile(r"([0-9]+)\s*([A-Za-z]+)\s*")
_HUMAN_UNITS = {"w": WEEK, "d": DAY, "h": HOUR, "m": MINUTE, "s": 1}
_HUMAN_ORDER = "wdhms"


@dataclass(frozen=True, order=True)
class Duration:
    """A signed, exact length of time in whole seconds.

    Supports ``+``, ``-`` (with other durations), unary ``-``, ``abs()``,
    multiplication by an int and comparisons.

    >>> Duration.of(hours=1, minutes=30).seconds
    5400
    """

    seconds: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.seconds, bool) or not isinstance(self.seconds, int):
            raise TypeError(f"seconds must be an int, not {type(self.seconds).__name__}")

    @classmethod
    def of(cls, weeks: int = 0, days: int = 0, hours: int = 0, minutes: int = 0, seconds: int = 0) -> Duration:
        """A duration from (possibly negative or overflowing) parts, e.g.
        ``Duration.of(minutes=90)`` equals ``Duration.of(hours=1, minutes=30)``."""
        return cls(weeks * WEEK + days * DAY + hours * HOUR + minutes * MINUTE + seconds)

    def __add__(self, other: object) -> Duration:
        if not isinstance(other, Duration):
            return NotImplemented
        return Duration(self.seconds + other.seconds)

    def __sub__(self, other: object) -> Duration:
        if not isinstance(other, Duration):
            return NotImplemented
        return Duration(self.seconds - other.seconds)

    def __neg__(self) -> Duration:
        return Duration(-self.seconds)

    def __abs__(self) -> Duration:
        return Duration(abs(self.seconds))

    def __mul__(self, k: object) -> Duration:
        if isinstance(k, bool) or not isinstance(k, int):
            return NotImplemented
        return Duration(self.seconds * k)

    __rmul__ = __mul__

    def components(self) -> tuple[int, int, int, int]:
        """``(days, hours, minutes, seconds)`` of the absolute value of the duration,
        with ``0 <= hours < 24``, ``0 <= minutes < 60`` and ``0 <= seconds < 60``.

        The sign is dropped: ``Duration(-90).components()`` is ``(0, 0, 1, 30)``.
        """
        total = abs(self.seconds)
        days, rest = divmod(total, DAY)
        hours, rest = divmod(rest, HOUR)
        minutes, seconds = divmod(rest, MINUTE)
        return days, hours, minutes, seconds


def parse_iso_duration(text: str) -> Duration:
    """Parse an ISO 8601 duration of the form ``[-]P[nW][nD][T[nH][nM][nS]]``.

    Components are non-negative integers, must appear in that order, each at most
    once, and at least one must be present; if ``T`` is present at least one of
    H, M, S must follow it. ``P2W3D`` (weeks with days) is accepted. Letters must be
    upper case; no spaces and no fractions are allowed. Years and months (``P1Y``,
    ``P1M``) are rejected since their length varies.

    Raises TypeError if ``text`` is not a str and ValueError for anything else not
    matching this grammar (``""``, ``"P"``, ``"PT"``, ``"P1H"``, ``"PT1.5H"``,
    ``"pt1h"``, ``"P1Y"``).

    >>> parse_iso_duration("P1DT2H30M").seconds
    95400
    """
    if not isinstance(text, str):
        raise TypeError(f"expected str, not {type(text).__name__}")
    m = _ISO.fullmatch(text)
    if not m or all(g is None for g in m.groups()[1:]) or text.endswith("T"):
        raise ValueError(f"not an ISO 8601 duration: {text!r}")
    sign, w, d, h, mi, s = m.groups()
    total = Duration.of(
        weeks=int(w or 0), days=int(d or 0), hours=int(h or 0), minutes=int(mi or 0), seconds=int(s or 0)
    ).seconds
    return Duration(-total if sign else total)


def format_iso_duration(d: Duration) -> str:
    """The canonical ISO 8601 form of ``d``.

    Built from :meth:`Duration.components`: ``P``, then ``<days>D`` if days are
    non-zero, then, if any of hours, minutes or seconds is non-zero, ``T`` followed
    by the non-zero ones as ``<n>H``, ``<n>M``, ``<n>S``. Weeks are never used. A
    negative duration gets a leading ``-``. The zero duration is ``PT0S``.

    >>> format_iso_duration(Duration(90061))
    'P1DT1H1M1S'
    """
    if d.seconds == 0:
        return "PT0S"
    days, hours, minutes, seconds = d.components()
    out = "-P" if d.seconds < 0 else "P"
    if days:
        out += f"{days}D"
    if hours or minutes or seconds:
        out += "T"
        if hours:
            out += f"{hours}H"
        if minutes:
            out += f"{minutes}M"
        if seconds:
            out += f"{seconds}S"
    return out


def parse_human_duration(text: str) -> Duration:
    """Parse a compact human notation such as ``1h30m``, ``2d 4h`` or ``-1w2d``.

    The text is an optional leading ``-`` followed by one or more groups
    ``<digits><unit>``, where the unit is one of ``w`` (week), ``d`` (day), ``h``
    (hour), ``m`` (minute), ``s`` (second), case-insensitive. Spaces are allowed
    between groups, between a number and its unit, and around the whole text (but
    not between the ``-`` and the first number).
    Units must appear in that order (largest first), each at most once. Values are
    not limited (``90m`` is fine).

    Raises TypeError if ``text`` is not a str and ValueError for anything else
    (empty text, unknown or repeated units, wrong order, a number without unit,
    fractions, ``+`` signs).
    """
    if not isinstance(text, str):
        raise TypeError(f"expected str, not {type(text).__name__}")
    s = text.strip()
    negative = s.startswith("-")
    if negative:
        s = s[1:]
    if not s:
        raise ValueError(f"not a duration: {text!r}")
    pos = 0
    total = 0
    last = -1
    while pos < len(s):
        m = _HUMAN_PART.match(s, pos)
        if not m:
            raise ValueError(f"not a duration: {text!r}")
        unit = m.group(2).lower()
        if unit not in _HUMAN_UNITS:
            raise ValueError(f"unknown unit {m.group(2)!r} in {text!r}")
        rank = _HUMAN_ORDER.index(unit)
        if rank <= last:
            raise ValueError(f"units out of order or repeated in {text!r}")
        last = rank
        total += int(m.group(1)) * _HUMAN_UNITS[unit]
        pos = m.end()
    return Duration(-total if negative else total)


def format_human_duration(d: Duration) -> str:
    """The compact human form of ``d``: the non-zero parts of
    :meth:`Duration.components` as ``<n>d``, ``<n>h``, ``<n>m``, ``<n>s`` in that
    order, without spaces; weeks are never used. A negative duration gets a leading
    ``-``; the zero duration is ``0s``.

    >>> format_human_duration(Duration.of(days=1, minutes=5))
    '1d5m'
    """
    if d.seconds == 0:
        return "0s"
    days, hours, minutes, seconds = d.components()
    parts = [(days, "d"), (hours, "h"), (minutes, "m"), (seconds, "s")]
    out = "".join(f"{n}{u}" for n, u in parts if n)
    return "-" + out if d.seconds < 0 else out
