"""Layer 2: list conversion helpers of lispy.datatypes."""

import pytest

from lispy.datatypes import NIL, Pair, Symbol, from_pylist, is_proper_list, to_pylist
from lispy.errors import LispTypeError


def chain(*items, tail=NIL):
    """Build a Lisp list by hand (independent of the units under test)."""
    result = tail
    for item in reversed(items):
        result = Pair(item, result)
    return result


class TestFromPylist:
    def test_empty_gives_nil(self):
        assert from_pylist([]) is NIL

    def test_builds_proper_list_in_order(self):
        lst = from_pylist([1, 2, 3])
        assert isinstance(lst, Pair)
        assert (lst.car, lst.cdr.car, lst.cdr.cdr.car) == (1, 2, 3)
        assert lst.cdr.cdr.cdr is NIL

    def test_custom_tail_makes_improper_list(self):
        lst = from_pylist([1, 2], tail=3)
        assert lst.car == 1 and lst.cdr.car == 2 and lst.cdr.cdr == 3

    def test_empty_items_return_the_tail_itself(self):
        tail = chain(9)
        assert from_pylist([], tail) is tail

    def test_accepts_any_iterable(self):
        lst = from_pylist(x * x for x in range(1, 4))
        assert (lst.car, lst.cdr.car, lst.cdr.cdr.car) == (1, 4, 9)

    def test_elements_are_not_copied(self):
        inner = chain(1)
        sym = Symbol("x")
        lst = from_pylist([inner, sym])
        assert lst.car is inner and lst.cdr.car is sym

    def test_fresh_pairs_each_call(self):
        assert from_pylist([1]) is not from_pylist([1])


class TestToPylist:
    def test_nil_gives_empty_list(self):
        assert to_pylist(NIL) == []

    def test_proper_list(self):
        assert to_pylist(chain(1, "a", Symbol("b"))) == [1, "a", Symbol("b")]

    def test_nested_lists_stay_lisp_lists(self):
        inner = chain(2, 3)
        result = to_pylist(chain(1, inner))
        assert result[1] is inner

    def test_improper_list_raises(self):
        with pytest.raises(LispTypeError, match="expected a proper list"):
            to_pylist(chain(1, 2, tail=3))

    @pytest.mark.parametrize("value", [5, "abc", Symbol("x"), True])
    def test_non_list_raises(self, value):
        with pytest.raises(LispTypeError):
            to_pylist(value)

    def test_result_is_a_new_list(self):
        lst = chain(1, 2)
        a, b = to_pylist(lst), to_pylist(lst)
        a.append(3)
        assert b == [1, 2]


class TestIsProperList:
    def test_nil_is_proper(self):
        assert is_proper_list(NIL) is True

    @pytest.mark.parametrize("n", [1, 2, 3, 10])
    def test_proper_lists(self, n):
        assert is_proper_list(chain(*range(n))) is True

    def test_improper_list(self):
        assert is_proper_list(chain(1, 2, tail=3)) is False

    def test_single_dotted_pair(self):
        assert is_proper_list(Pair(1, 2)) is False

    @pytest.mark.parametrize("value", [0, "", Symbol("nil"), False])
    def test_atoms_are_not_lists(self, value):
        assert is_proper_list(value) is False

    def test_circular_list_of_one(self):
        p = Pair(1, NIL)
        p.cdr = p
        assert is_proper_list(p) is False

    @pytest.mark.parametrize("n", [2, 3, 7])
    def test_circular_list_with_lead_in(self, n):
        lst = chain(*range(n))
        last = lst
        while last.cdr is not NIL:
            last = last.cdr
        last.cdr = lst.cdr  # cycle that does not include the head
        assert is_proper_list(lst) is False

    def test_long_list(self):
        lst = chain(*range(5000))
        assert is_proper_list(lst) is True
