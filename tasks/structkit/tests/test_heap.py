import pytest

from structkit import BinaryHeap


def is_heap(arr, key=lambda x: x):
    return all(not key(arr[i]) < key(arr[(i - 1) // 2]) for i in range(1, len(arr)))


class TestPush:
    def test_push_keeps_minimum_at_root(self):
        h = BinaryHeap()
        for x in [5, 3, 8, 1, 9, 2]:
            h.push(x)
            assert is_heap(h.as_list())
        assert h.peek() == 1
        assert len(h) == 6

    def test_push_exact_layout(self):
        h = BinaryHeap()
        for x in [5, 3, 8, 1]:
            h.push(x)
        # 5 -> [5]; 3 -> [3,5]; 8 -> [3,5,8]; 1 sifts past 5 and 3
        assert h.as_list() == [1, 3, 8, 5]

    def test_equal_keys_do_not_swap(self):
        h = BinaryHeap(key=lambda p: p[0])
        h.push((1, "first"))
        h.push((1, "second"))
        assert h.as_list() == [(1, "first"), (1, "second")]

    def test_push_with_key(self):
        h = BinaryHeap(key=len)
        for w in ["banana", "fig", "apple", "kiwi"]:
            h.push(w)
        assert h.peek() == "fig"
        assert is_heap(h.as_list(), key=len)


class TestPop:
    def test_pop_returns_sorted_order(self):
        h = BinaryHeap()
        data = [7, 2, 9, 4, 4, 1, 8, 3]
        for x in data:
            h.push(x)
        assert [h.pop() for _ in range(len(data))] == sorted(data)
        assert len(h) == 0

    def test_pop_empty_raises(self):
        with pytest.raises(IndexError):
            BinaryHeap().pop()

    def test_pop_exact_layout(self):
        h = BinaryHeap()
        for x in [1, 3, 2, 7, 4, 5]:
            h.push(x)
        assert h.as_list() == [1, 3, 2, 7, 4, 5]
        assert h.pop() == 1
        # 5 moves to the root, swaps with 2 (smaller child), stops at a leaf
        assert h.as_list() == [2, 3, 5, 7, 4]

    def test_pop_prefers_left_child_on_tie(self):
        h = BinaryHeap(key=lambda p: p[0])
        for item in [(0, "root"), (2, "L"), (2, "R"), (5, "x")]:
            h.push(item)
        assert h.pop() == (0, "root")
        assert h.as_list() == [(2, "L"), (5, "x"), (2, "R")]

    def test_pop_single_element(self):
        h = BinaryHeap()
        h.push("only")
        assert h.pop() == "only"
        assert h.as_list() == []

    def test_interleaved_push_pop_with_key(self):
        h = BinaryHeap(key=lambda x: -x)  # max-heap
        for x in [3, 10, 6]:
            h.push(x)
        assert h.pop() == 10
        h.push(7)
        h.push(1)
        assert [h.pop() for _ in range(4)] == [7, 6, 3, 1]


class TestFromIterable:
    def test_builds_valid_heap(self):
        data = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
        h = BinaryHeap.from_iterable(data)
        assert is_heap(h.as_list())
        assert sorted(h.as_list()) == sorted(data)
        assert h.peek() == 0
        assert data == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]  # input untouched

    def test_floyd_layout(self):
        h = BinaryHeap.from_iterable([5, 4, 3, 2, 1])
        # node 1 (4) swaps with child 1; then root 5 sifts down: 5<->1, 5<->2
        assert h.as_list() == [1, 2, 3, 5, 4]

    def test_empty_and_single(self):
        assert BinaryHeap.from_iterable([]).as_list() == []
        assert BinaryHeap.from_iterable(iter([42])).as_list() == [42]

    def test_key_is_used(self):
        h = BinaryHeap.from_iterable(["ccc", "a", "bb", "dddd"], key=len)
        assert h.peek() == "a"
        assert is_heap(h.as_list(), key=len)

    def test_larger_input(self):
        import random

        rng = random.Random(7)
        data = [rng.randrange(100) for _ in range(200)]
        h = BinaryHeap.from_iterable(data)
        assert is_heap(h.as_list())
        assert len(h) == 200
