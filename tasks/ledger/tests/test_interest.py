import pytest

from ledger import monthly_interest


class TestMonthlyInterest:
    def test_constant_balance(self):
        # $1,000.00 for 31 days at 3.65 % a year: 100000 * 31 * 365 / (10000 * 365) = 310 cents
        assert monthly_interest([100_000] * 31, 365) == 310

    def test_average_daily_balance(self):
        # 15 days at 0, 15 days at $730.00, 7.30 %: 73000 * 15 * 730 / 3650000 = 219 cents
        assert monthly_interest([0] * 15 + [73_000] * 15, 730) == 219

    def test_negative_days_earn_nothing(self):
        assert monthly_interest([-50_000] * 10 + [100_000] * 21, 365) == 210

    def test_rounded_once_at_the_end(self):
        # each day earns 0.4 cents: per-day rounding would give 0, exact sum gives 12
        assert monthly_interest([4_000] * 30, 365) == 12

    def test_half_even_ties(self):
        assert monthly_interest([1], 5000, days_in_year=1) == 0   # 0.5 -> 0
        assert monthly_interest([3], 5000, days_in_year=1) == 2   # 1.5 -> 2
        assert monthly_interest([5], 5000, days_in_year=1) == 2   # 2.5 -> 2

    def test_days_in_year(self):
        assert monthly_interest([366_000], 10_000, days_in_year=366) == 1000

    def test_empty_and_zero_rate(self):
        assert monthly_interest([], 500) == 0
        assert monthly_interest([10_000] * 30, 0) == 0

    def test_invalid(self):
        with pytest.raises(ValueError):
            monthly_interest([1], -1)
        with pytest.raises(ValueError):
            monthly_interest([1], 100, days_in_year=0)
