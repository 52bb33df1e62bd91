import pytest

from calc import evaluate_rpn, gcd, mean, tokenize


class TestTokenize:
    def test_numbers_and_operators(self):
        assert tokenize("3 4 +") == [3.0, 4.0, "+"]

    def test_decimals_and_negatives(self):
        assert tokenize("-2.5 1e3 *") == [-2.5, 1000.0, "*"]

    def test_bad_token(self):
        with pytest.raises(ValueError):
            tokenize("3 x +")


class TestRpn:
    def test_addition(self):
        assert evaluate_rpn([3.0, 4.0, "+"]) == 7.0

    def test_nested(self):
        assert evaluate_rpn([3.0, 4.0, "+", 2.0, "*"]) == 14.0

    def test_order_of_operands(self):
        assert evaluate_rpn([10.0, 4.0, "-"]) == 6.0
        assert evaluate_rpn([8.0, 2.0, "/"]) == 4.0

    def test_missing_operand(self):
        with pytest.raises(ValueError):
            evaluate_rpn([1.0, "+"])

    def test_division_by_zero(self):
        with pytest.raises(ZeroDivisionError):
            evaluate_rpn([1.0, 0.0, "/"])


class TestGcd:
    def test_basic(self):
        assert gcd(12, 18) == 6

    def test_negative_and_zero(self):
        assert gcd(-4, 6) == 2
        assert gcd(0, 0) == 0


class TestMean:
    def test_basic(self):
        assert mean([1, 2, 3, 4]) == 2.5

    def test_empty(self):
        with pytest.raises(ValueError):
            mean([])


def test_end_to_end():
    assert evaluate_rpn(tokenize("3 4 + 2 *")) == 14.0
