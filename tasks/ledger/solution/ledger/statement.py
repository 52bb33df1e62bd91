"""Account statements: a period's opening balance, lines and closing balance."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ledger.account import Account
from ledger.money import Money, format_cents


@dataclass(frozen=True)
class StatementLine:
    """One posting on a statement with the running ``balance`` after it."""

    date: dt.date
    description: str
    amount: Money
    balance: Money


@dataclass(frozen=True)
class Statement:
    """A statement of one account for the days ``start`` to ``end`` inclusive.

    ``total_credits`` is the sum of the positive amounts, ``total_debits`` the sum
    of the negative amounts as a positive number (both zero when there are none).
    """

    account_id: str
    owner: str
    start: dt.date
    end: dt.date
    opening_balance: Money
    closing_balance: Money
    lines: tuple
    total_credits: Money
    total_debits: Money


def build_statement(account: Account, start: dt.date, end: dt.date) -> Statement:
    """Build the :class:`Statement` of ``account`` for ``start`` .. ``end``.

    The opening balance is the balance at the end of the day before ``start``.
    There is one :class:`StatementLine` per posting dated within the period, in
    posting order, each with the running balance after it; the closing balance
    is the opening balance plus all the period's amounts (equal to the balance
    at the end of ``end``). Raises ``ValueError`` if ``end < start``.
    """
    if end < start:
        raise ValueError("end is before start")
    opening = account.balance_at(start - dt.timedelta(days=1))
    running = opening
    lines = []
    credits = Money.zero(account.currency)
    debits = Money.zero(account.currency)
    for p in account.postings:
        if start <= p.date <= end:
            running = running + p.amount
            lines.append(StatementLine(p.date, p.description, p.amount, running))
            if p.amount.is_positive:
                credits = credits + p.amount
            else:
                debits = debits - p.amount
    return Statement(
        account_id=account.account_id,
        owner=account.owner,
        start=start,
        end=end,
        opening_balance=opening,
        closing_balance=running,
        lines=tuple(lines),
        total_credits=credits,
        total_debits=debits,
    )


def render_statement(statement: Statement) -> str:
    """Render a statement as plain text, one line each, every line ending in ``"\\n"``::

        Statement for ACC-1 (Ada Lovelace)
        Period: 2024-01-01 to 2024-01-31
        Opening balance: 100.00 USD
        2024-01-05  Deposit                        50.00      150.00
        2024-01-09  Rent                        1,000.00     -850.00
        Closing balance: -850.00 USD
        Total credits: 50.00 USD
        Total debits: 1,000.00 USD

    Money in the header and footer lines is ``str(Money)``. Each statement line
    is the ISO date, two spaces, the description cut to 24 characters and padded
    with spaces to 24, then the amount and the balance (:func:`format_cents`,
    no currency), each right-aligned in 12 characters. The amount column shows
    debits *without* a minus sign (as above: ``1,000.00``), the balance column
    shows negative balances with their sign. A statement without lines has the
    single line ``(no transactions)`` between the opening and closing lines.
    """
    out = [
        f"Statement for {statement.account_id} ({statement.owner})",
        f"Period: {statement.start.isoformat()} to {statement.end.isoformat()}",
        f"Opening balance: {statement.opening_balance}",
    ]
    if not statement.lines:
        out.append("(no transactions)")
    for line in statement.lines:
        desc = line.description[:24].ljust(24)
        amount = format_cents(abs(line.amount.cents))
        balance = format_cents(line.balance.cents)
        out.append(f"{line.date.isoformat()}  {desc}{amount:>12}{balance:>12}")
    out += [
        f"Closing balance: {statement.closing_balance}",
        f"Total credits: {statement.total_credits}",
        f"Total debits: {statement.total_debits}",
    ]
    return "".join(line + "\n" for line in out)
