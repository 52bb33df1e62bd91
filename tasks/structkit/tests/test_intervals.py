import pytest

from structkit import IntervalSet, merge_intervals


class TestMergeIntervals:
    def test_merges_overlapping_and_touching(self):
        assert merge_intervals([(5, 7), (1, 3), (2, 4), (7, 8)]) == [(1, 4), (5, 8)]

    def test_drops_empty_intervals(self):
        assert merge_intervals([(3, 3), (1, 2), (9, 9)]) == [(1, 2)]

    def test_nested_intervals(self):
        assert merge_intervals([(0, 10), (2, 3), (4, 12)]) == [(0, 12)]

    def test_invalid_interval_raises(self):
        with pytest.raises(ValueError):
            merge_intervals([(1, 2), (5, 4)])

    def test_empty_input_and_generator(self):
        assert merge_intervals([]) == []
        assert merge_intervals((i, i + 1) for i in range(0, 6, 2)) == [(0, 1), (2, 3), (4, 5)]

    def test_negative_numbers(self):
        assert merge_intervals([(-5, -1), (-1, 0), (2, 3)]) == [(-5, 0), (2, 3)]


class TestAdd:
    def test_add_disjoint_keeps_order(self):
        s = IntervalSet()
        s.add(10, 12)
        s.add(0, 2)
        s.add(5, 6)
        assert s.intervals() == [(0, 2), (5, 6), (10, 12)]

    def test_add_bridging_interval_merges_several(self):
        s = IntervalSet()
        for a, b in [(0, 2), (4, 6), (8, 10), (20, 30)]:
            s.add(a, b)
        s.add(1, 9)
        assert s.intervals() == [(0, 10), (20, 30)]

    def test_touching_intervals_merge(self):
        s = IntervalSet()
        s.add(0, 5)
        s.add(5, 7)
        s.add(-2, 0)
        assert s.intervals() == [(-2, 7)]

    def test_add_contained_interval_is_noop(self):
        s = IntervalSet()
        s.add(0, 10)
        s.add(3, 4)
        assert s.intervals() == [(0, 10)]

    def test_add_empty_and_invalid(self):
        s = IntervalSet()
        s.add(3, 3)
        assert s.intervals() == []
        with pytest.raises(ValueError):
            s.add(4, 1)


class TestRemove:
    def test_split_interval(self):
        s = IntervalSet([(0, 10)])
        s.remove(3, 5)
        assert s.intervals() == [(0, 3), (5, 10)]

    def test_trim_edges_across_intervals(self):
        s = IntervalSet([(0, 5), (8, 12), (20, 25)])
        s.remove(3, 22)
        assert s.intervals() == [(0, 3), (22, 25)]

    def test_remove_exact_and_uncovered(self):
        s = IntervalSet([(0, 5), (10, 15)])
        s.remove(10, 15)
        s.remove(6, 9)
        assert s.intervals() == [(0, 5)]

    def test_remove_touching_boundaries_changes_nothing(self):
        s = IntervalSet([(5, 10)])
        s.remove(0, 5)
        s.remove(10, 20)
        assert s.intervals() == [(5, 10)]

    def test_remove_empty_and_invalid(self):
        s = IntervalSet([(0, 10)])
        s.remove(5, 5)
        assert s.intervals() == [(0, 10)]
        with pytest.raises(ValueError):
            s.remove(9, 1)


class TestContains:
    def test_half_open_bounds(self):
        s = IntervalSet([(0, 3), (10, 12)])
        assert 0 in s
        assert 2 in s
        assert 3 not in s
        assert 10 in s
        assert 12 not in s
        assert -1 not in s
        assert 100 not in s

    def test_empty_set(self):
        assert 0 not in IntervalSet()

    def test_fractional_points(self):
        s = IntervalSet([(0, 3)])
        assert 2.5 in s
        assert 3.0 not in s


class TestGaps:
    def test_gaps_inside_window(self):
        s = IntervalSet([(2, 4), (6, 8)])
        assert s.gaps(0, 10) == [(0, 2), (4, 6), (8, 10)]

    def test_window_clipped_by_intervals(self):
        s = IntervalSet([(0, 5), (7, 20)])
        assert s.gaps(3, 10) == [(5, 7)]

    def test_fully_covered_and_empty_window(self):
        s = IntervalSet([(0, 100)])
        assert s.gaps(10, 20) == []
        assert s.gaps(5, 5) == []

    def test_empty_set_gap_is_window(self):
        assert IntervalSet().gaps(-3, 3) == [(-3, 3)]

    def test_invalid_window(self):
        with pytest.raises(ValueError):
            IntervalSet().gaps(5, 1)
