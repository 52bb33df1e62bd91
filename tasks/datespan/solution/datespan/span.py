"""Half-open ranges of dates."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from datespan.date import Date


@dataclass(frozen=True)
class DateSpan:
    """The dates ``d`` with ``start <= d < end`` (``end`` is excluded).

    An empty span has ``start == end``. Raises TypeError if ``start`` or ``end`` is
    not a :class:`Date` and ValueError if ``end < start``.

    >>> span = DateSpan(Date(2024, 1, 30), Date(2024, 2, 2))
    >>> [str(d) for d in span]
    ['2024-01-30', '2024-01-31', '2024-02-01']
    """

    start: Date
    end: Date

    def __post_init__(self) -> None:
        if not isinstance(self.start, Date) or not isinstance(self.end, Date):
            raise TypeError("DateSpan bounds must be Date instances")
        if self.end < self.start:
            raise ValueError(f"span end {self.end} is before its start {self.start}")

    def __contains__(self, d: object) -> bool:
        """True for a :class:`Date` inside the span; False for anything else."""
        return isinstance(d, Date) and self.start <= d < self.end

    def is_empty(self) -> bool:
        """True when the span holds no date."""
        return self.start == self.end

    def __iter__(self) -> Iterator[Date]:
        """Iterate over the dates of the span in order (none for an empty span)."""
        d = self.start
        while d < self.end:
            yield d
            d = d.add_days(1)

    def overlap(self, other: DateSpan) -> DateSpan | None:
        """The span of dates in both ``self`` and ``other``, or None when they share
        no date (spans that only touch, like ``[a, b)`` and ``[b, c)``, share none;
        an empty span shares nothing).
        """
        start = max(self.start, other.start)
        end = min(self.end, other.end)
        if start < end:
            return DateSpan(start, end)
        return None

    def split_by_month(self) -> list[DateSpan]:
        """Cut the span at the first day of every month inside it.

        Returns consecutive non-empty spans that together cover ``self``, each
        within a single calendar month, in order. An empty span gives ``[]``.
        """
        out = []
        cur = self.start
        while cur < self.end:
            if cur.month == 12:
                if cur.year == 9999:
                    nxt = self.end
                else:
                    nxt = Date(cur.year + 1, 1, 1)
            else:
                nxt = Date(cur.year, cur.month + 1, 1)
            piece_end = min(nxt, self.end)
            out.append(DateSpan(cur, piece_end))
            cur = piece_end
        return out

    def count_weekday(self, weekday: int) -> int:
        """How many dates of the span fall on ``weekday`` (Monday = 0 ... Sunday =
        6). Computed arithmetically, in constant time.

        Raises ValueError if ``weekday`` is outside 0..6.
        """
        if not 0 <= weekday <= 6:
            raise ValueError(f"weekday must be in 0..6, got {weekday}")
        n = self.end - self.start
        if n == 0:
            return 0
        first = (weekday - self.start.weekday()) % 7  # offset of first match
        if first >= n:
            return 0
        return (n - 1 - first) // 7 + 1
