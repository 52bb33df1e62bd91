import pytest

from structkit import LRUCache


class TestConstruction:
    def test_capacity_must_be_positive(self):
        with pytest.raises(ValueError):
            LRUCache(0)
        with pytest.raises(ValueError):
            LRUCache(-3)

    def test_empty_cache(self):
        c = LRUCache(3)
        assert len(c) == 0
        assert c.capacity == 3
        assert c.keys() == []


class TestPut:
    def test_insert_orders_most_recent_first(self):
        c = LRUCache(3)
        assert c.put("a", 1) is None
        assert c.put("b", 2) is None
        assert c.keys() == ["b", "a"]
        assert len(c) == 2

    def test_eviction_returns_lru_pair(self):
        c = LRUCache(2)
        c.put("a", 1)
        c.put("b", 2)
        assert c.put("c", 3) == ("a", 1)
        assert c.keys() == ["c", "b"]
        assert "a" not in c

    def test_update_refreshes_and_does_not_evict(self):
        c = LRUCache(2)
        c.put("a", 1)
        c.put("b", 2)
        assert c.put("a", 10) is None
        assert c.keys() == ["a", "b"]
        assert len(c) == 2
        assert c.put("c", 3) == ("b", 2)
        assert c.keys() == ["c", "a"]

    def test_capacity_one(self):
        c = LRUCache(1)
        c.put(1, "x")
        assert c.put(2, "y") == (1, "x")
        assert c.keys() == [2]

    def test_membership_does_not_touch_recency(self):
        c = LRUCache(2)
        c.put("a", 1)
        c.put("b", 2)
        assert "a" in c
        assert c.put("c", 3) == ("a", 1)


class TestGet:
    def test_get_returns_value_and_refreshes(self):
        c = LRUCache(2)
        c.put("a", 1)
        c.put("b", 2)
        assert c.get("a") == 1
        assert c.keys() == ["a", "b"]
        assert c.put("c", 3) == ("b", 2)

    def test_missing_key_returns_default(self):
        c = LRUCache(2)
        c.put("a", 1)
        assert c.get("zzz") is None
        assert c.get("zzz", 0) == 0
        assert c.keys() == ["a"]

    def test_get_updated_value(self):
        c = LRUCache(3)
        c.put("k", 1)
        c.put("k", 2)
        assert c.get("k") == 2

    def test_stored_none_is_distinguishable_with_default(self):
        c = LRUCache(2)
        c.put("n", None)
        marker = object()
        assert c.get("n", marker) is None


class TestResize:
    def test_shrink_evicts_least_recent_first(self):
        c = LRUCache(4)
        for k in "abcd":
            c.put(k, k.upper())
        c.put("a", "A")  # an update refreshes recency
        assert c.resize(2) == [("b", "B"), ("c", "C")]
        assert c.keys() == ["a", "d"]
        assert c.capacity == 2

    def test_grow_evicts_nothing(self):
        c = LRUCache(2)
        c.put(1, 1)
        c.put(2, 2)
        assert c.resize(5) == []
        c.put(3, 3)
        assert len(c) == 3
        assert c.capacity == 5

    def test_invalid_capacity_leaves_cache_unchanged(self):
        c = LRUCache(3)
        c.put("x", 1)
        with pytest.raises(ValueError):
            c.resize(0)
        assert c.capacity == 3
        assert c.keys() == ["x"]

    def test_new_capacity_applies_to_later_puts(self):
        c = LRUCache(3)
        for k in "abc":
            c.put(k, 0)
        c.resize(3)
        c.resize(1)
        assert c.keys() == ["c"]
        assert c.put("d", 0) == ("c", 0)
