import pytest

from datespan import Date, easter_sunday, nth_weekday, observed


class TestEasterSunday:
    @pytest.mark.parametrize(
        "year, month, day",
        [
            (2024, 3, 31),
            (2025, 4, 20),
            (2019, 4, 21),
            (2000, 4, 23),
            (1961, 4, 2),
            (1818, 3, 22),  # earliest possible
            (2285, 3, 22),
            (1943, 4, 25),  # latest possible
            (2038, 4, 25),
        ],
    )
    def test_known_dates(self, year, month, day):
        assert easter_sunday(year) == Date(year, month, day)

    def test_always_a_sunday_in_window(self):
        for year in range(1583, 2600, 7):
            e = easter_sunday(year)
            assert e.weekday() == 6
            assert Date(year, 3, 22) <= e <= Date(year, 4, 25)

    def test_invalid_year(self):
        with pytest.raises(ValueError):
            easter_sunday(0)
        with pytest.raises(ValueError):
            easter_sunday(10000)


class TestNthWeekday:
    def test_us_holidays_2024(self):
        assert nth_weekday(2024, 11, 3, 4) == Date(2024, 11, 28)  # Thanksgiving
        assert nth_weekday(2024, 1, 0, 3) == Date(2024, 1, 15)  # MLK day
        assert nth_weekday(2024, 5, 0, -1) == Date(2024, 5, 27)  # Memorial day
        assert nth_weekday(2024, 9, 0, 1) == Date(2024, 9, 2)  # Labor day

    def test_first_day_is_the_weekday(self):
        # 2024-07-01 is a Monday
        assert nth_weekday(2024, 7, 0, 1) == Date(2024, 7, 1)
        assert nth_weekday(2024, 7, 0, 5) == Date(2024, 7, 29)
        assert nth_weekday(2024, 7, 6, 1) == Date(2024, 7, 7)

    def test_last_and_second_to_last(self):
        # 2024-02-29 is a Thursday
        assert nth_weekday(2024, 2, 3, -1) == Date(2024, 2, 29)
        assert nth_weekday(2024, 2, 3, -2) == Date(2024, 2, 22)
        assert nth_weekday(2024, 2, 4, -1) == Date(2024, 2, 23)

    def test_missing_fifth_weekday(self):
        with pytest.raises(ValueError):
            nth_weekday(2024, 2, 0, 5)
        with pytest.raises(ValueError):
            nth_weekday(2023, 2, 2, -5)

    def test_invalid_arguments(self):
        with pytest.raises(ValueError):
            nth_weekday(2024, 1, 0, 0)
        with pytest.raises(ValueError):
            nth_weekday(2024, 1, 7, 1)
        with pytest.raises(ValueError):
            nth_weekday(2024, 13, 0, 1)


class TestObserved:
    def test_weekend_shift(self):
        assert observed(Date(2026, 7, 4)) == Date(2026, 7, 3)  # Saturday -> Friday
        assert observed(Date(2021, 7, 4)) == Date(2021, 7, 5)  # Sunday -> Monday

    def test_weekday_unchanged(self):
        assert observed(Date(2024, 7, 4)) == Date(2024, 7, 4)
        assert observed(Date(2024, 12, 25)) == Date(2024, 12, 25)

    def test_across_year_boundary(self):
        assert observed(Date(2022, 1, 1)) == Date(2021, 12, 31)
        assert observed(Date(2023, 1, 1)) == Date(2023, 1, 2)
