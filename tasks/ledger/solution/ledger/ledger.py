"""The :class:`Ledger`: accounts, the operations on them, and the transaction log."""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass
from enum import Enum

from ledger.account import Account, AccountKind, Posting
from ledger.errors import (
    AccountFrozenError,
    BackdatedTransactionError,
    CurrencyMismatchError,
    DuplicateAccountError,
    InsufficientFundsError,
    InterestAlreadyPostedError,
    InvalidAmountError,
    InvalidTransferError,
    UnknownAccountError,
)
from ledger.fees import FeeSchedule, monthly_fee
from ledger.interest import monthly_interest
from ledger.money import Money


class TxnKind(Enum):
    """What a transaction was."""

    DEPOSIT = "deposit"
    WITHDRAWAL = "withdrawal"
    TRANSFER = "transfer"
    FEE = "fee"
    INTEREST = "interest"


@dataclass(frozen=True)
class Transaction:
    """One entry of the ledger's log. ``entries`` holds ``(account_id, signed
    amount)`` pairs: one for deposits, withdrawals, fees and interest; two for a
    transfer (source debit first, then destination credit)."""

    txn_id: int
    date: dt.date
    kind: TxnKind
    entries: tuple
    description: str


def month_bounds(year: int, month: int) -> tuple[dt.date, dt.date]:
    """The first and last day of a month."""
    return dt.date(year, month, 1), dt.date(year, month, calendar.monthrange(year, month)[1])


class Ledger:
    """A set of accounts and an append-only, chronological log of transactions.

    Transaction ids are consecutive integers starting at 1, in the order the
    transactions are recorded. Every operation that takes a date ``on`` refuses
    (with :class:`~ledger.errors.BackdatedTransactionError`) a date before the
    date of the latest transaction already recorded, or before the account was
    opened. A failing operation changes nothing: no posting, no log entry, no
    id used up.

    A *frozen* account refuses customer operations (deposits, withdrawals,
    transfers in or out) but still gets fees and interest.
    """

    def __init__(self, fees: FeeSchedule | None = None):
        self.fees = fees if fees is not None else FeeSchedule()
        self.accounts: dict[str, Account] = {}
        self.transactions: list[Transaction] = []
        self.interest_posted: set[tuple[int, int]] = set()
        self.fees_applied: set[tuple[int, int]] = set()

    # ------------------------------------------------------------------ helpers

    def get_account(self, account_id: str) -> Account:
        """The account with this id; raises :class:`~ledger.errors.UnknownAccountError`."""
        try:
            return self.accounts[account_id]
        except KeyError:
            raise UnknownAccountError(account_id) from None

    def freeze(self, account_id: str) -> None:
        """Freeze an account (idempotent)."""
        self.get_account(account_id).frozen = True

    def unfreeze(self, account_id: str) -> None:
        """Unfreeze an account (idempotent)."""
        self.get_account(account_id).frozen = False

    @property
    def last_date(self) -> dt.date | None:
        """The date of the latest transaction, ``None`` for an empty ledger."""
        return self.transactions[-1].date if self.transactions else None

    def _check_date(self, account: Account, on: dt.date) -> None:
        if self.last_date is not None and on < self.last_date:
            raise BackdatedTransactionError(f"{on} is before the latest transaction ({self.last_date})")
        if on < account.opened_on:
            raise BackdatedTransactionError(f"{on} is before account {account.account_id} was opened")

    @staticmethod
    def _check_amount(account: Account, amount: Money) -> None:
        if not isinstance(amount, Money):
            raise InvalidAmountError(f"not a Money amount: {amount!r}")
        if amount.cents <= 0:
            raise InvalidAmountError(f"amount must be positive, got {amount!r}")
        if amount.currency != account.currency:
            raise CurrencyMismatchError(f"account {account.account_id} holds {account.currency}, not {amount.currency}")

    def _record(self, on: dt.date, kind: TxnKind, entries: list[tuple[Account, Money]], description: str) -> Transaction:
        txn = Transaction(
            txn_id=len(self.transactions) + 1,
            date=on,
            kind=kind,
            entries=tuple((acc.account_id, amt) for acc, amt in entries),
            description=description,
        )
        for acc, amt in entries:
            acc.post(Posting(txn.txn_id, on, amt, description))
        self.transactions.append(txn)
        return txn

    def _overdraft_fee(self, account: Account, on: dt.date) -> None:
        if self.fees.overdraft_fee > 0 and account.balance().is_negative:
            self._record(on, TxnKind.FEE, [(account, Money(-self.fees.overdraft_fee, account.currency))], "Overdraft fee")

    # --------------------------------------------------------------- operations

    def open_account(
        self,
        account_id: str,
        owner: str,
        kind: AccountKind,
        currency: str,
        opened_on: dt.date,
        overdraft_limit: int = 0,
        annual_rate_bp: int = 0,
    ) -> Account:
        """Create an :class:`~ledger.account.Account` (see its rules), register it
        under ``account_id`` and return it. Opening records no transaction.

        Raises :class:`~ledger.errors.DuplicateAccountError` if the id is taken
        (the existing account is left alone); constructor errors (``ValueError``)
        propagate and register nothing.
        """
        if account_id in self.accounts:
            raise DuplicateAccountError(f"account {account_id!r} already exists")
        account = Account(account_id, owner, kind, currency, opened_on, overdraft_limit, annual_rate_bp)
        self.accounts[account_id] = account
        return account

    def deposit(self, account_id: str, amount: Money, on: dt.date, description: str = "Deposit") -> Transaction:
        """Credit ``amount`` to the account and return the DEPOSIT transaction.

        Checks, in this order: the account exists
        (:class:`~ledger.errors.UnknownAccountError`); ``amount`` is a ``Money``
        greater than zero (:class:`~ledger.errors.InvalidAmountError`) in the
        account's currency (:class:`~ledger.errors.CurrencyMismatchError`); the
        account is not frozen (:class:`~ledger.errors.AccountFrozenError`); the
        date is allowed (:class:`~ledger.errors.BackdatedTransactionError`, see
        the class docstring). The transaction has one entry
        ``(account_id, amount)``.
        """
        account = self.get_account(account_id)
        self._check_amount(account, amount)
        if account.frozen:
            raise AccountFrozenError(account_id)
        self._check_date(account, on)
        return self._record(on, TxnKind.DEPOSIT, [(account, amount)], description)

    def withdraw(self, account_id: str, amount: Money, on: dt.date, description: str = "Withdrawal") -> Transaction:
        """Debit ``amount`` from the account and return the WITHDRAWAL transaction.

        Same checks, in the same order, as :meth:`deposit`, then: ``amount`` must
        not exceed :meth:`Account.available() <ledger.account.Account.available>`
        (:class:`~ledger.errors.InsufficientFundsError` carrying the requested
        and available amounts). The transaction has one entry
        ``(account_id, -amount)``.

        If the balance is then below zero and the fee schedule has a positive
        ``overdraft_fee``, a separate FEE transaction of ``-overdraft_fee``
        described ``"Overdraft fee"`` is recorded right after, on the same date
        (the fee may take the balance past the overdraft limit).
        """
        account = self.get_account(account_id)
        self._check_amount(account, amount)
        if account.frozen:
            raise AccountFrozenError(account_id)
        self._check_date(account, on)
        available = account.available()
        if amount > available:
            raise InsufficientFundsError(account_id, amount, available)
        txn = self._record(on, TxnKind.WITHDRAWAL, [(account, -amount)], description)
        self._overdraft_fee(account, on)
        return txn

    def transfer(
        self, from_id: str, to_id: str, amount: Money, on: dt.date, description: str = "Transfer"
    ) -> Transaction:
        """Move ``amount`` from one account to another, atomically, and return the
        TRANSFER transaction.

        Checks, all before anything changes, in this order: both accounts exist
        (``UnknownAccountError``, source first); they are different accounts
        (:class:`~ledger.errors.InvalidTransferError`); ``amount`` is a positive
        ``Money`` (``InvalidAmountError``) whose currency is that of both accounts
        (``CurrencyMismatchError``); neither account is frozen
        (``AccountFrozenError``, source first); the date is allowed for both
        (``BackdatedTransactionError``); the amount does not exceed the source's
        available funds (``InsufficientFundsError``). If any check fails, no
        account and no log entry changes.

        The transaction's entries are ``(from_id, -amount)`` then
        ``(to_id, amount)``. As for :meth:`withdraw`, an overdraft fee follows if
        the source balance ends below zero.
        """
        source = self.get_account(from_id)
        target = self.get_account(to_id)
        if from_id == to_id:
            raise InvalidTransferError("cannot transfer to the same account")
        self._check_amount(source, amount)
        self._check_amount(target, amount)
        for acc in (source, target):
            if acc.frozen:
                raise AccountFrozenError(acc.account_id)
        self._check_date(source, on)
        self._check_date(target, on)
        available = source.available()
        if amount > available:
            raise InsufficientFundsError(from_id, amount, available)
        txn = self._record(on, TxnKind.TRANSFER, [(source, -amount), (target, amount)], description)
        self._overdraft_fee(source, on)
        return txn

    def charge_fee(self, account_id: str, amount: Money, on: dt.date, description: str = "Fee") -> Transaction:
        """Debit a fee of ``amount`` and return the FEE transaction (one entry
        ``(account_id, -amount)``).

        Checks: the account exists, ``amount`` is a positive ``Money`` in the
        account's currency, the date is allowed (same errors as :meth:`deposit`).
        Fees are charged to frozen accounts too, and they ignore available funds:
        a fee may take the balance below the overdraft limit. No overdraft fee is
        added for a fee.
        """
        account = self.get_account(account_id)
        self._check_amount(account, amount)
        self._check_date(account, on)
        return self._record(on, TxnKind.FEE, [(account, -amount)], description)

    def transactions_for(
        self, account_id: str, start: dt.date | None = None, end: dt.date | None = None
    ) -> list[Transaction]:
        """The transactions that have an entry for ``account_id``, in log order,
        restricted to ``start <= date <= end`` (either bound may be ``None`` for
        no limit). Raises ``UnknownAccountError`` for an unknown account."""
        self.get_account(account_id)
        return [
            t
            for t in self.transactions
            if any(aid == account_id for aid, _ in t.entries)
            and (start is None or t.date >= start)
            and (end is None or t.date <= end)
        ]

    def post_monthly_interest(self, year: int, month: int) -> list[Transaction]:
        """Post one month of interest to every savings account and return the new
        INTEREST transactions.

        For each savings account with a positive ``annual_rate_bp``, in the order
        the accounts were opened, the interest is
        :func:`~ledger.interest.monthly_interest` of the account's daily balances
        over the whole month (:meth:`Account.daily_balances
        <ledger.account.Account.daily_balances>`; days before opening count as 0)
        at the account's rate, 365-day year. A positive interest is posted as a
        credit dated the last day of the month, described
        ``"Interest YYYY-MM"`` (e.g. ``"Interest 2024-02"``); zero interest posts
        nothing. Frozen accounts earn interest too; accounts opened after the
        month are skipped.

        Raises :class:`~ledger.errors.InterestAlreadyPostedError` if interest for
        this year and month was already posted, and ``BackdatedTransactionError``
        if the last day of the month is before the latest transaction; in both
        cases nothing is posted.
        """
        if (year, month) in self.interest_posted:
            raise InterestAlreadyPostedError(f"interest for {year}-{month:02d} already posted")
        first, last = month_bounds(year, month)
        if self.last_date is not None and last < self.last_date:
            raise BackdatedTransactionError(f"{last} is before the latest transaction ({self.last_date})")
        posted = []
        for account in list(self.accounts.values()):
            if account.kind is not AccountKind.SAVINGS or account.annual_rate_bp <= 0:
                continue
            if account.opened_on > last:
                continue
            cents = monthly_interest(account.daily_balances(first, last), account.annual_rate_bp)
            if cents > 0:
                posted.append(
                    self._record(
                        last, TxnKind.INTEREST, [(account, Money(cents, account.currency))],
                        f"Interest {year:04d}-{month:02d}",
                    )
                )
        self.interest_posted.add((year, month))
        return posted

    def apply_monthly_fees(self, year: int, month: int) -> list[Transaction]:
        """Charge the month's maintenance fee to every checking account and return
        the new FEE transactions.

        For each checking account opened on or before the last day of the month,
        in the order the accounts were opened, the fee is
        :func:`~ledger.fees.monthly_fee` of the ledger's fee schedule and the
        account's daily balances for the days of the month on which it was open.
        A positive fee is posted as a debit dated the last day of the month,
        described ``"Monthly fee YYYY-MM"``; frozen accounts are charged too.
        Fees ignore available funds.

        Raises ``ValueError`` if fees for this year and month were already
        applied, and ``BackdatedTransactionError`` if the last day of the month
        is before the latest transaction; in both cases nothing is posted.
        """
        if (year, month) in self.fees_applied:
            raise ValueError(f"fees for {year}-{month:02d} already applied")
        first, last = month_bounds(year, month)
        if self.last_date is not None and last < self.last_date:
            raise BackdatedTransactionError(f"{last} is before the latest transaction ({self.last_date})")
        posted = []
        for account in list(self.accounts.values()):
            if account.kind is not AccountKind.CHECKING or account.opened_on > last:
                continue
            balances = account.daily_balances(max(first, account.opened_on), last)
            cents = monthly_fee(self.fees, balances)
            if cents > 0:
                posted.append(
                    self._record(
                        last, TxnKind.FEE, [(account, Money(-cents, account.currency))],
                        f"Monthly fee {year:04d}-{month:02d}",
                    )
                )
        self.fees_applied.add((year, month))
        return posted
