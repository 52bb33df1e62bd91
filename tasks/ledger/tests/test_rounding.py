import pytest

from ledger import round_half_even


class TestRoundHalfEven:
    @pytest.mark.parametrize(
        "num, den, expected",
        [
            (5, 2, 2),
            (7, 2, 4),
            (1, 2, 0),
            (3, 2, 2),
            (-5, 2, -2),
            (-7, 2, -4),
            (-1, 2, 0),
            (7, 3, 2),
            (8, 3, 3),
            (-8, 3, -3),
            (-7, 3, -2),
            (10, 5, 2),
            (0, 9, 0),
            (250, 100, 2),
            (350, 100, 4),
            (251, 100, 3),
        ],
    )
    def test_values(self, num, den, expected):
        assert round_half_even(num, den) == expected

    def test_large_numbers_are_exact(self):
        assert round_half_even(10**40 + 1, 2) == 5 * 10**39
        assert round_half_even(10**40 + 3, 2) == 5 * 10**39 + 2

    @pytest.mark.parametrize("den", [0, -2])
    def test_bad_denominator(self, den):
        with pytest.raises(ValueError):
            round_half_even(1, den)

    @pytest.mark.parametrize("args", [(1.5, 2), (1, 2.0), (True, 2)])
    def test_integers_only(self, args):
        with pytest.raises(TypeError):
            round_half_even(*args)
