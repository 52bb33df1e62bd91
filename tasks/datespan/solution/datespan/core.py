"""Calendar arithmetic on plain integers (proleptic Gregorian calendar).

The proleptic Gregorian calendar extends today's leap-year rule backwards to year 1.
Dates range from 0001-01-01 to 9999-12-31. The *ordinal* of a date is its day
number counted from 0001-01-01, which has ordinal 1 (the same numbering as
``datetime.date.toordinal``).

Everything else in datespan is built on the four functions of this module.
"""

from __future__ import annotations

MINYEAR = 1
MAXYEAR = 9999
#: ordinal of 9999-12-31
MAX_ORDINAL = 3652059

# days in each month of a common (non-leap) year, index 1..12
_DAYS_IN_MONTH = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
# days before the first of each month in a common year, index 1..12
_DAYS_BEFORE_MONTH = (0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)


def is_leap_year(year: int) -> bool:
    """True if ``year`` is a leap year of the Gregorian calendar.

    A year is a leap year when it is divisible by 4, except that years divisible
    by 100 are not, except that years divisible by 400 are (2000 and 2024 are leap
    years, 1900 and 2023 are not). Works for any int, including 0 and negatives.
    """
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_month(year: int, month: int) -> int:
    """Number of days in ``month`` (1-12) of ``year``: 28 to 31.

    February has 29 days in leap years (see :func:`is_leap_year`).
    Raises ValueError if ``month`` is not in 1..12.
    """
    if not 1 <= month <= 12:
        raise ValueError(f"month must be in 1..12, got {month}")
    if month == 2 and is_leap_year(year):
        return 29
    return _DAYS_IN_MONTH[month]


def to_ordinal(year: int, month: int, day: int) -> int:
    """The ordinal of a date: 0001-01-01 is 1, 0001-01-02 is 2, and so on.

    Computed in constant time (no loop over the years).
    Raises ValueError if the date does not exist: ``year`` outside 1..9999,
    ``month`` outside 1..12, or ``day`` outside 1..days_in_month(year, month).
    """
    if not MINYEAR <= year <= MAXYEAR:
        raise ValueError(f"year must be in {MINYEAR}..{MAXYEAR}, got {year}")
    dim = days_in_month(year, month)
    if not 1 <= day <= dim:
        raise ValueError(f"day must be in 1..{dim} for {year:04d}-{month:02d}, got {day}")
    y = year - 1
    days_before_year = y * 365 + y // 4 - y // 100 + y // 400
    days_before_month = _DAYS_BEFORE_MONTH[month] + (1 if month > 2 and is_leap_year(year) else 0)
    return days_before_year + days_before_month + day


def from_ordinal(ordinal: int) -> tuple[int, int, int]:
    """The ``(year, month, day)`` with the given ordinal (inverse of :func:`to_ordinal`).

    Computed without looping over the years (400-, 100-, 4- and 1-year cycles).
    Raises ValueError unless ``1 <= ordinal <= MAX_ORDINAL`` (9999-12-31).
    """
    if not 1 <= ordinal <= MAX_ORDINAL:
        raise ValueError(f"ordinal must be in 1..{MAX_ORDINAL}, got {ordinal}")
    n = ordinal - 1
    n400, n = divmod(n, 146097)  # days in 400 years
    n100, n = divmod(n, 36524)  # days in 100 years (without the 400th leap day)
    n4, n = divmod(n, 1461)  # days in 4 years
    n1, n = divmod(n, 365)
    year = n400 * 400 + n100 * 100 + n4 * 4 + n1 + 1
    if n1 == 4 or n100 == 4:
        # the last day of a leap year closing a 4- or 400-year cycle
        return year - 1, 12, 31
    month = 1
    while True:
        dim = days_in_month(year, month)
        if n < dim:
            return year, month, n + 1
        n -= dim
        month += 1
