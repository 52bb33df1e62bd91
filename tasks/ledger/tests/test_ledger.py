import datetime as dt

import pytest

from ledger import (
    Account,
    AccountFrozenError,
    AccountKind,
    BackdatedTransactionError,
    CurrencyMismatchError,
    DuplicateAccountError,
    FeeSchedule,
    InsufficientFundsError,
    InterestAlreadyPostedError,
    InvalidAmountError,
    InvalidTransferError,
    Ledger,
    Money,
    Posting,
    Transaction,
    TxnKind,
    UnknownAccountError,
)

D = dt.date
OPEN = D(2024, 1, 1)


def usd(cents):
    return Money(cents, "USD")


def add_account(book, account_id, kind, currency="USD", cents=0, opened=OPEN, **kwargs):
    """Register an account directly (bypassing Ledger.open_account) with an opening balance."""
    acc = Account(account_id, "Owner " + account_id, kind, currency, opened, **kwargs)
    if cents:
        acc.postings.append(Posting(0, opened, Money(cents, currency), "Opening balance"))
    book.accounts[account_id] = acc
    return acc


def book(fees=None):
    b = Ledger(fees)
    add_account(b, "CHK", AccountKind.CHECKING, cents=100_000, overdraft_limit=50_000)
    add_account(b, "SAV", AccountKind.SAVINGS, cents=500_000, annual_rate_bp=200)
    add_account(b, "EUR", AccountKind.CHECKING, currency="EUR", cents=10_000)
    return b


def snapshot(b):
    return ({k: list(a.postings) for k, a in b.accounts.items()}, list(b.transactions))


class TestOpenAccount:
    def test_registers_and_returns(self):
        b = Ledger()
        acc = b.open_account("A1", "Ada", AccountKind.SAVINGS, "EUR", OPEN, annual_rate_bp=150)
        assert b.accounts["A1"] is acc
        assert (acc.owner, acc.kind, acc.currency, acc.opened_on, acc.annual_rate_bp) == (
            "Ada", AccountKind.SAVINGS, "EUR", OPEN, 150,
        )
        assert b.get_account("A1") is acc
        assert b.transactions == []

    def test_overdraft_limit(self):
        acc = Ledger().open_account("C", "Bo", AccountKind.CHECKING, "USD", OPEN, overdraft_limit=2_500)
        assert acc.overdraft_limit == 2_500 and acc.kind is AccountKind.CHECKING

    def test_duplicate(self):
        b = Ledger()
        first = b.open_account("A1", "Ada", AccountKind.CHECKING, "USD", OPEN)
        with pytest.raises(DuplicateAccountError):
            b.open_account("A1", "Eve", AccountKind.SAVINGS, "USD", OPEN)
        assert b.accounts["A1"] is first

    def test_invalid_account_not_registered(self):
        b = Ledger()
        with pytest.raises(ValueError):
            b.open_account("S1", "Ada", AccountKind.SAVINGS, "USD", OPEN, overdraft_limit=100)
        assert "S1" not in b.accounts


class TestDeposit:
    def test_credits_and_logs(self):
        b = book()
        txn = b.deposit("CHK", usd(2_550), D(2024, 1, 5), "Salary")
        assert txn == Transaction(1, D(2024, 1, 5), TxnKind.DEPOSIT, (("CHK", usd(2_550)),), "Salary")
        assert b.transactions == [txn]
        assert b.accounts["CHK"].balance() == usd(102_550)
        assert b.accounts["CHK"].postings[-1] == Posting(1, D(2024, 1, 5), usd(2_550), "Salary")

    def test_ids_are_consecutive(self):
        b = book()
        ids = [b.deposit("CHK", usd(1), D(2024, 1, 5)).txn_id for _ in range(3)]
        assert ids == [1, 2, 3]
        assert b.transactions[0].description == "Deposit"

    @pytest.mark.parametrize("amount", [usd(0), usd(-5), 5])
    def test_amount_must_be_positive_money(self, amount):
        b = book()
        with pytest.raises(InvalidAmountError):
            b.deposit("CHK", amount, D(2024, 1, 5))
        assert b.transactions == []

    def test_currency(self):
        with pytest.raises(CurrencyMismatchError):
            book().deposit("EUR", usd(100), D(2024, 1, 5))

    def test_unknown_account(self):
        with pytest.raises(UnknownAccountError):
            book().deposit("NOPE", usd(100), D(2024, 1, 5))

    def test_frozen(self):
        b = book()
        b.freeze("CHK")
        with pytest.raises(AccountFrozenError) as info:
            b.deposit("CHK", usd(100), D(2024, 1, 5))
        assert info.value.account_id == "CHK"
        b.unfreeze("CHK")
        b.deposit("CHK", usd(100), D(2024, 1, 5))
        assert b.accounts["CHK"].balance() == usd(100_100)

    def test_backdated(self):
        b = book()
        b.deposit("CHK", usd(100), D(2024, 3, 1))
        with pytest.raises(BackdatedTransactionError):
            b.deposit("SAV", usd(100), D(2024, 2, 29))
        b.deposit("SAV", usd(100), D(2024, 3, 1))  # same day is fine
        assert len(b.transactions) == 2

    def test_before_opening(self):
        with pytest.raises(BackdatedTransactionError):
            book().deposit("CHK", usd(100), D(2023, 12, 31))

    def test_error_order_amount_before_frozen(self):
        b = book()
        b.freeze("CHK")
        with pytest.raises(InvalidAmountError):
            b.deposit("CHK", usd(0), D(2024, 1, 5))


class TestWithdraw:
    def test_debits(self):
        b = book()
        txn = b.withdraw("CHK", usd(30_000), D(2024, 1, 5))
        assert txn.kind is TxnKind.WITHDRAWAL and txn.entries == (("CHK", usd(-30_000)),)
        assert txn.description == "Withdrawal"
        assert b.accounts["CHK"].balance() == usd(70_000)

    def test_into_overdraft_up_to_limit(self):
        b = book()
        b.withdraw("CHK", usd(150_000), D(2024, 1, 5))
        assert b.accounts["CHK"].balance() == usd(-50_000)

    def test_insufficient_funds(self):
        b = book()
        before = snapshot(b)
        with pytest.raises(InsufficientFundsError) as info:
            b.withdraw("CHK", usd(150_001), D(2024, 1, 5))
        assert info.value.requested == usd(150_001)
        assert info.value.available == usd(150_000)
        assert info.value.account_id == "CHK"
        assert snapshot(b) == before

    def test_savings_cannot_overdraw(self):
        with pytest.raises(InsufficientFundsError):
            book().withdraw("SAV", usd(500_001), D(2024, 1, 5))

    def test_frozen(self):
        b = book()
        b.freeze("CHK")
        with pytest.raises(AccountFrozenError):
            b.withdraw("CHK", usd(1), D(2024, 1, 5))

    def test_validation(self):
        b = book()
        with pytest.raises(InvalidAmountError):
            b.withdraw("CHK", usd(-1), D(2024, 1, 5))
        with pytest.raises(CurrencyMismatchError):
            b.withdraw("CHK", Money(1, "EUR"), D(2024, 1, 5))
        with pytest.raises(UnknownAccountError):
            b.withdraw("X", usd(1), D(2024, 1, 5))
        assert b.transactions == []

    def test_overdraft_fee(self):
        b = book(FeeSchedule(overdraft_fee=2_500))
        txn = b.withdraw("CHK", usd(120_000), D(2024, 1, 5))
        assert [t.kind for t in b.transactions] == [TxnKind.WITHDRAWAL, TxnKind.FEE]
        fee = b.transactions[1]
        assert fee == Transaction(2, D(2024, 1, 5), TxnKind.FEE, (("CHK", usd(-2_500)),), "Overdraft fee")
        assert txn.txn_id == 1
        assert b.accounts["CHK"].balance() == usd(-22_500)

    def test_overdraft_fee_may_exceed_limit(self):
        b = book(FeeSchedule(overdraft_fee=2_500))
        b.withdraw("CHK", usd(150_000), D(2024, 1, 5))
        assert b.accounts["CHK"].balance() == usd(-52_500)
        assert b.accounts["CHK"].available() == usd(0)

    def test_no_overdraft_fee_when_not_negative(self):
        b = book(FeeSchedule(overdraft_fee=2_500))
        b.withdraw("CHK", usd(100_000), D(2024, 1, 5))
        assert len(b.transactions) == 1


class TestTransfer:
    def test_moves_money(self):
        b = book()
        txn = b.transfer("CHK", "SAV", usd(40_000), D(2024, 1, 7), "Savings")
        assert txn == Transaction(1, D(2024, 1, 7), TxnKind.TRANSFER, (("CHK", usd(-40_000)), ("SAV", usd(40_000))), "Savings")
        assert b.accounts["CHK"].balance() == usd(60_000)
        assert b.accounts["SAV"].balance() == usd(540_000)
        assert b.accounts["SAV"].postings[-1].txn_id == 1

    def test_uses_overdraft(self):
        b = book()
        b.transfer("CHK", "SAV", usd(150_000), D(2024, 1, 7))
        assert b.accounts["CHK"].balance() == usd(-50_000)

    @pytest.mark.parametrize(
        "args, error",
        [
            (("CHK", "SAV", usd(150_001)), InsufficientFundsError),
            (("SAV", "CHK", usd(500_001)), InsufficientFundsError),
            (("CHK", "EUR", usd(100)), CurrencyMismatchError),
            (("EUR", "CHK", Money(100, "EUR")), CurrencyMismatchError),
            (("CHK", "CHK", usd(100)), InvalidTransferError),
            (("CHK", "NOPE", usd(100)), UnknownAccountError),
            (("NOPE", "CHK", usd(100)), UnknownAccountError),
            (("CHK", "SAV", usd(0)), InvalidAmountError),
        ],
    )
    def test_failures_change_nothing(self, args, error):
        b = book()
        before = snapshot(b)
        with pytest.raises(error):
            b.transfer(*args, D(2024, 1, 7))
        assert snapshot(b) == before

    @pytest.mark.parametrize("frozen", ["CHK", "SAV"])
    def test_frozen_either_side(self, frozen):
        b = book()
        b.freeze(frozen)
        before = snapshot(b)
        with pytest.raises(AccountFrozenError) as info:
            b.transfer("CHK", "SAV", usd(100), D(2024, 1, 7))
        assert info.value.account_id == frozen
        assert snapshot(b) == before

    def test_destination_opened_later(self):
        b = book()
        add_account(b, "NEW", AccountKind.CHECKING, opened=D(2024, 2, 1))
        before = snapshot(b)
        with pytest.raises(BackdatedTransactionError):
            b.transfer("CHK", "NEW", usd(100), D(2024, 1, 15))
        assert snapshot(b) == before

    def test_overdraft_fee_on_source(self):
        b = book(FeeSchedule(overdraft_fee=1_000))
        b.transfer("CHK", "SAV", usd(100_001), D(2024, 1, 7))
        assert [t.kind for t in b.transactions] == [TxnKind.TRANSFER, TxnKind.FEE]
        assert b.accounts["CHK"].balance() == usd(-1_001)


class TestChargeFee:
    def test_charges(self):
        b = book()
        txn = b.charge_fee("CHK", usd(1_200), D(2024, 1, 9), "Card replacement")
        assert txn == Transaction(1, D(2024, 1, 9), TxnKind.FEE, (("CHK", usd(-1_200)),), "Card replacement")
        assert b.accounts["CHK"].balance() == usd(98_800)

    def test_default_description(self):
        assert book().charge_fee("CHK", usd(1), D(2024, 1, 9)).description == "Fee"

    def test_ignores_limits_and_freeze(self):
        b = book()
        b.freeze("SAV")
        b.charge_fee("SAV", usd(600_000), D(2024, 1, 9))
        assert b.accounts["SAV"].balance() == usd(-100_000)

    def test_no_overdraft_fee_on_fees(self):
        b = book(FeeSchedule(overdraft_fee=2_500))
        b.charge_fee("CHK", usd(200_000), D(2024, 1, 9))
        assert len(b.transactions) == 1

    def test_validation(self):
        b = book()
        with pytest.raises(InvalidAmountError):
            b.charge_fee("CHK", usd(0), D(2024, 1, 9))
        with pytest.raises(CurrencyMismatchError):
            b.charge_fee("EUR", usd(1), D(2024, 1, 9))
        with pytest.raises(BackdatedTransactionError):
            b.charge_fee("CHK", usd(1), D(2023, 1, 9))
        with pytest.raises(UnknownAccountError):
            b.charge_fee("X", usd(1), D(2024, 1, 9))


def logged_book():
    """A ledger whose log is filled in directly (no operation methods used)."""
    b = book()
    b.transactions = [
        Transaction(1, D(2024, 1, 3), TxnKind.DEPOSIT, (("CHK", usd(10)),), "a"),
        Transaction(2, D(2024, 1, 5), TxnKind.TRANSFER, (("CHK", usd(-5)), ("SAV", usd(5))), "b"),
        Transaction(3, D(2024, 1, 9), TxnKind.FEE, (("SAV", usd(-1)),), "c"),
        Transaction(4, D(2024, 2, 1), TxnKind.WITHDRAWAL, (("CHK", usd(-2)),), "d"),
    ]
    return b


class TestTransactionsFor:
    def test_all_for_account(self):
        b = logged_book()
        assert [t.txn_id for t in b.transactions_for("CHK")] == [1, 2, 4]
        assert [t.txn_id for t in b.transactions_for("SAV")] == [2, 3]

    def test_date_range_inclusive(self):
        b = logged_book()
        assert [t.txn_id for t in b.transactions_for("CHK", D(2024, 1, 5), D(2024, 2, 1))] == [2, 4]
        assert [t.txn_id for t in b.transactions_for("CHK", start=D(2024, 1, 4))] == [2, 4]
        assert [t.txn_id for t in b.transactions_for("CHK", end=D(2024, 1, 4))] == [1]

    def test_none(self):
        assert logged_book().transactions_for("EUR") == []

    def test_unknown(self):
        with pytest.raises(UnknownAccountError):
            logged_book().transactions_for("X")


class TestPostMonthlyInterest:
    def test_posts_to_savings_on_last_day(self):
        b = Ledger()
        add_account(b, "S1", AccountKind.SAVINGS, cents=100_000, annual_rate_bp=365)
        add_account(b, "C1", AccountKind.CHECKING, cents=100_000)
        txns = b.post_monthly_interest(2024, 1)
        assert txns == [Transaction(1, D(2024, 1, 31), TxnKind.INTEREST, (("S1", usd(310)),), "Interest 2024-01")]
        assert b.accounts["S1"].balance() == usd(100_310)
        assert b.accounts["C1"].balance() == usd(100_000)

    def test_uses_daily_balances(self):
        b = Ledger()
        s = add_account(b, "S1", AccountKind.SAVINGS, annual_rate_bp=730)
        s.postings.append(Posting(0, D(2024, 4, 16), usd(73_000), "in"))
        # 15 of April's 30 days at 730.00: 73000 * 15 * 730 / 3650000 = 219
        assert b.post_monthly_interest(2024, 4)[0].entries == (("S1", usd(219)),)
        assert b.transactions[0].date == D(2024, 4, 30)

    def test_leap_february(self):
        b = Ledger()
        add_account(b, "S1", AccountKind.SAVINGS, cents=100_000, annual_rate_bp=365)
        txn = b.post_monthly_interest(2024, 2)[0]
        assert txn.date == D(2024, 2, 29) and txn.entries[0][1] == usd(290)
        assert txn.description == "Interest 2024-02"

    def test_zero_interest_posts_nothing(self):
        b = Ledger()
        add_account(b, "S1", AccountKind.SAVINGS, cents=10, annual_rate_bp=100)
        add_account(b, "S2", AccountKind.SAVINGS, cents=100_000)
        assert b.post_monthly_interest(2024, 1) == []
        assert b.transactions == []

    def test_frozen_still_earns_and_order_of_opening(self):
        b = Ledger()
        add_account(b, "B", AccountKind.SAVINGS, cents=100_000, annual_rate_bp=365)
        add_account(b, "A", AccountKind.SAVINGS, cents=200_000, annual_rate_bp=365)
        b.freeze("B")
        txns = b.post_monthly_interest(2024, 1)
        assert [(t.txn_id, t.entries[0]) for t in txns] == [(1, ("B", usd(310))), (2, ("A", usd(620)))]

    def test_skips_accounts_opened_later(self):
        b = Ledger()
        add_account(b, "S1", AccountKind.SAVINGS, cents=100_000, annual_rate_bp=365, opened=D(2024, 2, 1))
        assert b.post_monthly_interest(2024, 1) == []

    def test_twice(self):
        b = Ledger()
        add_account(b, "S1", AccountKind.SAVINGS, cents=100_000, annual_rate_bp=365)
        b.post_monthly_interest(2024, 1)
        with pytest.raises(InterestAlreadyPostedError):
            b.post_monthly_interest(2024, 1)
        assert len(b.transactions) == 1

    def test_backdated_month(self):
        b = Ledger()
        add_account(b, "S1", AccountKind.SAVINGS, cents=100_000, annual_rate_bp=365)
        b.transactions.append(Transaction(1, D(2024, 3, 1), TxnKind.DEPOSIT, (("S1", usd(0)),), "x"))
        with pytest.raises(BackdatedTransactionError):
            b.post_monthly_interest(2024, 1)
        assert len(b.transactions) == 1


class TestApplyMonthlyFees:
    def test_charges_checking_accounts(self):
        b = Ledger(FeeSchedule(monthly_fee=500))
        add_account(b, "C1", AccountKind.CHECKING, cents=1_000)
        add_account(b, "S1", AccountKind.SAVINGS, cents=1_000)
        txns = b.apply_monthly_fees(2024, 1)
        assert txns == [Transaction(1, D(2024, 1, 31), TxnKind.FEE, (("C1", usd(-500)),), "Monthly fee 2024-01")]
        assert b.accounts["S1"].balance() == usd(1_000)

    def test_waiver(self):
        b = Ledger(FeeSchedule(monthly_fee=500, waiver_balance=100_000))
        add_account(b, "RICH", AccountKind.CHECKING, cents=100_000)
        dipped = add_account(b, "DIP", AccountKind.CHECKING, cents=200_000, overdraft_limit=0)
        dipped.postings.append(Posting(0, D(2024, 1, 10), usd(-150_000), "out"))
        dipped.postings.append(Posting(0, D(2024, 1, 11), usd(150_000), "in"))
        txns = b.apply_monthly_fees(2024, 1)
        assert [t.entries[0][0] for t in txns] == ["DIP"]

    def test_only_days_account_was_open(self):
        b = Ledger(FeeSchedule(monthly_fee=500, waiver_balance=100_000))
        add_account(b, "NEW", AccountKind.CHECKING, cents=100_000, opened=D(2024, 1, 20))
        assert b.apply_monthly_fees(2024, 1) == []

    def test_fee_ignores_funds_and_freeze(self):
        b = Ledger(FeeSchedule(monthly_fee=500))
        add_account(b, "C1", AccountKind.CHECKING)
        b.freeze("C1")
        b.apply_monthly_fees(2024, 1)
        assert b.accounts["C1"].balance() == usd(-500)

    def test_no_fee_configured(self):
        b = Ledger()
        add_account(b, "C1", AccountKind.CHECKING)
        assert b.apply_monthly_fees(2024, 1) == []

    def test_twice(self):
        b = Ledger(FeeSchedule(monthly_fee=500))
        add_account(b, "C1", AccountKind.CHECKING)
        b.apply_monthly_fees(2024, 1)
        with pytest.raises(ValueError):
            b.apply_monthly_fees(2024, 1)
        assert len(b.transactions) == 1
