import pytest

from structkit import RingBuffer


class TestConstruction:
    def test_keeps_last_items(self):
        r = RingBuffer(3, range(5))
        assert r.to_list() == [2, 3, 4]
        assert r.full

    def test_invalid_capacity(self):
        with pytest.raises(ValueError):
            RingBuffer(0)


class TestAppend:
    def test_append_until_full(self):
        r = RingBuffer(3)
        assert r.append("a") is None
        assert r.append("b") is None
        assert r.to_list() == ["a", "b"]
        assert not r.full
        assert r.append("c") is None
        assert r.full
        assert len(r) == 3

    def test_overwrite_returns_oldest(self):
        r = RingBuffer(3, [1, 2, 3])
        assert r.append(4) == 1
        assert r.append(5) == 2
        assert r.to_list() == [3, 4, 5]
        assert len(r) == 3

    def test_wraps_many_times(self):
        r = RingBuffer(4)
        evicted = [r.append(i) for i in range(11)]
        assert evicted == [None] * 4 + list(range(7))
        assert r.to_list() == [7, 8, 9, 10]

    def test_capacity_one(self):
        r = RingBuffer(1)
        assert r.append("x") is None
        assert r.append("y") == "x"
        assert r.to_list() == ["y"]


class TestPopleft:
    def test_fifo_order(self):
        r = RingBuffer(3, [1, 2, 3])
        assert r.popleft() == 1
        assert r.popleft() == 2
        assert r.to_list() == [3]
        assert len(r) == 1

    def test_empty_raises(self):
        r = RingBuffer(2)
        with pytest.raises(IndexError):
            r.popleft()
        r2 = RingBuffer(2, [1])
        r2.popleft()
        with pytest.raises(IndexError):
            r2.popleft()


class TestAppendAndPopleft:
    def test_queue_behaviour_across_wrap(self):
        r = RingBuffer(3)
        r.append(1)
        r.append(2)
        assert r.popleft() == 1
        r.append(3)
        r.append(4)  # wraps into slot 0
        assert r.full
        assert r.to_list() == [2, 3, 4]
        assert r.append(5) == 2
        assert [r.popleft() for _ in range(3)] == [3, 4, 5]


class TestGetitem:
    def test_positive_and_negative(self):
        r = RingBuffer(5, "abc")
        assert r[0] == "a"
        assert r[2] == "c"
        assert r[-1] == "c"
        assert r[-3] == "a"

    def test_out_of_range(self):
        r = RingBuffer(5, "abc")
        with pytest.raises(IndexError):
            r[3]
        with pytest.raises(IndexError):
            r[-4]
        with pytest.raises(IndexError):
            RingBuffer(2)[0]

    def test_rejects_non_int(self):
        r = RingBuffer(2, [1, 2])
        with pytest.raises(TypeError):
            r[0:1]
        with pytest.raises(TypeError):
            r["0"]


class TestGetitemAfterWrap:
    def test_logical_positions_after_wrap(self):
        r = RingBuffer(3, [1, 2, 3])
        r.append(4)
        r.append(5)
        assert [r[i] for i in range(3)] == [3, 4, 5]
        assert r[-1] == 5
        assert r[-3] == 3
