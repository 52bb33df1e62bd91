import datetime

import pytest

from datespan import Date, add_business_days, business_days_between, is_business_day



def july4():
    """2024-07-04, a Thursday (2024-07-06/07 is a weekend). Built lazily: Date
    construction must not run at import time."""
    return Date(2024, 7, 4)


class TestIsBusinessDay:
    def test_weekdays_and_weekend(self):
        assert is_business_day(Date(2024, 7, 5))  # Friday
        assert not is_business_day(Date(2024, 7, 6))  # Saturday
        assert not is_business_day(Date(2024, 7, 7))  # Sunday

    def test_holidays(self):
        assert not is_business_day(july4(), holidays=[july4()])
        assert is_business_day(july4(), holidays={Date(2024, 12, 25)})

    def test_custom_weekend(self):
        # Friday/Saturday weekend
        assert not is_business_day(Date(2024, 7, 5), weekend=(4, 5))
        assert is_business_day(Date(2024, 7, 7), weekend=(4, 5))
        assert is_business_day(Date(2024, 7, 6), weekend=())

    def test_invalid_weekend(self):
        with pytest.raises(ValueError):
            is_business_day(july4(), weekend=(7,))


class TestAddBusinessDays:
    def test_skips_weekend(self):
        assert add_business_days(Date(2024, 7, 5), 1) == Date(2024, 7, 8)
        assert add_business_days(Date(2024, 7, 1), 4) == Date(2024, 7, 5)
        assert add_business_days(Date(2024, 7, 1), 5) == Date(2024, 7, 8)

    def test_from_weekend_start(self):
        assert add_business_days(Date(2024, 7, 6), 1) == Date(2024, 7, 8)
        assert add_business_days(Date(2024, 7, 7), -1) == Date(2024, 7, 5)

    def test_zero_returns_same_date(self):
        assert add_business_days(Date(2024, 7, 6), 0) == Date(2024, 7, 6)

    def test_backwards_and_holidays(self):
        hol = [july4()]
        assert add_business_days(Date(2024, 7, 3), 1, holidays=hol) == Date(2024, 7, 5)
        assert add_business_days(Date(2024, 7, 8), -2, holidays=hol) == Date(2024, 7, 3)

    def test_custom_weekend(self):
        # only Sunday off
        assert add_business_days(Date(2024, 7, 5), 2, weekend=[6]) == Date(2024, 7, 8)

    def test_matches_naive_stepping(self):
        hol = {Date(2024, 1, 1), Date(2024, 5, 27), Date(2024, 12, 25)}
        start = datetime.date(2024, 1, 1)
        d, count = start, 0
        while count < 250:
            d += datetime.timedelta(days=1)
            if d.weekday() < 5 and Date(d.year, d.month, d.day) not in hol:
                count += 1
        assert add_business_days(Date(2024, 1, 1), 250, holidays=hol) == Date(d.year, d.month, d.day)

    def test_errors(self):
        with pytest.raises(ValueError):
            add_business_days(july4(), 1, weekend=range(7))
        with pytest.raises(OverflowError):
            add_business_days(Date(9999, 12, 31), 1)


class TestBusinessDaysBetween:
    def test_one_week(self):
        assert business_days_between(Date(2024, 7, 1), Date(2024, 7, 8)) == 5
        assert business_days_between(Date(2024, 7, 6), Date(2024, 7, 8)) == 0
        assert business_days_between(Date(2024, 7, 5), Date(2024, 7, 9)) == 2

    def test_end_excluded_and_reversed(self):
        a, b = Date(2024, 7, 1), Date(2024, 7, 3)
        assert business_days_between(a, b) == 2
        assert business_days_between(b, a) == -2
        assert business_days_between(a, a) == 0

    def test_holidays_counted_once_and_only_in_range(self):
        hol = [july4(), july4(), Date(2024, 7, 6), Date(2024, 8, 1)]
        assert business_days_between(Date(2024, 7, 1), Date(2024, 7, 8), holidays=hol) == 4

    def test_custom_weekend(self):
        assert business_days_between(Date(2024, 7, 1), Date(2024, 7, 15), weekend=(4, 5)) == 10
        assert business_days_between(Date(2024, 7, 1), Date(2024, 7, 15), weekend=()) == 14

    def test_matches_naive_count(self):
        hol = [Date(2023, 12, 25), Date(2024, 1, 1), Date(2024, 7, 4), Date(2024, 11, 28)]
        for start, end in [((2023, 12, 20), (2024, 12, 31)), ((2024, 2, 3), (2024, 2, 29)), ((2020, 1, 1), (2024, 1, 1))]:
            s, e = datetime.date(*start), datetime.date(*end)
            expected = sum(
                1
                for i in range((e - s).days)
                if (s + datetime.timedelta(days=i)).weekday() < 5
                and Date(*(s + datetime.timedelta(days=i)).timetuple()[:3]) not in hol
            )
            assert business_days_between(Date(*start), Date(*end), holidays=hol) == expected

    def test_very_long_range(self):
        assert business_days_between(Date(1, 1, 1), Date(9999, 12, 31)) == 2608614
