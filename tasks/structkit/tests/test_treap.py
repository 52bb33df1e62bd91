import random

import pytest

from structkit import Treap


def build(keys, seed=0):
    t = Treap(seed=seed)
    for k in keys:
        t.insert(k, f"v{k}")
    return t


class TestInsert:
    def test_insert_returns_newness_and_orders_keys(self):
        t = Treap(seed=1)
        assert t.insert(5, "five") is True
        assert t.insert(1, "one") is True
        assert t.insert(9) is True
        assert t.insert(5, "FIVE") is False
        assert list(t) == [1, 5, 9]
        assert len(t) == 3
        assert t.get(5) == "FIVE"
        assert t.get(9) is None
        t.validate()

    def test_invariants_hold_after_many_inserts(self):
        rng = random.Random(42)
        keys = rng.sample(range(10_000), 500)
        t = build(keys, seed=3)
        t.validate()
        assert list(t) == sorted(keys)
        assert len(t) == 500

    def test_sorted_input_stays_balanced(self):
        t = build(range(1000), seed=5)
        t.validate()
        assert t.height() < 40

    def test_update_does_not_draw_priority(self):
        a = build([3, 1, 2], seed=9)
        b = build([3, 1, 2], seed=9)
        b.insert(1, "again")
        a.insert(4)
        b.insert(4)
        assert a.structure() == b.structure()

    def test_same_seed_same_shape(self):
        a = build([5, 3, 8, 1, 4, 7, 9], seed=21)
        b = build([5, 3, 8, 1, 4, 7, 9], seed=21)
        assert a.structure() == b.structure()
        assert a.structure()[0] in {1, 3, 4, 5, 7, 8, 9}

    def test_string_keys(self):
        t = build(["pear", "apple", "fig"])
        assert list(t) == ["apple", "fig", "pear"]
        t.validate()


class TestDelete:
    def test_delete_returns_value(self):
        t = build([4, 2, 6, 1, 3])
        assert t.delete(2) == "v2"
        assert list(t) == [1, 3, 4, 6]
        assert len(t) == 4
        t.validate()

    def test_missing_key_raises(self):
        t = build([1, 2])
        with pytest.raises(KeyError):
            t.delete(7)
        with pytest.raises(KeyError):
            Treap().delete(0)
        assert len(t) == 2

    def test_delete_everything_in_random_order(self):
        rng = random.Random(11)
        keys = list(range(300))
        t = build(keys, seed=2)
        rng.shuffle(keys)
        for i, k in enumerate(keys):
            t.delete(k)
            if i % 50 == 0:
                t.validate()
        assert len(t) == 0
        assert list(t) == []

    def test_reinsert_after_delete(self):
        t = build([1, 2, 3])
        t.delete(2)
        assert t.insert(2, "new") is True
        assert t.get(2) == "new"
        t.validate()


class TestKth:
    def test_kth_in_order(self):
        keys = [50, 20, 80, 10, 30, 70, 90]
        t = build(keys)
        assert [t.kth(i) for i in range(7)] == sorted(keys)

    def test_negative_index(self):
        t = build([3, 1, 2])
        assert t.kth(-1) == 3
        assert t.kth(-3) == 1

    def test_out_of_range(self):
        t = build([1, 2])
        with pytest.raises(IndexError):
            t.kth(2)
        with pytest.raises(IndexError):
            t.kth(-3)
        with pytest.raises(IndexError):
            Treap().kth(0)

    def test_kth_large(self):
        t = build(range(0, 2000, 2), seed=8)
        assert t.kth(500) == 1000
        assert t.kth(999) == 1998


class TestRank:
    def test_rank_of_present_and_absent_keys(self):
        t = build([10, 20, 30, 40])
        assert t.rank(10) == 0
        assert t.rank(25) == 2
        assert t.rank(40) == 3
        assert t.rank(99) == 4
        assert t.rank(-5) == 0

    def test_rank_empty(self):
        assert Treap().rank(1) == 0

    def test_rank_matches_bisect(self):
        import bisect

        rng = random.Random(4)
        keys = sorted(rng.sample(range(1000), 200))
        t = build(keys, seed=4)
        for probe in range(0, 1000, 37):
            assert t.rank(probe) == bisect.bisect_left(keys, probe)


class TestFloor:
    def test_floor(self):
        t = build([10, 20, 30])
        assert t.floor(20) == 20
        assert t.floor(25) == 20
        assert t.floor(100) == 30
        assert t.floor(9) is None

    def test_floor_empty(self):
        assert Treap().floor(0) is None


class TestCeiling:
    def test_ceiling(self):
        t = build([10, 20, 30])
        assert t.ceiling(20) == 20
        assert t.ceiling(21) == 30
        assert t.ceiling(-1) == 10
        assert t.ceiling(31) is None

    def test_ceiling_empty(self):
        assert Treap().ceiling(0) is None
