"""The fee schedule of the bank and the monthly maintenance fee rule."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FeeSchedule:
    """Fees charged by a :class:`~ledger.ledger.Ledger`, all in cents of the
    account's currency.

    - ``monthly_fee``: maintenance fee charged to every *checking* account by
      :meth:`~ledger.ledger.Ledger.apply_monthly_fees`;
    - ``waiver_balance``: if positive, the monthly fee is waived for a month in
      which every end-of-day balance was at least this much;
    - ``overdraft_fee``: charged after a withdrawal or outgoing transfer that
      leaves the balance below zero.
    """

    monthly_fee: int = 0
    waiver_balance: int = 0
    overdraft_fee: int = 0


def monthly_fee(schedule: FeeSchedule, daily_balances: list[int]) -> int:
    """The maintenance fee, in cents, for a month with these end-of-day balances.

    Returns ``schedule.monthly_fee``, except 0 when ``schedule.waiver_balance`` is
    positive and the minimum of ``daily_balances`` is at least
    ``schedule.waiver_balance``. Raises ``ValueError`` if ``daily_balances`` is
    empty.
    """
    if not daily_balances:
        raise ValueError("no balances")
    if schedule.waiver_balance > 0 and min(daily_balances) >= schedule.waiver_balance:
        return 0
    return schedule.monthly_fee
