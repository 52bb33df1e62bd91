import pytest

from structkit import ArrayDeque


class TestConstruction:
    def test_items_and_capacity(self):
        d = ArrayDeque([1, 2, 3])
        assert list(d) == [1, 2, 3]
        assert d.capacity == 8
        assert ArrayDeque(range(9)).capacity == 16
        assert ArrayDeque(capacity=20).capacity == 32

    def test_getitem(self):
        d = ArrayDeque("abc")
        assert d[0] == "a"
        assert d[-1] == "c"
        with pytest.raises(IndexError):
            d[3]
        with pytest.raises(TypeError):
            d["x"]


class TestAppend:
    def test_append_to_back(self):
        d = ArrayDeque()
        for i in range(5):
            d.append(i)
        assert list(d) == [0, 1, 2, 3, 4]
        assert len(d) == 5

    def test_append_grows_when_full(self):
        d = ArrayDeque(range(8))
        assert d.capacity == 8
        d.append(8)
        assert d.capacity == 16
        assert list(d) == list(range(9))
        for i in range(9, 40):
            d.append(i)
        assert list(d) == list(range(40))
        assert d.capacity == 64


class TestAppendleft:
    def test_appendleft_to_front(self):
        d = ArrayDeque()
        for i in range(5):
            d.appendleft(i)
        assert list(d) == [4, 3, 2, 1, 0]
        assert d[0] == 4

    def test_appendleft_wraps_to_last_slot(self):
        d = ArrayDeque([1, 2])
        d.appendleft(0)
        assert d._head == d.capacity - 1
        assert list(d) == [0, 1, 2]

    def test_appendleft_grows_when_full(self):
        d = ArrayDeque(range(8))
        d.appendleft(-1)
        assert d.capacity == 16
        assert list(d) == list(range(-1, 8))
        for i in range(-2, -30, -1):
            d.appendleft(i)
        assert list(d) == list(range(-29, 8))


class TestPop:
    def test_pop_from_back(self):
        d = ArrayDeque([1, 2, 3])
        assert d.pop() == 3
        assert d.pop() == 2
        assert list(d) == [1]

    def test_pop_empty(self):
        with pytest.raises(IndexError):
            ArrayDeque().pop()
        d = ArrayDeque([1])
        d.pop()
        with pytest.raises(IndexError):
            d.pop()


class TestPopleft:
    def test_popleft_from_front(self):
        d = ArrayDeque([1, 2, 3])
        assert d.popleft() == 1
        assert list(d) == [2, 3]
        assert d[0] == 2
        assert len(d) == 2

    def test_popleft_empty(self):
        with pytest.raises(IndexError):
            ArrayDeque().popleft()

    def test_popleft_all(self):
        d = ArrayDeque("xyz")
        assert [d.popleft() for _ in range(3)] == ["x", "y", "z"]
        assert len(d) == 0


class TestMixed:
    def test_queue_and_stack_usage_across_wraparound(self):
        d = ArrayDeque()
        for i in range(6):
            d.append(i)
        for _ in range(4):
            d.popleft()
        for i in range(6, 12):
            d.append(i)  # wraps around the end of the array
        assert d.capacity == 8
        assert list(d) == list(range(4, 12))
        d.append(12)  # grows while wrapped
        assert d.capacity == 16
        assert list(d) == list(range(4, 13))
        assert d.pop() == 12
        assert d.popleft() == 4
        d.appendleft("front")
        assert d[0] == "front"
        assert d[-1] == 11


class TestRotate:
    def test_rotate_right_and_left(self):
        d = ArrayDeque([1, 2, 3, 4, 5])
        d.rotate(2)
        assert list(d) == [4, 5, 1, 2, 3]
        d.rotate(-3)
        assert list(d) == [2, 3, 4, 5, 1]

    def test_default_and_large_steps(self):
        d = ArrayDeque("abc")
        d.rotate()
        assert list(d) == ["c", "a", "b"]
        d.rotate(301)  # same as rotate(1)
        assert list(d) == ["b", "c", "a"]

    def test_rotate_empty_and_capacity_unchanged(self):
        e = ArrayDeque()
        e.rotate(5)
        assert list(e) == []
        d = ArrayDeque(range(8))
        d.rotate(3)
        assert d.capacity == 8
        assert list(d) == [5, 6, 7, 0, 1, 2, 3, 4]
