import datetime

import pytest

from datespan import Date, DateSpan


class TestSpanBasics:
    def test_validation(self):
        with pytest.raises(ValueError):
            DateSpan(Date(2024, 1, 2), Date(2024, 1, 1))
        with pytest.raises(TypeError):
            DateSpan("2024-01-01", Date(2024, 1, 2))

    def test_contains_and_empty(self):
        s = DateSpan(Date(2024, 1, 1), Date(2024, 1, 3))
        assert Date(2024, 1, 1) in s
        assert Date(2024, 1, 3) not in s
        assert "2024-01-01" not in s
        assert DateSpan(Date(2024, 1, 1), Date(2024, 1, 1)).is_empty()


class TestIter:
    def test_dates_in_order(self):
        s = DateSpan(Date(2024, 2, 27), Date(2024, 3, 2))
        assert [str(d) for d in s] == ["2024-02-27", "2024-02-28", "2024-02-29", "2024-03-01"]

    def test_empty_span(self):
        d = Date(2024, 1, 1)
        assert list(DateSpan(d, d)) == []

    def test_end_of_supported_range(self):
        s = DateSpan(Date(9999, 12, 29), Date(9999, 12, 31))
        assert list(s) == [Date(9999, 12, 29), Date(9999, 12, 30)]

    def test_length_matches_datetime(self):
        s = DateSpan(Date(2023, 11, 5), Date(2025, 2, 14))
        assert len(list(s)) == (datetime.date(2025, 2, 14) - datetime.date(2023, 11, 5)).days


class TestOverlap:
    def test_partial_overlap(self):
        a = DateSpan(Date(2024, 1, 1), Date(2024, 1, 10))
        b = DateSpan(Date(2024, 1, 5), Date(2024, 2, 1))
        assert a.overlap(b) == DateSpan(Date(2024, 1, 5), Date(2024, 1, 10))
        assert b.overlap(a) == DateSpan(Date(2024, 1, 5), Date(2024, 1, 10))

    def test_containment(self):
        outer = DateSpan(Date(2024, 1, 1), Date(2024, 12, 31))
        inner = DateSpan(Date(2024, 3, 1), Date(2024, 4, 1))
        assert outer.overlap(inner) == inner

    def test_touching_and_disjoint(self):
        a = DateSpan(Date(2024, 1, 1), Date(2024, 1, 10))
        b = DateSpan(Date(2024, 1, 10), Date(2024, 1, 20))
        c = DateSpan(Date(2025, 1, 1), Date(2025, 1, 2))
        assert a.overlap(b) is None
        assert a.overlap(c) is None

    def test_empty_span_shares_nothing(self):
        a = DateSpan(Date(2024, 1, 1), Date(2024, 1, 10))
        e = DateSpan(Date(2024, 1, 5), Date(2024, 1, 5))
        assert a.overlap(e) is None


class TestSplitByMonth:
    def test_split_across_months(self):
        s = DateSpan(Date(2024, 1, 20), Date(2024, 3, 5))
        assert s.split_by_month() == [
            DateSpan(Date(2024, 1, 20), Date(2024, 2, 1)),
            DateSpan(Date(2024, 2, 1), Date(2024, 3, 1)),
            DateSpan(Date(2024, 3, 1), Date(2024, 3, 5)),
        ]

    def test_across_year_end(self):
        s = DateSpan(Date(2023, 12, 31), Date(2024, 1, 2))
        assert s.split_by_month() == [
            DateSpan(Date(2023, 12, 31), Date(2024, 1, 1)),
            DateSpan(Date(2024, 1, 1), Date(2024, 1, 2)),
        ]

    def test_within_one_month_and_exact_month(self):
        s = DateSpan(Date(2024, 5, 3), Date(2024, 5, 9))
        assert s.split_by_month() == [s]
        m = DateSpan(Date(2024, 6, 1), Date(2024, 7, 1))
        assert m.split_by_month() == [m]

    def test_empty_and_last_month(self):
        d = Date(2024, 1, 1)
        assert DateSpan(d, d).split_by_month() == []
        s = DateSpan(Date(9999, 11, 30), Date(9999, 12, 31))
        assert s.split_by_month() == [
            DateSpan(Date(9999, 11, 30), Date(9999, 12, 1)),
            DateSpan(Date(9999, 12, 1), Date(9999, 12, 31)),
        ]

    def test_pieces_cover_a_year(self):
        pieces = DateSpan(Date(2023, 1, 1), Date(2024, 1, 1)).split_by_month()
        assert len(pieces) == 12
        assert all(a.end == b.start for a, b in zip(pieces, pieces[1:]))


class TestCountWeekday:
    def test_one_month(self):
        # July 2024: starts Monday, 31 days -> five Mondays, Tuesdays, Wednesdays
        s = DateSpan(Date(2024, 7, 1), Date(2024, 8, 1))
        assert [s.count_weekday(w) for w in range(7)] == [5, 5, 5, 4, 4, 4, 4]

    def test_short_spans(self):
        s = DateSpan(Date(2024, 7, 3), Date(2024, 7, 5))  # Wed, Thu
        assert [s.count_weekday(w) for w in range(7)] == [0, 0, 1, 1, 0, 0, 0]
        e = DateSpan(Date(2024, 7, 3), Date(2024, 7, 3))
        assert e.count_weekday(2) == 0

    def test_matches_naive_count(self):
        start, end = datetime.date(1999, 3, 17), datetime.date(2031, 8, 2)
        s = DateSpan(Date(1999, 3, 17), Date(2031, 8, 2))
        days = (end - start).days
        for w in range(7):
            expected = sum(1 for i in range(days) if (start + datetime.timedelta(days=i)).weekday() == w)
            assert s.count_weekday(w) == expected

    def test_invalid_weekday(self):
        with pytest.raises(ValueError):
            DateSpan(Date(2024, 1, 1), Date(2024, 2, 1)).count_weekday(7)
