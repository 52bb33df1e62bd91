"""datespan: calendar dates, durations and business days without ``datetime``.

Modules, from the bottom layer up:

* ``datespan.core``: integer calendar maths: :func:`is_leap_year`,
  :func:`days_in_month`, :func:`to_ordinal`, :func:`from_ordinal`.
* ``datespan.date``: the :class:`Date` value type (validation, weekday, ISO week,
  parsing, adding days/months).
* ``datespan.duration``: :class:`Duration` and its ISO 8601 (``P1DT2H``) and human
  (``1h30m``) notations.
* ``datespan.business``: business-day arithmetic with weekends and holidays.
* ``datespan.holidays``: Easter, n-th weekday of a month, observed days.
* ``datespan.monthcal``: month calendars as rows of days and as text.
* ``datespan.span``: :class:`DateSpan`, a half-open range of dates.
"""

from datespan.business import add_business_days, business_days_between, is_business_day
from datespan.core import MAX_ORDINAL, MAXYEAR, MINYEAR, days_in_month, from_ordinal, is_leap_year, to_ordinal
from datespan.date import (
    FRIDAY,
    MONDAY,
    SATURDAY,
    SUNDAY,
    THURSDAY,
    TUESDAY,
    WEDNESDAY,
    Date,
)
from datespan.duration import (
    Duration,
    format_human_duration,
    format_iso_duration,
    parse_human_duration,
    parse_iso_duration,
)
from datespan.holidays import easter_sunday, nth_weekday, observed
from datespan.monthcal import format_month, month_calendar
from datespan.span import DateSpan

__all__ = [
    "FRIDAY",
    "MAXYEAR",
    "MAX_ORDINAL",
    "MINYEAR",
    "MONDAY",
    "SATURDAY",
    "SUNDAY",
    "THURSDAY",
    "TUESDAY",
    "WEDNESDAY",
    "Date",
    "DateSpan",
    "Duration",
    "add_business_days",
    "business_days_between",
    "days_in_month",
    "easter_sunday",
    "format_human_duration",
    "format_iso_duration",
    "format_month",
    "from_ordinal",
    "is_business_day",
    "is_leap_year",
    "month_calendar",
    "nth_weekday",
    "observed",
    "parse_human_duration",
    "parse_iso_duration",
    "to_ordinal",
]
