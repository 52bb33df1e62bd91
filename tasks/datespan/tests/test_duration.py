import pytest

from datespan import Duration, format_human_duration, format_iso_duration, parse_human_duration, parse_iso_duration


class TestDurationBasics:
    def test_of_and_arithmetic(self):
        assert Duration.of(hours=1, minutes=30) == Duration(5400)
        assert Duration.of(weeks=1) == Duration.of(days=7)
        assert Duration(10) + Duration(5) == Duration(15)
        assert Duration(10) - Duration(15) == Duration(-5)
        assert -Duration(3) == Duration(-3)
        assert abs(Duration(-3)) == Duration(3)
        assert 3 * Duration(20) == Duration(60)
        assert Duration(1) < Duration(2)

    def test_type_checks(self):
        with pytest.raises(TypeError):
            Duration(1.5)
        with pytest.raises(TypeError):
            Duration(1) + 1


class TestComponents:
    def test_split(self):
        assert Duration(90061).components() == (1, 1, 1, 1)
        assert Duration(0).components() == (0, 0, 0, 0)
        assert Duration(59).components() == (0, 0, 0, 59)
        assert Duration(86399).components() == (0, 23, 59, 59)

    def test_days_are_not_capped(self):
        assert Duration.of(weeks=3, hours=5).components() == (21, 5, 0, 0)

    def test_negative_uses_absolute_value(self):
        assert Duration(-90).components() == (0, 0, 1, 30)
        assert Duration(-86400).components() == (1, 0, 0, 0)


class TestParseIsoDuration:
    def test_full_form(self):
        assert parse_iso_duration("P1DT2H30M") == Duration.of(days=1, hours=2, minutes=30)
        assert parse_iso_duration("P1DT1H1M1S") == Duration(90061)

    def test_partial_forms(self):
        assert parse_iso_duration("PT45S") == Duration(45)
        assert parse_iso_duration("P3D") == Duration.of(days=3)
        assert parse_iso_duration("PT1H") == Duration(3600)
        assert parse_iso_duration("PT90M") == Duration(5400)
        assert parse_iso_duration("P0D") == Duration(0)

    def test_weeks(self):
        assert parse_iso_duration("P2W") == Duration.of(weeks=2)
        assert parse_iso_duration("P1W2DT3H") == Duration.of(days=9, hours=3)

    def test_negative(self):
        assert parse_iso_duration("-PT1H") == Duration(-3600)

    def test_invalid(self):
        for text in ["", "P", "PT", "P1DT", "P1H", "PT1D", "PT1.5H", "pt1h", "P1Y", "P1M", "P1DT2H3M4S5",
                     "PT1H2H", "PT1S1M", " PT1H", "PT1H ", "+PT1H", "1H", "P-1D"]:
            with pytest.raises(ValueError):
                parse_iso_duration(text)

    def test_not_a_string(self):
        with pytest.raises(TypeError):
            parse_iso_duration(3600)


class TestFormatIsoDuration:
    def test_canonical_forms(self):
        assert format_iso_duration(Duration(90061)) == "P1DT1H1M1S"
        assert format_iso_duration(Duration.of(days=1)) == "P1D"
        assert format_iso_duration(Duration(3600)) == "PT1H"
        assert format_iso_duration(Duration(3605)) == "PT1H5S"
        assert format_iso_duration(Duration.of(days=2, minutes=1)) == "P2DT1M"

    def test_zero_and_negative(self):
        assert format_iso_duration(Duration(0)) == "PT0S"
        assert format_iso_duration(Duration(-3600)) == "-PT1H"

    def test_weeks_become_days(self):
        assert format_iso_duration(Duration.of(weeks=2)) == "P14D"

    def test_round_trip(self):
        for secs in [1, 59, 60, 61, 3599, 3600, 86399, 86400, 90061, 10**7, -7262]:
            assert parse_iso_duration(format_iso_duration(Duration(secs))) == Duration(secs)


class TestParseHumanDuration:
    def test_compact(self):
        assert parse_human_duration("1h30m") == Duration(5400)
        assert parse_human_duration("45s") == Duration(45)
        assert parse_human_duration("1w2d") == Duration.of(days=9)
        assert parse_human_duration("90m") == Duration(5400)

    def test_spaces_and_case(self):
        assert parse_human_duration("2d 4h") == Duration.of(days=2, hours=4)
        assert parse_human_duration("  1 H 5 M ") == Duration(3900)
        assert parse_human_duration("3D2S") == Duration.of(days=3, seconds=2)

    def test_negative(self):
        assert parse_human_duration("-1h") == Duration(-3600)
        assert parse_human_duration("-1d1s") == Duration(-86401)

    def test_invalid(self):
        for text in ["", "   ", "-", "1", "h", "1x", "1h1h", "30m1h", "1.5h", "+1h", "1h-30m", "- 1h", "1hour",
                     "1h 2", "--1h"]:
            with pytest.raises(ValueError):
                parse_human_duration(text)

    def test_not_a_string(self):
        with pytest.raises(TypeError):
            parse_human_duration(None)


class TestFormatHumanDuration:
    def test_forms(self):
        assert format_human_duration(Duration.of(days=1, minutes=5)) == "1d5m"
        assert format_human_duration(Duration(5400)) == "1h30m"
        assert format_human_duration(Duration(59)) == "59s"
        assert format_human_duration(Duration.of(weeks=1, seconds=1)) == "7d1s"

    def test_zero_and_negative(self):
        assert format_human_duration(Duration(0)) == "0s"
        assert format_human_duration(Duration(-3661)) == "-1h1m1s"

    def test_round_trip(self):
        for secs in [1, 60, 3600, 86400, 90061, 123456, -5]:
            assert parse_human_duration(format_human_duration(Duration(secs))) == Duration(secs)
