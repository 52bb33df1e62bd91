import datetime
import random

import pytest

from datespan import MAX_ORDINAL, days_in_month, from_ordinal, is_leap_year, to_ordinal


class TestIsLeapYear:
    def test_common_rules(self):
        assert is_leap_year(2024)
        assert not is_leap_year(2023)
        assert not is_leap_year(2100)
        assert not is_leap_year(1900)

    def test_divisible_by_400(self):
        assert is_leap_year(2000)
        assert is_leap_year(1600)
        assert is_leap_year(400)

    def test_year_zero_and_negative(self):
        assert is_leap_year(0)
        assert is_leap_year(-4)
        assert not is_leap_year(-1)
        assert not is_leap_year(-100)

    def test_count_in_400_year_cycle(self):
        assert sum(is_leap_year(y) for y in range(1, 401)) == 97


class TestDaysInMonth:
    def test_month_lengths(self):
        assert [days_in_month(2023, m) for m in range(1, 13)] == [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

    def test_february(self):
        assert days_in_month(2024, 2) == 29
        assert days_in_month(1900, 2) == 28
        assert days_in_month(2000, 2) == 29

    def test_invalid_month(self):
        with pytest.raises(ValueError):
            days_in_month(2024, 0)
        with pytest.raises(ValueError):
            days_in_month(2024, 13)

    def test_year_lengths(self):
        assert sum(days_in_month(2024, m) for m in range(1, 13)) == 366
        assert sum(days_in_month(2100, m) for m in range(1, 13)) == 365


class TestToOrdinal:
    def test_epoch_and_known_values(self):
        assert to_ordinal(1, 1, 1) == 1
        assert to_ordinal(1, 1, 31) == 31
        assert to_ordinal(1, 2, 1) == 32
        assert to_ordinal(2, 1, 1) == 366
        assert to_ordinal(9999, 12, 31) == MAX_ORDINAL == 3652059

    def test_matches_datetime(self):
        rng = random.Random(2024)
        for _ in range(500):
            d = datetime.date.fromordinal(rng.randint(1, MAX_ORDINAL))
            assert to_ordinal(d.year, d.month, d.day) == d.toordinal()

    def test_leap_day_boundaries(self):
        assert to_ordinal(2024, 3, 1) - to_ordinal(2024, 2, 28) == 2
        assert to_ordinal(2023, 3, 1) - to_ordinal(2023, 2, 28) == 1
        assert to_ordinal(2001, 1, 1) - to_ordinal(2000, 1, 1) == 366
        assert to_ordinal(1901, 1, 1) - to_ordinal(1900, 1, 1) == 365

    def test_invalid_dates(self):
        for args in [(0, 1, 1), (10000, 1, 1), (2023, 2, 29), (2024, 4, 31), (2024, 13, 1), (2024, 1, 0)]:
            with pytest.raises(ValueError):
                to_ordinal(*args)


class TestFromOrdinal:
    def test_known_values(self):
        assert from_ordinal(1) == (1, 1, 1)
        assert from_ordinal(366) == (2, 1, 1)
        assert from_ordinal(MAX_ORDINAL) == (9999, 12, 31)
        assert from_ordinal(738_946) == (2024, 3, 1)

    def test_cycle_ends(self):
        # last days of 4-, 100- and 400-year cycles
        for d in [datetime.date(4, 12, 31), datetime.date(400, 12, 31), datetime.date(2000, 12, 31),
                  datetime.date(1900, 12, 31), datetime.date(2024, 12, 31), datetime.date(2023, 12, 31)]:
            assert from_ordinal(d.toordinal()) == (d.year, d.month, d.day)

    def test_matches_datetime(self):
        rng = random.Random(99)
        for _ in range(500):
            o = rng.randint(1, MAX_ORDINAL)
            d = datetime.date.fromordinal(o)
            assert from_ordinal(o) == (d.year, d.month, d.day)

    def test_every_day_of_a_leap_century(self):
        start = datetime.date(1999, 12, 1).toordinal()
        for o in range(start, start + 800):
            d = datetime.date.fromordinal(o)
            assert from_ordinal(o) == (d.year, d.month, d.day)

    def test_out_of_range(self):
        with pytest.raises(ValueError):
            from_ordinal(0)
        with pytest.raises(ValueError):
            from_ordinal(MAX_ORDINAL + 1)
