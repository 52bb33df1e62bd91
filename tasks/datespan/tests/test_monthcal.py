import pytest

from datespan import format_month, month_calendar


class TestMonthCalendar:
    def test_february_2024(self):
        assert month_calendar(2024, 2) == [
            [0, 0, 0, 1, 2, 3, 4],
            [5, 6, 7, 8, 9, 10, 11],
            [12, 13, 14, 15, 16, 17, 18],
            [19, 20, 21, 22, 23, 24, 25],
            [26, 27, 28, 29, 0, 0, 0],
        ]

    def test_sunday_first(self):
        assert month_calendar(2024, 9, first_weekday=6) == [
            [1, 2, 3, 4, 5, 6, 7],
            [8, 9, 10, 11, 12, 13, 14],
            [15, 16, 17, 18, 19, 20, 21],
            [22, 23, 24, 25, 26, 27, 28],
            [29, 30, 0, 0, 0, 0, 0],
        ]

    def test_four_and_six_rows(self):
        # February 2021 starts on a Monday and has 28 days
        assert month_calendar(2021, 2) == [list(range(i, i + 7)) for i in range(1, 29, 7)]
        # March 2026 starts on a Sunday: 6 rows
        weeks = month_calendar(2026, 3)
        assert len(weeks) == 6
        assert weeks[0] == [0, 0, 0, 0, 0, 0, 1]
        assert weeks[-1] == [30, 31, 0, 0, 0, 0, 0]

    def test_matches_stdlib_calendar(self):
        import calendar

        for year in (1, 1900, 2000, 2023, 2024, 9999):
            for month in range(1, 13):
                for fw in (0, 3, 6):
                    assert month_calendar(year, month, fw) == calendar.Calendar(fw).monthdayscalendar(year, month)

    def test_invalid(self):
        with pytest.raises(ValueError):
            month_calendar(2024, 13)
        with pytest.raises(ValueError):
            month_calendar(2024, 1, first_weekday=7)


class TestFormatMonth:
    def test_february_2024(self):
        assert format_month(2024, 2) == (
            "   February 2024\n"
            "Mo Tu We Th Fr Sa Su\n"
            "          1  2  3  4\n"
            " 5  6  7  8  9 10 11\n"
            "12 13 14 15 16 17 18\n"
            "19 20 21 22 23 24 25\n"
            "26 27 28 29\n"
        )

    def test_sunday_first_header_and_title_centering(self):
        assert format_month(2024, 5, first_weekday=6) == (
            "      May 2024\n"
            "Su Mo Tu We Th Fr Sa\n"
            "          1  2  3  4\n"
            " 5  6  7  8  9 10 11\n"
            "12 13 14 15 16 17 18\n"
            "19 20 21 22 23 24 25\n"
            "26 27 28 29 30 31\n"
        )

    def test_short_year_title(self):
        assert format_month(1, 1).splitlines()[0] == "     January 1"  # str.center puts the odd space on the left here

    def test_matches_stdlib_textcalendar(self):
        import calendar

        for year in (1999, 2024):
            for month in range(1, 13):
                assert format_month(year, month, 2) == calendar.TextCalendar(2).formatmonth(year, month)

    def test_invalid(self):
        with pytest.raises(ValueError):
            format_month(2024, 0)
