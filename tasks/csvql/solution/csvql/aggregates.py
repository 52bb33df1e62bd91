"""The aggregate functions COUNT, SUM, AVG, MIN and MAX."""

from __future__ import annotations

from csvql.errors import QueryError, QueryTypeError


def aggregate(func: str, values: list):
    """Apply the aggregate ``func`` to ``values`` (one value per row of a group).

    ``None`` values (NULLs) are ignored by every function:

    - ``"COUNT"``: the number of values that are not ``None`` (``0`` if none).
      (``COUNT(*)`` is computed by passing one non-``None`` value per row.)
    - ``"SUM"``: the sum of the values; an ``int`` if every value is an ``int``,
      else a ``float``; ``None`` if there are no values.
    - ``"AVG"``: the arithmetic mean as a ``float``; ``None`` if there are no values.
    - ``"MIN"`` / ``"MAX"``: the smallest / largest value (numbers, strings or
      booleans); ``None`` if there are no values.

    Raises :class:`~csvql.errors.QueryTypeError` when ``SUM`` or ``AVG`` meets a
    value that is not an ``int`` or ``float`` (``bool`` counts as not a number),
    or when ``MIN``/``MAX`` meet values that cannot be ordered together (e.g. a
    string and a number). Raises :class:`~csvql.errors.QueryError` for any other
    ``func`` (names are upper case; ``"count"`` is unknown).
    """
    present = [v for v in values if v is not None]
    if func == "COUNT":
        return len(present)
    if func in ("SUM", "AVG"):
        for v in present:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise QueryTypeError(f"{func} needs numbers, got {v!r}")
        if not present:
            return None
        total = sum(present)
        if func == "SUM":
            return total
        return total / len(present)
    if func in ("MIN", "MAX"):
        if not present:
            return None
        kinds = {"number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v).__name__ for v in present}
        if len(kinds) > 1:
            raise QueryTypeError(f"{func} cannot order values of types {sorted(kinds)}")
        return min(present) if func == "MIN" else max(present)
    raise QueryError(f"unknown aggregate function {func!r}")
