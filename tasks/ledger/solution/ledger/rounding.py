"""Exact integer rounding, so money never goes through binary floating point."""

from __future__ import annotations


def round_half_even(numerator: int, denominator: int) -> int:
    """Round the fraction ``numerator / denominator`` to the nearest integer.

    Exact halves go to the even neighbour ("banker's rounding"):
    ``5/2`` -> ``2``, ``7/2`` -> ``4``, ``-5/2`` -> ``-2``, ``-7/2`` -> ``-4``;
    other values go to the nearest integer (``7/3`` -> ``2``, ``-8/3`` -> ``-3``).
    Works for any sign of ``numerator``.

    Raises ``ValueError`` if ``denominator`` is not positive and ``TypeError`` if
    either argument is not an ``int`` (``bool`` is rejected too).
    """
    for v in (numerator, denominator):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"integers required, got {v!r}")
    if denominator <= 0:
        raise ValueError("denominator must be positive")
    q, r = divmod(numerator, denominator)  # floor division, 0 <= r < denominator
    twice = 2 * r
    if twice > denominator or (twice == denominator and q % 2 == 1):
        q += 1
    return q
