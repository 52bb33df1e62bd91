"""Accounts: what they hold, what they may spend, and their history of postings."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import Enum

from ledger.errors import BackdatedTransactionError, CurrencyMismatchError
from ledger.money import Money


class AccountKind(Enum):
    """The two kinds of account."""

    CHECKING = "checking"
    SAVINGS = "savings"


@dataclass(frozen=True)
class Posting:
    """One entry on an account: a signed ``amount`` (positive = credit, money in;
    negative = debit, money out) on a ``date``, belonging to transaction ``txn_id``."""

    txn_id: int
    date: dt.date
    amount: Money
    description: str


class Account:
    """A customer account.

    Rules enforced by the constructor (``ValueError`` otherwise): ``account_id``
    and ``owner`` are non-empty strings; ``kind`` is an :class:`AccountKind`;
    ``overdraft_limit`` (in cents) is ``>= 0`` and may be non-zero only for
    checking accounts; ``annual_rate_bp`` (annual interest rate in basis points,
    1 bp = 0.01 %) is ``>= 0`` and may be non-zero only for savings accounts.
    ``currency`` must be a valid code (see :class:`~ledger.money.Money`).

    A new account has no postings, a zero balance and is not frozen.
    """

    def __init__(
        self,
        account_id: str,
        owner: str,
        kind: AccountKind,
        currency: str,
        opened_on: dt.date,
        overdraft_limit: int = 0,
        annual_rate_bp: int = 0,
    ):
        if not isinstance(account_id, str) or not account_id:
            raise ValueError("account_id must be a non-empty string")
        if not isinstance(owner, str) or not owner:
            raise ValueError("owner must be a non-empty string")
        if not isinstance(kind, AccountKind):
            raise ValueError(f"kind must be an AccountKind, got {kind!r}")
        Money.zero(currency)  # validates the currency code
        if not isinstance(overdraft_limit, int) or overdraft_limit < 0:
            raise ValueError("overdraft_limit must be a non-negative number of cents")
        if overdraft_limit and kind is not AccountKind.CHECKING:
            raise ValueError("only checking accounts may have an overdraft limit")
        if not isinstance(annual_rate_bp, int) or annual_rate_bp < 0:
            raise ValueError("annual_rate_bp must be a non-negative integer")
        if annual_rate_bp and kind is not AccountKind.SAVINGS:
            raise ValueError("only savings accounts earn interest")
        self.account_id = account_id
        self.owner = owner
        self.kind = kind
        self.currency = currency
        self.opened_on = opened_on
        self.overdraft_limit = overdraft_limit
        self.annual_rate_bp = annual_rate_bp
        self.frozen = False
        self.postings: list[Posting] = []

    def __repr__(self) -> str:
        return f"Account({self.account_id!r}, {self.kind.value}, balance={self.balance()})"

    def balance(self) -> Money:
        """The current balance: the sum of all postings (zero without postings)."""
        return Money(sum(p.amount.cents for p in self.postings), self.currency)

    def post(self, posting: Posting) -> None:
        """Append ``posting`` to this account's history.

        Raises :class:`~ledger.errors.CurrencyMismatchError` if the posting's
        currency is not the account's, and
        :class:`~ledger.errors.BackdatedTransactionError` if its date is before
        ``opened_on`` or before the date of the last posting (postings are kept
        in chronological order; equal dates are fine). Nothing is appended when
        an error is raised. Frozen state and funds are *not* checked here.
        """
        if posting.amount.currency != self.currency:
            raise CurrencyMismatchError(
                f"account {self.account_id} holds {self.currency}, not {posting.amount.currency}"
            )
        if posting.date < self.opened_on:
            raise BackdatedTransactionError(f"{posting.date} is before account {self.account_id} was opened")
        if self.postings and posting.date < self.postings[-1].date:
            raise BackdatedTransactionError(f"{posting.date} is before the last posting {self.postings[-1].date}")
        self.postings.append(posting)

    def balance_at(self, day: dt.date) -> Money:
        """The balance at the end of ``day``: the sum of postings dated on or
        before ``day`` (zero for any day before the first posting)."""
        return Money(sum(p.amount.cents for p in self.postings if p.date <= day), self.currency)

    def available(self) -> Money:
        """What the account may spend now: ``balance + overdraft_limit``, but never
        less than zero (fees can push a balance below the overdraft limit).
        Freezing does not change it."""
        return Money(max(self.balance().cents + self.overdraft_limit, 0), self.currency)

    def daily_balances(self, start: dt.date, end: dt.date) -> list[int]:
        """The end-of-day balance, in cents, of every day from ``start`` to ``end``
        inclusive (so ``(end - start).days + 1`` values). Days before the account
        had postings have balance 0. Raises ``ValueError`` if ``end < start``.
        """
        if end < start:
            raise ValueError("end is before start")
        result = []
        balance = 0
        k = 0
        postings = self.postings
        day = start
        # postings are chronological: consume those up to each day
        while k < len(postings) and postings[k].date < start:
            balance += postings[k].amount.cents
            k += 1
        while day <= end:
            while k < len(postings) and postings[k].date <= day:
                balance += postings[k].amount.cents
                k += 1
            result.append(balance)
            day += dt.timedelta(days=1)
        return result
