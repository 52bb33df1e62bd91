import pytest

from ledger import FeeSchedule, monthly_fee


class TestMonthlyFee:
    def test_charged_without_waiver(self):
        assert monthly_fee(FeeSchedule(monthly_fee=500), [10**9] * 30) == 500

    def test_waived_when_minimum_reaches_threshold(self):
        schedule = FeeSchedule(monthly_fee=500, waiver_balance=100_000)
        assert monthly_fee(schedule, [100_000, 250_000, 100_000]) == 0

    def test_one_low_day_loses_waiver(self):
        schedule = FeeSchedule(monthly_fee=500, waiver_balance=100_000)
        assert monthly_fee(schedule, [250_000, 99_999, 250_000]) == 500

    def test_no_fee_configured(self):
        assert monthly_fee(FeeSchedule(), [-5, 0, 5]) == 0

    def test_empty_balances(self):
        with pytest.raises(ValueError):
            monthly_fee(FeeSchedule(monthly_fee=1), [])
