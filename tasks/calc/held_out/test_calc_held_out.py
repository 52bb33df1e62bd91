"""Held-out tests of calc: never copied into the workspace, scored only by the scorer.

They check the documented behaviour on inputs the visible tests do not use, so that code
written to the visible tests alone (or returning their expected values) does not pass.
"""

import math

import pytest

from calc import evaluate_rpn, gcd, mean, tokenize


class TestTokenizeHeldOut:
    def test_whitespace_of_any_kind(self):
        assert tokenize("\t1  2\n-\n") == [1.0, 2.0, "-"]

    def test_every_operator(self):
        assert tokenize("+ - * /") == ["+", "-", "*", "/"]

    def test_empty_text(self):
        assert tokenize("   ") == []

    def test_numbers_are_floats(self):
        assert all(type(t) is float for t in tokenize("7 0.5 -3 2e-2"))

    @pytest.mark.parametrize("text", ["1 2 ^", "1 2 ++", "abc", "1,5"])
    def test_bad_tokens(self, text):
        with pytest.raises(ValueError):
            tokenize(text)


class TestRpnHeldOut:
    def test_single_number(self):
        assert evaluate_rpn([42.0]) == 42.0

    def test_left_operand_first(self):
        assert evaluate_rpn([2.0, 8.0, "/"]) == 0.25
        assert evaluate_rpn([2.0, 8.0, "-"]) == -6.0

    def test_long_expression(self):
        tokens = tokenize("1 2 + 3 4 + * 5 -")
        assert evaluate_rpn(tokens) == 16.0

    def test_leftover_operands(self):
        with pytest.raises(ValueError):
            evaluate_rpn([1.0, 2.0])

    def test_empty(self):
        with pytest.raises(ValueError):
            evaluate_rpn([])


class TestGcdHeldOut:
    @pytest.mark.parametrize(("a", "b"), [(48, 36), (17, 5), (0, 9), (-12, -18), (10**12, 10**9)])
    def test_matches_math_gcd(self, a, b):
        assert gcd(a, b) == math.gcd(a, b)

    def test_symmetric(self):
        assert gcd(84, 60) == gcd(60, 84) == 12


class TestMeanHeldOut:
    def test_single_value(self):
        assert mean([3]) == 3

    def test_negative_and_fractional(self):
        assert mean([-1, 0.5, 4]) == pytest.approx(1.1666666666666667)

    def test_large_values(self):
        assert mean([10**6, 10**6 + 2]) == 10**6 + 1
