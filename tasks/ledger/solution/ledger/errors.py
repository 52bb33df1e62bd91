"""The exceptions of the ledger. Every rule violation has its own type, all
derived from :class:`LedgerError`."""

from __future__ import annotations


class LedgerError(Exception):
    """Base class of every error raised by the ledger on purpose."""


class InvalidAmountError(LedgerError, ValueError):
    """An amount that is not allowed here: zero or negative where a positive amount
    is required, or text that is not a valid money amount."""


class CurrencyMismatchError(LedgerError, ValueError):
    """Two amounts (or an amount and an account) have different currencies."""


class InsufficientFundsError(LedgerError):
    """A debit exceeds what the account may spend.

    ``account_id``, ``requested`` (the debit, a ``Money``) and ``available``
    (what the account could spend, a ``Money``) describe the refusal.
    """

    def __init__(self, account_id: str, requested, available):
        self.account_id = account_id
        self.requested = requested
        self.available = available
        super().__init__(f"account {account_id}: requested {requested!r}, available {available!r}")


class AccountFrozenError(LedgerError):
    """A customer operation on a frozen account; ``account_id`` names it."""

    def __init__(self, account_id: str):
        self.account_id = account_id
        super().__init__(f"account {account_id} is frozen")


class UnknownAccountError(LedgerError, KeyError):
    """No account has this id; ``account_id`` holds it."""

    def __init__(self, account_id: str):
        self.account_id = account_id
        super().__init__(account_id)

    def __str__(self) -> str:
        return f"unknown account {self.account_id!r}"


class DuplicateAccountError(LedgerError):
    """An account with this id already exists."""


class InvalidTransferError(LedgerError, ValueError):
    """A transfer that makes no sense, e.g. from an account to itself."""


class BackdatedTransactionError(LedgerError, ValueError):
    """A transaction dated before the ledger's latest transaction, or before the
    account was opened. The ledger is append-only in time."""


class InterestAlreadyPostedError(LedgerError):
    """Monthly interest for this month has already been posted."""
