"""Layer 4: ORDER BY sorting and DISTINCT de-duplication.

NULL ordering: by default NULL sorts as if it were larger than every other
value, so NULLs come last in ascending order and first in descending order
(as in PostgreSQL). ``NULLS FIRST`` / ``NULLS LAST`` override this for one key,
whatever its direction.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cmp_to_key
from typing import Any, TypeVar

from minidb.values import compare_values, value_key

T = TypeVar("T")


def sort_entries(
    entries: list[tuple[tuple, T]], directions: list[tuple[bool, bool | None]]
) -> list[T]:
    """Sort ``(keys, payload)`` entries by their keys and return the payloads.

    ``directions[i]`` is ``(descending, nulls_first)`` for ``keys[i]``:
    ``descending`` reverses the order of non-NULL values; ``nulls_first`` is
    True (NULLs before every value), False (after) or None (the default: NULLs
    last when ascending, first when descending). Keys are compared in turn;
    the first that differs decides. Non-NULL values are compared with
    `compare_values`. The sort is stable: entries with equal keys keep their
    input order.

    Raises:
        TypeMismatchError: two values of one key are incomparable.
    """

    def cmp(a: tuple[tuple, Any], b: tuple[tuple, Any]) -> int:
        for x, y, (descending, nulls_first) in zip(a[0], b[0], directions, strict=False):
            if x is None and y is None:
                continue
            if x is None or y is None:
                first = descending if nulls_first is None else nulls_first
                x_first = x is None
                return -1 if x_first == first else 1
            c = compare_values(x, y)
            if c:
                return -c if descending else c
        return 0

    return [payload for _, payload in sorted(entries, key=cmp_to_key(cmp))]


def distinct_rows(items: list[T], key: Callable[[T], tuple] | None = None) -> list[T]:
    """Drop duplicates, keeping the first occurrence of each, in order.

    Two items are duplicates when the tuples ``key(item)`` (the item itself
    when ``key`` is None) are equal value by value in the SQL sense: NULL
    equals NULL here, ``1`` equals ``1.0``, but ``1`` does not equal ``True``
    and ``'a'`` does not equal ``'A'``.
    """
    seen: set = set()
    out: list[T] = []
    for item in items:
        values = item if key is None else key(item)
        k = tuple(value_key(v) for v in values)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out
