"""Sorted sets of disjoint half-open integer intervals.

An interval ``(start, end)`` stands for every number ``x`` with ``start <= x < end``.
An interval with ``start == end`` is empty; one with ``start > end`` is invalid.
Two intervals that merely touch (``(1, 3)`` and ``(3, 5)``) are merged into one,
so an :class:`IntervalSet` never holds two adjacent intervals.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator


def _check(start: int, end: int) -> None:
    if start > end:
        raise ValueError(f"invalid interval ({start}, {end}): start > end")


def merge_intervals(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Normalise ``intervals`` into a sorted list of disjoint, non-adjacent intervals.

    Overlapping and touching intervals are merged, empty intervals are dropped, and
    the result is sorted by start. The input may be in any order.
    Raises ValueError if any interval has ``start > end``.

    >>> merge_intervals([(5, 7), (1, 3), (2, 4), (7, 8), (9, 9)])
    [(1, 4), (5, 8)]
    """
    items = []
    for start, end in intervals:
        _check(start, end)
        if start < end:
            items.append((start, end))
    items.sort()
    out: list[tuple[int, int]] = []
    for start, end in items:
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


class IntervalSet:
    """A set of numbers represented as sorted, disjoint, non-adjacent intervals.

    >>> s = IntervalSet([(0, 10)])
    >>> s.remove(3, 5)
    >>> s.intervals()
    [(0, 3), (5, 10)]
    >>> 4 in s, 5 in s
    (False, True)
    """

    def __init__(self, intervals: Iterable[tuple[int, int]] = ()) -> None:
        """Create a set covering the union of ``intervals`` (normalised with
        :func:`merge_intervals`; an empty set when none are given)."""
        items = list(intervals)
        self._ivs: list[tuple[int, int]] = merge_intervals(items) if items else []

    def intervals(self) -> list[tuple[int, int]]:
        """A copy of the stored intervals, sorted by start."""
        return list(self._ivs)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(list(self._ivs))

    def __len__(self) -> int:
        """Number of stored (maximal) intervals."""
        return len(self._ivs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IntervalSet):
            return NotImplemented
        return self._ivs == other._ivs

    def __repr__(self) -> str:
        return f"IntervalSet({self._ivs!r})"

    def total_length(self) -> int:
        """The sum of the lengths of the stored intervals."""
        return sum(e - s for s, e in self._ivs)

    def add(self, start: int, end: int) -> None:
        """Add the interval ``[start, end)``, merging it with every stored interval it
        overlaps or touches. Adding an empty interval changes nothing.
        Raises ValueError if ``start > end``.
        """
        _check(start, end)
        if start == end:
            return
        ivs = self._ivs
        # first interval whose end >= start (could touch or overlap)
        lo = bisect.bisect_left(ivs, start, key=lambda iv: iv[1])
        hi = lo
        while hi < len(ivs) and ivs[hi][0] <= end:
            start = min(start, ivs[hi][0])
            end = max(end, ivs[hi][1])
            hi += 1
        ivs[lo:hi] = [(start, end)]

    def remove(self, start: int, end: int) -> None:
        """Remove every number in ``[start, end)`` from the set, splitting or
        trimming stored intervals as needed. Removing an empty interval, or numbers
        that are not in the set, changes nothing.
        Raises ValueError if ``start > end``.
        """
        _check(start, end)
        if start == end:
            return
        ivs = self._ivs
        lo = bisect.bisect_right(ivs, start, key=lambda iv: iv[1])
        hi = lo
        pieces = []
        while hi < len(ivs) and ivs[hi][0] < end:
            s, e = ivs[hi]
            if s < start:
                pieces.append((s, start))
            if e > end:
                pieces.append((end, e))
            hi += 1
        ivs[lo:hi] = pieces

    def __contains__(self, point: object) -> bool:
        """True if the number ``point`` lies inside one of the stored intervals
        (``start <= point < end``)."""
        ivs = self._ivs
        i = bisect.bisect_right(ivs, point, key=lambda iv: iv[0]) - 1
        return i >= 0 and ivs[i][0] <= point < ivs[i][1]

    def gaps(self, lo: int, hi: int) -> list[tuple[int, int]]:
        """The maximal sub-intervals of ``[lo, hi)`` not covered by the set, sorted.

        Returns an empty list when ``lo == hi`` or when the set covers ``[lo, hi)``.
        Raises ValueError if ``lo > hi``.
        """
        _check(lo, hi)
        out = []
        cur = lo
        for s, e in self._ivs:
            if e <= cur:
                continue
            if s >= hi:
                break
            if s > cur:
                out.append((cur, s))
            cur = max(cur, e)
            if cur >= hi:
                break
        if cur < hi:
            out.append((cur, hi))
        return out
