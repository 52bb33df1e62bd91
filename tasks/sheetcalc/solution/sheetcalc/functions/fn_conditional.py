"""Conditional aggregates: SUMIF, COUNTIF, AVERAGEIF (criteria: :func:`make_predicate`)."""

from __future__ import annotations

from ..values import DIV0, VALUE, CellError, RangeValue, as_scalar, is_number
from .criteria import make_predicate
from .helpers import as_grid


def _matched(rng: object, criteria: object, other: object) -> list[object] | CellError:
    """Values of ``other`` (or ``rng``) at the positions where ``rng`` meets the criteria."""
    grid = as_grid(rng)
    target = grid if other is None else as_grid(other)
    if (target.height, target.width) != (grid.height, grid.width):
        return VALUE
    pred = make_predicate(as_scalar(criteria) if isinstance(criteria, RangeValue) else criteria)
    out = []
    for i, row in enumerate(grid.rows):
        for j, v in enumerate(row):
            if pred(v):
                out.append(target.rows[i][j])
    return out


def fn_sumif(rng: object, criteria: object, sum_range: object = None) -> float | CellError:
    """``SUMIF(range, criteria, [sum_range])``.

    Sums the cells of ``sum_range`` (default: ``range`` itself) at the
    positions where the cell of ``range`` meets ``criteria``
    (:func:`~sheetcalc.functions.criteria.make_predicate`).  Only numbers
    are summed (text and booleans there are ignored); an error in a summed
    position propagates.  ``sum_range`` must have the same shape as
    ``range``, otherwise ``#VALUE!``.  No match gives ``0``.
    """
    vals = _matched(rng, criteria, sum_range)
    if isinstance(vals, CellError):
        return vals
    total = 0.0
    for v in vals:
        if isinstance(v, CellError):
            return v
        if is_number(v):
            total += v
    return total


def fn_countif(rng: object, criteria: object) -> float:
    """``COUNTIF(range, criteria)``: how many cells of ``range`` meet ``criteria``
    (:func:`~sheetcalc.functions.criteria.make_predicate`).  Never an error.
    """
    vals = _matched(rng, criteria, None)
    return float(len(vals))  # type: ignore[arg-type]


def fn_averageif(rng: object, criteria: object, average_range: object = None) -> float | CellError:
    """``AVERAGEIF(range, criteria, [average_range])``: the mean of the
    numbers that :func:`fn_sumif` would add up (same rules and errors);
    ``#DIV/0!`` when there is no number to average.
    """
    vals = _matched(rng, criteria, average_range)
    if isinstance(vals, CellError):
        return vals
    nums = []
    for v in vals:
        if isinstance(v, CellError):
            return v
        if is_number(v):
            nums.append(v)
    if not nums:
        return DIV0
    return sum(nums) / len(nums)
