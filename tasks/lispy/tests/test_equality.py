"""Layer 4: eqv? / eq? and equal?."""

import io
import math

import pytest

from lispy.builtins.equality import is_equal, is_eqv
from lispy.datatypes import NIL, VOID, Pair, Symbol
from lispy.evaluator import evaluate
from lispy.globals import standard_env
from lispy.printer import to_string
from lispy.reader import read_all


def show(source):
    env = standard_env(io.StringIO())
    value = VOID
    for form in read_all(source):
        value = evaluate(form, env)
    return to_string(value)


def check(cases):
    return pytest.mark.parametrize("source, expected", cases)


class TestEqv:
    @pytest.mark.parametrize(
        "a, b, expected",
        [
            (2, 2, True),
            (2, 2.0, False),
            (0.5, 0.5, True),
            (math.nan, math.nan, True),
            (True, True, True),
            (True, 1, False),
            (1, True, False),
            (False, 0, False),
            (0, False, False),
            (Symbol("a"), Symbol("a"), True),
            (Symbol("a"), Symbol("b"), False),
            (NIL, NIL, True),
            (NIL, False, False),
            (10**30, 10**30, True),
        ],
    )
    def test_values(self, a, b, expected):
        assert is_eqv(a, b) is expected

    def test_pairs_by_identity(self):
        p = Pair(1, NIL)
        assert is_eqv(p, p) is True
        assert is_eqv(p, Pair(1, NIL)) is False

    def test_strings_by_identity(self):
        s = "".join(["ab", "c"])
        assert is_eqv(s, s) is True
        assert is_eqv(s, "".join(["a", "bc"])) is False

    @check([("(eqv? 'x 'x)", "#t"), ("(eq? '() '())", "#t"), ("(eqv? 1 1.0)", "#f"), ("(eqv? (list 1) (list 1))", "#f"),
            ("(let ((p (list 1))) (eq? p p))", "#t"), ("(eqv? car car)", "#t"), ("(eqv? #t 1)", "#f")])
    def test_from_lisp(self, source, expected):
        assert show(source) == expected


class TestEqual:
    @pytest.mark.parametrize(
        "a, b, expected",
        [
            ("abc", "abc", True),
            ("abc", "abd", False),
            (2, 2.0, False),
            (True, 1, False),
            (Symbol("x"), Symbol("x"), True),
            (NIL, NIL, True),
            ("a", Symbol("a"), False),
        ],
    )
    def test_atoms(self, a, b, expected):
        assert is_equal(a, b) is expected

    @check([("(equal? '(1 2 (3 4)) '(1 2 (3 4)))", "#t"), ("(equal? '(1 2) '(1 2 3))", "#f"), ("(equal? '(1 . 2) '(1 . 2))", "#t"),
            ("(equal? '(1 . 2) '(1 2))", "#f"), ('(equal? "hi" (string-append "h" "i"))', "#t"), ("(equal? '(1) '(1.0))", "#f"),
            ("(equal? '((a b) \"c\" (d (e))) '((a b) \"c\" (d (e))))", "#t"), ("(equal? '() '(()))", "#f"),
            ("(equal? '(a (b)) '(a (c)))", "#f"), ("(equal? 'a 'a)", "#t")])
    def test_from_lisp(self, source, expected):
        assert show(source) == expected

    def test_long_lists(self):
        a = b = NIL
        for i in range(5000):
            a, b = Pair(i, a), Pair(i, b)
        assert is_equal(a, b) is True
        b.cdr.car = -1
        assert is_equal(a, b) is False
