"""Month calendars as data and as text."""

from __future__ import annotations

from datespan.core import days_in_month
from datespan.date import Date

MONTH_NAMES = (
    "",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAY_ABBREVIATIONS = ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su")


def month_calendar(year: int, month: int, first_weekday: int = 0) -> list[list[int]]:
    """The weeks of a month as rows of seven day numbers.

    Each row is one week starting on ``first_weekday`` (Monday = 0 ... Sunday = 6);
    days of neighbouring months are 0. The first row contains day 1 and the last
    row contains the last day, so there are 4 to 6 rows. Matches
    ``calendar.Calendar(first_weekday).monthdayscalendar(year, month)``.

    Raises ValueError if ``first_weekday`` is outside 0..6, or if the year or month
    is invalid.
    """
    if not 0 <= first_weekday <= 6:
        raise ValueError(f"first_weekday must be in 0..6, got {first_weekday}")
    dim = days_in_month(year, month)
    lead = (Date(year, month, 1).weekday() - first_weekday) % 7
    cells = [0] * lead + list(range(1, dim + 1))
    cells += [0] * (-len(cells) % 7)
    return [cells[i : i + 7] for i in range(0, len(cells), 7)]


def format_month(year: int, month: int, first_weekday: int = 0) -> str:
    """A month as text, like ``calendar.TextCalendar(first_weekday).formatmonth``.

    Lines, each followed by ``"\\n"`` and with trailing spaces removed:

    1. the title ``f"{month name} {year}"`` centred with ``str.center(20)``;
    2. the weekday header: two-letter abbreviations (``Mo Tu We Th Fr Sa Su``)
       starting at ``first_weekday``, separated by single spaces;
    3. one line per row of :func:`month_calendar`: each day right-aligned in two
       characters (blank for 0), separated by single spaces.

    Same errors as :func:`month_calendar`.

    >>> print(format_month(2024, 2), end="")
       February 2024
    Mo Tu We Th Fr Sa Su
              1  2  3  4
     5  6  7  8  9 10 11
    12 13 14 15 16 17 18
    19 20 21 22 23 24 25
    26 27 28 29
    """
    weeks = month_calendar(year, month, first_weekday)
    lines = [f"{MONTH_NAMES[month]} {year}".center(20).rstrip()]
    lines.append(" ".join(WEEKDAY_ABBREVIATIONS[(first_weekday + i) % 7] for i in range(7)))
    for week in weeks:
        lines.append(" ".join(f"{d:2d}" if d else "  " for d in week).rstrip())
    return "\n".join(lines) + "\n"
