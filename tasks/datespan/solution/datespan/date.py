"""The :class:`Date` value type: a validated day of the proleptic Gregorian calendar."""

from __future__ import annotations

import re
from dataclasses import dataclass

from datespan.core import MAX_ORDINAL, MAXYEAR, MINYEAR, days_in_month, from_ordinal, is_leap_year, to_ordinal

MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY, SATURDAY, SUNDAY = range(7)

_ISO_EXTENDED = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_ISO_BASIC = re.compile(r"([0-9]{4})([0-9]{2})([0-9]{2})")
_ISO_ORDINAL = re.compile(r"([0-9]{4})-([0-9]{3})")


def _check_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")


@dataclass(frozen=True, order=True)
class Date:
    """A calendar date, immutable, hashable and ordered chronologically.

    Construction validates the fields: TypeError if any is not an int (bools are
    rejected), ValueError if ``year`` is outside 1..9999, ``month`` outside 1..12
    or ``day`` outside 1..days_in_month(year, month).

    Date arithmetic works through ordinals (see ``datespan.core``); a result
    outside 0001-01-01 .. 9999-12-31 raises OverflowError.

    >>> Date(2024, 1, 31).add_months(1)
    Date(year=2024, month=2, day=29)
    >>> Date(2024, 3, 1) - Date(2024, 2, 1)
    29
    """

    year: int
    month: int
    day: int

    def __post_init__(self) -> None:
        _check_int("year", self.year)
        _check_int("month", self.month)
        _check_int("day", self.day)
        if not MINYEAR <= self.year <= MAXYEAR:
            raise ValueError(f"year must be in {MINYEAR}..{MAXYEAR}, got {self.year}")
        if not 1 <= self.month <= 12:
            raise ValueError(f"month must be in 1..12, got {self.month}")
        dim = days_in_month(self.year, self.month)
        if not 1 <= self.day <= dim:
            raise ValueError(f"day must be in 1..{dim}, got {self.day}")

    # -- conversions -----------------------------------------------------------------

    def toordinal(self) -> int:
        """The ordinal of this date (0001-01-01 is 1), via ``core.to_ordinal``."""
        return to_ordinal(self.year, self.month, self.day)

    @classmethod
    def fromordinal(cls, ordinal: int) -> Date:
        """The date with the given ordinal, via ``core.from_ordinal`` (ValueError
        when out of range)."""
        return cls(*from_ordinal(ordinal))

    def isoformat(self) -> str:
        """``YYYY-MM-DD`` with zero padding, e.g. ``0987-06-05``."""
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"

    def __str__(self) -> str:
        return self.isoformat()

    @classmethod
    def parse(cls, text: str) -> Date:
        """Parse an ISO 8601 calendar or ordinal date.

        Accepted forms (ASCII digits only, nothing before or after):

        * extended calendar date ``YYYY-MM-DD`` (``2024-02-29``);
        * basic calendar date ``YYYYMMDD`` (``20240229``);
        * ordinal date ``YYYY-DDD``, where ``DDD`` is the day of the year from
          ``001`` (``2024-060`` is 2024-02-29).

        Raises TypeError if ``text`` is not a str, and ValueError if it matches
        none of the forms or names a date that does not exist (``2023-02-29``,
        ``2023-366``, ``2024-000``, year ``0000``).
        """
        if not isinstance(text, str):
            raise TypeError(f"expected str, not {type(text).__name__}")
        m = _ISO_EXTENDED.fullmatch(text) or _ISO_BASIC.fullmatch(text)
        if m:
            y, mo, d = (int(g) for g in m.groups())
            return cls(y, mo, d)
        m = _ISO_ORDINAL.fullmatch(text)
        if m:
            y, doy = int(m.group(1)), int(m.group(2))
            days = 366 if is_leap_year(y) else 365
            if not 1 <= doy <= days:
                raise ValueError(f"day of year must be in 1..{days}, got {doy}")
            return cls(*from_ordinal(to_ordinal(y, 1, 1) + doy - 1))
        raise ValueError(f"not an ISO 8601 date: {text!r}")

    # -- queries ---------------------------------------------------------------------

    def weekday(self) -> int:
        """Day of the week: Monday is 0 and Sunday is 6 (0001-01-01 was a Monday)."""
        return (self.toordinal() - 1) % 7

    def isoweekday(self) -> int:
        """Day of the week: Monday is 1 and Sunday is 7."""
        return self.weekday() + 1

    def day_of_year(self) -> int:
        """Position of the date within its year: January 1st is 1, December 31st is
        365 or 366."""
        return self.toordinal() - to_ordinal(self.year, 1, 1) + 1

    def iso_calendar(self) -> tuple[int, int, int]:
        """The ISO 8601 week date ``(iso_year, week, iso_weekday)``.

        ISO weeks start on Monday, and week 1 of an ISO year is the week that
        contains that year's first Thursday (equivalently, January 4th). So the
        first days of January can belong to the last week (52 or 53) of the
        previous ISO year, and the last days of December to week 1 of the next.
        ``iso_weekday`` is 1 for Monday to 7 for Sunday. Matches
        ``datetime.date.isocalendar()``.
        """
        ordinal = self.toordinal()
        wd = self.weekday()
        thursday = ordinal - wd + 3
        iso_year = from_ordinal(thursday)[0]
        week = (thursday - to_ordinal(iso_year, 1, 1)) // 7 + 1
        return iso_year, week, wd + 1

    # -- arithmetic ------------------------------------------------------------------

    def add_days(self, n: int) -> Date:
        """The date ``n`` days later (earlier when ``n`` is negative).

        Raises OverflowError if the result would be outside 0001-01-01 ..
        9999-12-31.
        """
        ordinal = self.toordinal() + n
        if not 1 <= ordinal <= MAX_ORDINAL:
            raise OverflowError("date out of range")
        return Date(*from_ordinal(ordinal))

    def __add__(self, n: object) -> Date:
        """``date + n`` is ``date.add_days(n)`` for an int ``n``."""
        if isinstance(n, bool) or not isinstance(n, int):
            return NotImplemented
        return self.add_days(n)

    __radd__ = __add__

    def __sub__(self, other: object) -> Date | int:
        """``date - other_date`` is the number of days from ``other_date`` to
        ``date`` (negative when ``other_date`` is later); ``date - n`` for an int
        ``n`` is the date ``n`` days earlier (OverflowError when out of range).
        Any other operand type returns NotImplemented (so Python raises TypeError).
        """
        if isinstance(other, Date):
            return self.toordinal() - other.toordinal()
        if isinstance(other, bool) or not isinstance(other, int):
            return NotImplemented
        return self.add_days(-other)

    def add_months(self, n: int) -> Date:
        """The same day ``n`` calendar months later (earlier when negative).

        When that month is shorter, the day is clamped to its last day:
        2024-01-31 plus 1 month is 2024-02-29, 2023-01-31 plus 1 month is
        2023-02-28, 2024-03-31 minus 1 month is 2024-02-29.
        Raises OverflowError if the resulting year is outside 1..9999.
        """
        index = self.year * 12 + (self.month - 1) + n
        year, month0 = divmod(index, 12)
        if not MINYEAR <= year <= MAXYEAR:
            raise OverflowError("date out of range")
        month = month0 + 1
        return Date(year, month, min(self.day, days_in_month(year, month)))

    def add_years(self, n: int) -> Date:
        """The same month and day ``n`` years later; February 29th becomes
        February 28th in a common year. Same as ``add_months(12 * n)``."""
        return self.add_months(12 * n)
