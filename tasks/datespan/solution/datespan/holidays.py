"""Rules for movable holidays: Easter and "n-th weekday of a month" feasts."""

from __future__ import annotations

from datespan.core import days_in_month
from datespan.date import Date


def easter_sunday(year: int) -> Date:
    """The date of (Western, Gregorian) Easter Sunday in ``year``.

    Easter is the first Sunday after the ecclesiastical full moon falling on or
    after March 21st; it lies between March 22nd and April 25th. Use the
    Meeus/Jones/Butcher ("anonymous Gregorian") algorithm, applied proleptically
    to every year in 1..9999.

    Raises ValueError if ``year`` is outside 1..9999.
    """
    if not 1 <= year <= 9999:
        raise ValueError(f"year must be in 1..9999, got {year}")
    a = year % 19
    b, c = divmod(year, 100)
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l = (32 + 2 * e + 2 * i - h - k) % 7  # noqa: E741
    m = (a + 11 * h + 22 * l) // 451
    month, day = divmod(h + l - 7 * m + 114, 31)
    return Date(year, month, day + 1)


def nth_weekday(year: int, month: int, weekday: int, n: int) -> Date:
    """The ``n``-th ``weekday`` (Monday = 0 ... Sunday = 6) of a month.

    ``n = 1`` is the first such weekday of the month, ``n = 2`` the second, and so
    on; negative ``n`` counts from the end (``n = -1`` is the last one). Example:
    US Thanksgiving is ``nth_weekday(year, 11, 3, 4)``.

    Raises ValueError if ``n`` is 0, if ``weekday`` is outside 0..6, if the month
    has no such day (e.g. a fifth Monday in a month with four), or if the year or
    month is invalid.
    """
    if not 0 <= weekday <= 6:
        raise ValueError(f"weekday must be in 0..6, got {weekday}")
    if n == 0:
        raise ValueError("n must not be 0")
    dim = days_in_month(year, month)
    if n > 0:
        first = Date(year, month, 1).weekday()
        day = 1 + (weekday - first) % 7 + 7 * (n - 1)
    else:
        last = Date(year, month, dim).weekday()
        day = dim - (last - weekday) % 7 - 7 * (-n - 1)
    if not 1 <= day <= dim:
        raise ValueError(f"{year:04d}-{month:02d} has no weekday {weekday} number {n}")
    return Date(year, month, day)


def observed(date: Date) -> Date:
    """The day a holiday falling on ``date`` is observed, US federal style: a
    Saturday holiday is observed on the Friday before, a Sunday holiday on the
    Monday after, and any other day is observed as is."""
    wd = date.weekday()
    if wd == 5:
        return date.add_days(-1)
    if wd == 6:
        return date.add_days(1)
    return date
