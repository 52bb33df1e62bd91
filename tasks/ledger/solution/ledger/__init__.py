"""ledger: a small bank-ledger domain model.

Money is integer cents with a currency (:class:`Money`); accounts are checking
(optionally with an overdraft limit) or savings (optionally with an interest
rate); a :class:`Ledger` records deposits, withdrawals, atomic transfers, fees
and monthly interest in an append-only, chronological log, and produces
statements.

>>> import datetime as dt
>>> from ledger import AccountKind, Ledger, Money
>>> book = Ledger()
>>> _ = book.open_account("A1", "Ada", AccountKind.CHECKING, "USD", dt.date(2024, 1, 1))
>>> _ = book.deposit("A1", Money.parse("100.00 USD"), dt.date(2024, 1, 2))
>>> str(book.get_account("A1").balance())
'100.00 USD'
"""

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
    LedgerError,
    UnknownAccountError,
)
from ledger.fees import FeeSchedule, monthly_fee
from ledger.interest import monthly_interest
from ledger.ledger import Ledger, Transaction, TxnKind, month_bounds
from ledger.money import Money, format_cents
from ledger.rounding import round_half_even
from ledger.statement import Statement, StatementLine, build_statement, render_statement

__all__ = [
    "Account",
    "AccountFrozenError",
    "AccountKind",
    "BackdatedTransactionError",
    "CurrencyMismatchError",
    "DuplicateAccountError",
    "FeeSchedule",
    "InsufficientFundsError",
    "InterestAlreadyPostedError",
    "InvalidAmountError",
    "InvalidTransferError",
    "Ledger",
    "LedgerError",
    "Money",
    "Posting",
    "Statement",
    "StatementLine",
    "Transaction",
    "TxnKind",
    "UnknownAccountError",
    "build_statement",
    "format_cents",
    "month_bounds",
    "monthly_fee",
    "monthly_interest",
    "render_statement",
    "round_half_even",
]
