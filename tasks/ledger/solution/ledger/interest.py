"""Interest on savings accounts (average daily balance method)."""

from __future__ import annotations

from ledger.rounding import round_half_even


def monthly_interest(daily_balances: list[int], annual_rate_bp: int, days_in_year: int = 365) -> int:
    """The interest, in cents, earned over a period with the given end-of-day
    balances (one value in cents per day).

    Each day earns ``balance * annual_rate_bp / 10000 / days_in_year``; days with
    a zero or negative balance earn nothing. The daily amounts are added up
    *exactly* and the total is rounded once, half to even (see
    :func:`~ledger.rounding.round_half_even`):

    ``round_half_even(sum(max(b, 0) for b in daily_balances) * annual_rate_bp,
    10000 * days_in_year)``

    ``days_in_year`` is 365 by default, also in leap years. An empty list earns 0.
    Raises ``ValueError`` if ``annual_rate_bp`` is negative or ``days_in_year``
    is not positive.
    """
    if annual_rate_bp < 0:
        raise ValueError("annual_rate_bp must not be negative")
    if days_in_year <= 0:
        raise ValueError("days_in_year must be positive")
    total = sum(max(b, 0) for b in daily_balances)
    return round_half_even(total * annual_rate_bp, 10000 * days_in_year)
