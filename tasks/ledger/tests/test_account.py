import datetime as dt

import pytest

from ledger import Account, AccountKind, BackdatedTransactionError, CurrencyMismatchError, Money, Posting

D = dt.date


def checking(limit=0):
    return Account("C1", "Ada", AccountKind.CHECKING, "USD", D(2024, 1, 1), overdraft_limit=limit)


def seeded(*entries, limit=0):
    """A checking account with postings appended directly: (date, cents) pairs."""
    acc = checking(limit)
    for k, (day, cents) in enumerate(entries, start=1):
        acc.postings.append(Posting(k, day, Money(cents, "USD"), f"p{k}"))
    return acc


class TestAccountRules:
    def test_new_account(self):
        acc = checking()
        assert acc.balance() == Money(0, "USD")
        assert acc.postings == [] and acc.frozen is False

    @pytest.mark.parametrize(
        "kwargs",
        [
            {"account_id": ""},
            {"owner": ""},
            {"kind": "checking"},
            {"currency": "usd"},
            {"overdraft_limit": -1},
            {"kind": AccountKind.SAVINGS, "overdraft_limit": 100},
            {"annual_rate_bp": 100},
            {"kind": AccountKind.SAVINGS, "annual_rate_bp": -5},
        ],
    )
    def test_invalid(self, kwargs):
        args = dict(account_id="X", owner="O", kind=AccountKind.CHECKING, currency="USD", opened_on=D(2024, 1, 1))
        args.update(kwargs)
        with pytest.raises(ValueError):
            Account(**args)


class TestPost:
    def test_appends_in_order(self):
        acc = checking()
        p1 = Posting(1, D(2024, 1, 2), Money(500, "USD"), "in")
        p2 = Posting(2, D(2024, 1, 2), Money(-200, "USD"), "out")
        acc.post(p1)
        acc.post(p2)
        assert acc.postings == [p1, p2]
        assert acc.balance() == Money(300, "USD")

    def test_currency_mismatch(self):
        acc = checking()
        with pytest.raises(CurrencyMismatchError):
            acc.post(Posting(1, D(2024, 1, 2), Money(500, "EUR"), "in"))
        assert acc.postings == []

    def test_before_opening(self):
        acc = checking()
        with pytest.raises(BackdatedTransactionError):
            acc.post(Posting(1, D(2023, 12, 31), Money(500, "USD"), "in"))
        assert acc.postings == []

    def test_before_last_posting(self):
        acc = checking()
        acc.post(Posting(1, D(2024, 2, 1), Money(500, "USD"), "in"))
        with pytest.raises(BackdatedTransactionError):
            acc.post(Posting(2, D(2024, 1, 31), Money(500, "USD"), "in"))
        assert len(acc.postings) == 1

    def test_no_funds_or_freeze_checks(self):
        acc = checking()
        acc.frozen = True
        acc.post(Posting(1, D(2024, 1, 1), Money(-10_000, "USD"), "fee"))
        assert acc.balance() == Money(-10_000, "USD")


class TestBalanceAt:
    def test_end_of_day_balances(self):
        acc = seeded((D(2024, 1, 2), 1000), (D(2024, 1, 2), -300), (D(2024, 1, 10), 50))
        assert acc.balance_at(D(2024, 1, 1)) == Money(0, "USD")
        assert acc.balance_at(D(2024, 1, 2)) == Money(700, "USD")
        assert acc.balance_at(D(2024, 1, 9)) == Money(700, "USD")
        assert acc.balance_at(D(2024, 1, 10)) == Money(750, "USD")
        assert acc.balance_at(D(2030, 1, 1)) == Money(750, "USD")

    def test_before_opening_is_zero(self):
        assert seeded((D(2024, 1, 1), 5)).balance_at(D(1999, 1, 1)) == Money(0, "USD")

    def test_returns_money_in_account_currency(self):
        acc = Account("S", "O", AccountKind.SAVINGS, "EUR", D(2024, 1, 1))
        assert acc.balance_at(D(2024, 1, 1)) == Money(0, "EUR")


class TestAvailable:
    def test_balance_plus_limit(self):
        assert seeded((D(2024, 1, 1), 1000), limit=500).available() == Money(1500, "USD")

    def test_overdrawn_within_limit(self):
        assert seeded((D(2024, 1, 1), -200), limit=500).available() == Money(300, "USD")

    def test_never_negative(self):
        assert seeded((D(2024, 1, 1), -700), limit=500).available() == Money(0, "USD")

    def test_savings_has_no_overdraft(self):
        acc = Account("S", "O", AccountKind.SAVINGS, "USD", D(2024, 1, 1))
        acc.postings.append(Posting(1, D(2024, 1, 1), Money(250, "USD"), "in"))
        assert acc.available() == Money(250, "USD")

    def test_frozen_does_not_matter(self):
        acc = seeded((D(2024, 1, 1), 100))
        acc.frozen = True
        assert acc.available() == Money(100, "USD")


class TestDailyBalances:
    def test_days_inclusive(self):
        acc = seeded((D(2024, 1, 2), 100), (D(2024, 1, 4), -30), (D(2024, 1, 4), 5))
        assert acc.daily_balances(D(2024, 1, 1), D(2024, 1, 5)) == [0, 100, 100, 75, 75]

    def test_start_after_postings(self):
        acc = seeded((D(2024, 1, 2), 100), (D(2024, 1, 20), 1))
        assert acc.daily_balances(D(2024, 1, 10), D(2024, 1, 12)) == [100, 100, 100]

    def test_single_day(self):
        assert seeded((D(2024, 1, 2), 100)).daily_balances(D(2024, 1, 2), D(2024, 1, 2)) == [100]

    def test_length_of_month(self):
        assert len(checking().daily_balances(D(2024, 2, 1), D(2024, 2, 29))) == 29

    def test_end_before_start(self):
        with pytest.raises(ValueError):
            checking().daily_balances(D(2024, 1, 2), D(2024, 1, 1))
