"""Layer 4: aggregate functions over the values of one group."""

from __future__ import annotations

from typing import Any

from minidb.errors import ExecutionError, TypeMismatchError
from minidb.values import compare_values, is_number, value_key


def aggregate_values(name: str, values: list[Any], distinct: bool = False, star: bool = False) -> Any:
    """Compute the aggregate ``name`` over the values of one group.

    NULLs are ignored by every aggregate except ``count(*)``. With
    ``distinct``, duplicate non-NULL values are dropped first (``1`` and
    ``1.0`` are duplicates).

    - ``count``: with ``star`` (``count(*)``) the number of values, NULLs
      included; otherwise the number of non-NULL values. Never NULL (0 for an
      empty group).
    - ``sum``: the sum of the non-NULL values; an int when they are all ints,
      else a float; NULL when there are none.
    - ``avg``: the mean as a float; NULL when there are no non-NULL values.
    - ``min`` / ``max``: the smallest / largest non-NULL value according to
      `compare_values` (works for numbers, strings and booleans); NULL when
      there are none.

    Raises:
        TypeMismatchError: ``sum``/``avg`` of a non-number (a string, a bool), or
            ``min``/``max`` over incomparable values.
        ExecutionError: "no such aggregate function: f" for another name.
    """
    if name not in ("count", "sum", "avg", "min", "max"):
        raise ExecutionError(f"no such aggregate function: {name}")
    if name == "count" and star:
        return len(values)
    present = [v for v in values if v is not None]
    if distinct:
        seen: set = set()
        unique = []
        for v in present:
            k = value_key(v)
            if k not in seen:
                seen.add(k)
                unique.append(v)
        present = unique
    if name == "count":
        return len(present)
    if not present:
        return None
    if name in ("sum", "avg"):
        for v in present:
            if not is_number(v):
                raise TypeMismatchError(f"{name}() expects numbers, got {v!r}")
        total = sum(present)
        if name == "avg":
            return total / len(present)
        if all(isinstance(v, int) for v in present):
            return total
        return float(total)
    best = present[0]
    for v in present[1:]:
        c = compare_values(v, best)
        if (name == "min" and c < 0) or (name == "max" and c > 0):
            best = v
    return best
