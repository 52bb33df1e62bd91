import pytest

from structkit import BitSet


class TestBasics:
    def test_constructor_and_mask(self):
        assert BitSet([1, 3]).mask == 0b1010
        assert BitSet().mask == 0
        assert BitSet.from_mask(0b101) == BitSet([0, 2])

    def test_constructor_validation(self):
        with pytest.raises(ValueError):
            BitSet([-1])
        with pytest.raises(TypeError):
            BitSet([1.5])

    def test_len_and_set_operators(self):
        a = BitSet([1, 2, 3])
        b = BitSet([3, 4])
        assert len(a) == 3
        assert (a | b).mask == 0b11110
        assert (a & b).mask == 0b1000
        assert (a - b).mask == 0b110


class TestAdd:
    def test_add_sets_bits(self):
        b = BitSet()
        b.add(0)
        b.add(5)
        b.add(5)
        assert b.mask == 0b100001

    def test_add_large_index(self):
        b = BitSet()
        b.add(1000)
        assert b.mask == 1 << 1000

    def test_add_rejects_bad_values(self):
        b = BitSet()
        with pytest.raises(ValueError):
            b.add(-2)
        with pytest.raises(TypeError):
            b.add("3")
        with pytest.raises(TypeError):
            b.add(True)
        assert b.mask == 0


class TestDiscard:
    def test_discard_present_and_absent(self):
        b = BitSet.from_mask(0b1111)
        b.discard(1)
        assert b.mask == 0b1101
        b.discard(1)
        b.discard(100)
        assert b.mask == 0b1101

    def test_discard_validation(self):
        b = BitSet.from_mask(0b1)
        with pytest.raises(ValueError):
            b.discard(-1)
        with pytest.raises(TypeError):
            b.discard(None)
        with pytest.raises(TypeError):
            b.discard(False)
        assert b.mask == 1


class TestContains:
    def test_membership(self):
        b = BitSet.from_mask(0b10110)
        assert [i for i in range(6) if i in b] == [1, 2, 4]
        assert 200 not in b

    def test_never_raises(self):
        b = BitSet.from_mask(0b11)
        assert -1 not in b
        assert "1" not in b
        assert True not in b
        assert 1.0 not in b


class TestIter:
    def test_ascending_order(self):
        assert list(BitSet.from_mask(0b1011001)) == [0, 3, 4, 6]

    def test_empty(self):
        assert list(BitSet()) == []

    def test_sparse_large(self):
        mask = (1 << 500) | (1 << 64) | (1 << 63) | 1
        assert list(BitSet.from_mask(mask)) == [0, 63, 64, 500]


class TestNextSetBit:
    def test_next_from_various_starts(self):
        b = BitSet.from_mask(0b1010010)  # {1, 4, 6}
        assert b.next_set_bit(0) == 1
        assert b.next_set_bit(1) == 1
        assert b.next_set_bit(2) == 4
        assert b.next_set_bit(5) == 6
        assert b.next_set_bit(7) is None

    def test_empty_and_far(self):
        assert BitSet().next_set_bit(0) is None
        assert BitSet.from_mask(1 << 300).next_set_bit(3) == 300

    def test_negative_start(self):
        with pytest.raises(ValueError):
            BitSet.from_mask(1).next_set_bit(-1)
