import datetime
import random

import pytest

from datespan import MAX_ORDINAL, Date


def random_dates(seed, n=300):
    rng = random.Random(seed)
    return [datetime.date.fromordinal(rng.randint(1, MAX_ORDINAL)) for _ in range(n)]


def D(d: datetime.date) -> Date:
    return Date(d.year, d.month, d.day)


class TestConstruction:
    def test_valid_and_ordering(self):
        a = Date(2024, 2, 29)
        assert (a.year, a.month, a.day) == (2024, 2, 29)
        assert Date(2023, 12, 31) < Date(2024, 1, 1)
        assert Date(2024, 1, 1) == Date(2024, 1, 1)
        assert len({Date(2024, 1, 1), Date(2024, 1, 1)}) == 1

    def test_invalid_values(self):
        for args in [(2023, 2, 29), (2024, 0, 1), (2024, 4, 31), (0, 1, 1), (10000, 1, 1), (2024, 1, 0)]:
            with pytest.raises(ValueError):
                Date(*args)

    def test_invalid_types(self):
        with pytest.raises(TypeError):
            Date(2024, "1", 1)
        with pytest.raises(TypeError):
            Date(2024, 1, True)
        with pytest.raises(TypeError):
            Date(2024.0, 1, 1)

    def test_isoformat(self):
        assert Date(987, 6, 5).isoformat() == "0987-06-05"
        assert str(Date(2024, 12, 25)) == "2024-12-25"


class TestWeekday:
    def test_known_weekdays(self):
        assert Date(1, 1, 1).weekday() == 0
        assert Date(2024, 2, 29).weekday() == 3  # Thursday
        assert Date(2000, 1, 1).weekday() == 5  # Saturday
        assert Date(1969, 7, 20).weekday() == 6  # Sunday

    def test_isoweekday(self):
        assert Date(2024, 3, 3).isoweekday() == 7
        assert Date(2024, 3, 4).isoweekday() == 1

    def test_matches_datetime(self):
        for d in random_dates(1):
            assert D(d).weekday() == d.weekday()


class TestDayOfYear:
    def test_bounds(self):
        assert Date(2024, 1, 1).day_of_year() == 1
        assert Date(2024, 12, 31).day_of_year() == 366
        assert Date(2023, 12, 31).day_of_year() == 365
        assert Date(2023, 3, 1).day_of_year() == 60
        assert Date(2024, 3, 1).day_of_year() == 61

    def test_matches_datetime(self):
        for d in random_dates(2):
            assert D(d).day_of_year() == d.timetuple().tm_yday


class TestIsoCalendar:
    def test_year_boundaries(self):
        assert Date(2024, 12, 30).iso_calendar() == (2025, 1, 1)
        assert Date(2021, 1, 3).iso_calendar() == (2020, 53, 7)
        assert Date(2021, 1, 4).iso_calendar() == (2021, 1, 1)
        assert Date(2026, 12, 31).iso_calendar() == (2026, 53, 4)

    def test_first_and_last_supported_dates(self):
        assert Date(1, 1, 1).iso_calendar() == (1, 1, 1)
        assert Date(9999, 12, 31).iso_calendar() == tuple(datetime.date(9999, 12, 31).isocalendar())

    def test_matches_datetime(self):
        for d in random_dates(3, 500):
            assert D(d).iso_calendar() == tuple(d.isocalendar())

    def test_all_late_december_and_early_january(self):
        for year in range(1990, 2040):
            for d in [datetime.date(year, 12, day) for day in range(25, 32)] + [
                datetime.date(year, 1, day) for day in range(1, 8)
            ]:
                assert D(d).iso_calendar() == tuple(d.isocalendar())


class TestAddDays:
    def test_across_month_and_year(self):
        assert Date(2024, 2, 28).add_days(1) == Date(2024, 2, 29)
        assert Date(2023, 2, 28).add_days(1) == Date(2023, 3, 1)
        assert Date(2023, 12, 31).add_days(1) == Date(2024, 1, 1)
        assert Date(2024, 1, 1).add_days(-1) == Date(2023, 12, 31)
        assert Date(2024, 5, 5).add_days(0) == Date(2024, 5, 5)

    def test_plus_operator(self):
        assert Date(2024, 1, 1) + 366 == Date(2025, 1, 1)
        assert 31 + Date(2024, 1, 1) == Date(2024, 2, 1)

    def test_matches_datetime(self):
        rng = random.Random(4)
        for d in random_dates(4):
            n = rng.randint(-5000, 5000)
            try:
                expected = d + datetime.timedelta(days=n)
            except OverflowError:
                continue
            assert D(d).add_days(n) == D(expected)

    def test_overflow(self):
        with pytest.raises(OverflowError):
            Date(9999, 12, 31).add_days(1)
        with pytest.raises(OverflowError):
            Date(1, 1, 1).add_days(-1)


class TestSubtract:
    def test_difference_in_days(self):
        assert Date(2024, 3, 1) - Date(2024, 2, 1) == 29
        assert Date(2024, 2, 1) - Date(2024, 3, 1) == -29
        assert Date(2000, 1, 1) - Date(2000, 1, 1) == 0
        assert Date(9999, 12, 31) - Date(1, 1, 1) == 3652058

    def test_minus_int(self):
        assert Date(2024, 3, 1) - 1 == Date(2024, 2, 29)
        assert Date(2024, 1, 1) - (-1) == Date(2024, 1, 2)
        with pytest.raises(OverflowError):
            Date(1, 1, 5) - 5

    def test_unsupported_operand(self):
        with pytest.raises(TypeError):
            Date(2024, 1, 1) - "x"
        with pytest.raises(TypeError):
            Date(2024, 1, 1) - 1.5

    def test_matches_datetime(self):
        ds = random_dates(5, 200)
        for a, b in zip(ds, ds[1:]):
            assert D(a) - D(b) == (a - b).days


class TestAddMonths:
    def test_simple(self):
        assert Date(2024, 1, 15).add_months(1) == Date(2024, 2, 15)
        assert Date(2024, 11, 15).add_months(3) == Date(2025, 2, 15)
        assert Date(2024, 1, 15).add_months(-1) == Date(2023, 12, 15)
        assert Date(2024, 1, 15).add_months(0) == Date(2024, 1, 15)

    def test_end_of_month_clamping(self):
        assert Date(2024, 1, 31).add_months(1) == Date(2024, 2, 29)
        assert Date(2023, 1, 31).add_months(1) == Date(2023, 2, 28)
        assert Date(2024, 3, 31).add_months(-1) == Date(2024, 2, 29)
        assert Date(2024, 5, 31).add_months(1) == Date(2024, 6, 30)

    def test_clamping_is_not_sticky(self):
        d = Date(2024, 1, 31).add_months(1)
        assert d.add_months(1) == Date(2024, 3, 29)

    def test_large_offsets(self):
        assert Date(2024, 2, 29).add_months(12 * 100) == Date(2124, 2, 29)
        assert Date(2024, 2, 29).add_months(-12 * 124) == Date(1900, 2, 28)
        assert Date(2024, 6, 15).add_months(-30) == Date(2021, 12, 15)

    def test_add_years(self):
        assert Date(2024, 2, 29).add_years(1) == Date(2025, 2, 28)
        assert Date(2024, 2, 29).add_years(4) == Date(2028, 2, 29)

    def test_overflow(self):
        with pytest.raises(OverflowError):
            Date(9999, 12, 1).add_months(1)
        with pytest.raises(OverflowError):
            Date(1, 1, 1).add_months(-1)


class TestParse:
    def test_extended_and_basic(self):
        assert Date.parse("2024-02-29") == Date(2024, 2, 29)
        assert Date.parse("20240229") == Date(2024, 2, 29)
        assert Date.parse("0001-01-01") == Date(1, 1, 1)

    def test_ordinal_dates(self):
        assert Date.parse("2024-060") == Date(2024, 2, 29)
        assert Date.parse("2023-060") == Date(2023, 3, 1)
        assert Date.parse("2024-366") == Date(2024, 12, 31)
        assert Date.parse("2023-001") == Date(2023, 1, 1)

    def test_nonexistent_dates(self):
        for text in ["2023-02-29", "2023-366", "2024-000", "2024-367", "0000-01-01", "2024-13-01", "20230229"]:
            with pytest.raises(ValueError):
                Date.parse(text)

    def test_malformed(self):
        for text in ["", "2024-2-29", " 2024-02-29", "2024-02-29 ", "2024/02/29", "24-02-29", "2024-02-29T00",
                     "２０２４-02-29", "2024-W01-1", "2024-0229"]:
            with pytest.raises(ValueError):
                Date.parse(text)

    def test_not_a_string(self):
        with pytest.raises(TypeError):
            Date.parse(20240229)

    def test_round_trip(self):
        for d in random_dates(6, 100):
            assert Date.parse(d.isoformat()) == D(d)
