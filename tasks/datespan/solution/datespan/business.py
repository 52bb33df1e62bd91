"""Business-day arithmetic: weekends and holidays are skipped.

Every function takes ``holidays`` (any iterable of :class:`Date`; converted to a
set once per call) and ``weekend`` (weekday numbers, Monday = 0 ... Sunday = 6;
Saturday and Sunday by default). A *business day* is a date that is neither on a
weekend day nor a holiday.
"""

from __future__ import annotations

from collections.abc import Iterable

from datespan.date import Date

DEFAULT_WEEKEND = (5, 6)


def _weekend_set(weekend: Iterable[int]) -> frozenset[int]:
    days = frozenset(weekend)
    if any(not (isinstance(d, int) and 0 <= d <= 6) for d in days):
        raise ValueError(f"weekend days must be in 0..6, got {sorted(days)!r}")
    return days


def is_business_day(
    date: Date, holidays: Iterable[Date] = (), weekend: Iterable[int] = DEFAULT_WEEKEND
) -> bool:
    """True if ``date`` is not on a ``weekend`` day and not in ``holidays``.

    Raises ValueError if ``weekend`` contains a number outside 0..6.
    """
    if date.weekday() in _weekend_set(weekend):
        return False
    return date not in set(holidays)


def add_business_days(
    date: Date, n: int, holidays: Iterable[Date] = (), weekend: Iterable[int] = DEFAULT_WEEKEND
) -> Date:
    """Move ``n`` business days from ``date``.

    For ``n > 0`` the result is reached by stepping ``n`` times to the next
    business day after the current one (so ``date`` itself need not be a business
    day: from a Saturday, ``n = 1`` gives the following Monday with the default
    weekend). For ``n < 0`` it steps ``-n`` times to the previous business day.
    ``n == 0`` returns ``date`` unchanged.

    Raises ValueError if ``weekend`` covers all seven days (no business day exists)
    or contains a number outside 0..6, and OverflowError if the result falls
    outside the supported date range.
    """
    wk = _weekend_set(weekend)
    if len(wk) == 7:
        raise ValueError("the weekend covers every day: there are no business days")
    hol = set(holidays)
    step = 1 if n > 0 else -1
    remaining = abs(n)
    current = date
    while remaining:
        current = current.add_days(step)
        if current.weekday() not in wk and current not in hol:
            remaining -= 1
    return current


def business_days_between(
    start: Date, end: Date, holidays: Iterable[Date] = (), weekend: Iterable[int] = DEFAULT_WEEKEND
) -> int:
    """Count the business days ``d`` with ``start <= d < end``.

    When ``end`` is before ``start`` the result is minus the count for
    ``end <= d < start``; it is 0 when they are equal. Holidays that fall on a
    weekend day or outside the range do not count twice. Whole weeks should be
    counted arithmetically, so that the time taken depends on the number of
    holidays, not on the length of the range. Raises ValueError if ``weekend`` contains a
    number outside 0..6.
    """
    if end < start:
        return -business_days_between(end, start, holidays, weekend)
    wk = _weekend_set(weekend)
    total_days = end - start
    weeks, extra = divmod(total_days, 7)
    count = weeks * (7 - len(wk))
    first_wd = start.weekday()
    for i in range(extra):
        if (first_wd + weeks * 7 + i) % 7 not in wk:
            count += 1
    for h in set(holidays):
        if start <= h < end and h.weekday() not in wk:
            count -= 1
    return count
