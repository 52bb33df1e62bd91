"""Statistical functions: AVERAGE, MIN, MAX, COUNT, COUNTA, COUNTBLANK."""

from __future__ import annotations

from ..values import DIV0, CellError, is_number, to_number
from .helpers import iter_args, numeric_args


def fn_average(*args: object) -> float | CellError:
    """``AVERAGE(value, ...)``: arithmetic mean of
    :func:`~sheetcalc.functions.helpers.numeric_args`; ``#DIV/0!`` when
    there are no numbers.  Errors propagate.
    """
    nums = numeric_args(args)
    if isinstance(nums, CellError):
        return nums
    if not nums:
        return DIV0
    return sum(nums) / len(nums)


def fn_min(*args: object) -> float | CellError:
    """``MIN(value, ...)``: smallest of
    :func:`~sheetcalc.functions.helpers.numeric_args`; ``0`` when there are
    no numbers.  Errors propagate.
    """
    nums = numeric_args(args)
    if isinstance(nums, CellError):
        return nums
    return min(nums) if nums else 0.0


def fn_max(*args: object) -> float | CellError:
    """``MAX(value, ...)``: largest of
    :func:`~sheetcalc.functions.helpers.numeric_args`; ``0`` when there are
    no numbers.  Errors propagate.
    """
    nums = numeric_args(args)
    if isinstance(nums, CellError):
        return nums
    return max(nums) if nums else 0.0


def fn_count(*args: object) -> float:
    """``COUNT(value, ...)``: how many numbers there are.

    Inside ranges only number cells count.  Direct arguments count when they
    are numbers, booleans, or text that :func:`~sheetcalc.values.to_number`
    accepts.  Errors are never counted and never propagate.
    """
    n = 0
    for v, from_range in iter_args(args):
        if isinstance(v, CellError) or v is None:
            continue
        if from_range:
            n += is_number(v)
        elif not isinstance(to_number(v), CellError):
            n += 1
    return float(n)


def fn_counta(*args: object) -> float:
    """``COUNTA(value, ...)``: how many values are not empty.

    Everything except ``None`` counts, direct or in ranges: numbers, text
    (even ``""``), booleans and errors.
    """
    return float(sum(1 for v, _ in iter_args(args) if v is not None))


def fn_countblank(rng: object) -> float:
    """``COUNTBLANK(range)``: how many cells are empty or hold ``""``.

    A non-range argument counts as a single cell.
    """
    return float(sum(1 for v, _ in iter_args([rng]) if v is None or v == ""))
