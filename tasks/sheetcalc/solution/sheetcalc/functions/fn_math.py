"""Mathematical functions: SUM, PRODUCT, ROUND, ABS, INT, MOD, SQRT, POWER."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from ..operators import arithmetic
from ..values import DIV0, NUM, CellError, as_scalar, to_number
from .helpers import numeric_args


def _num(value: object) -> float | CellError:
    return to_number(as_scalar(value))


def fn_sum(*args: object) -> float | CellError:
    """``SUM(value, ...)``: the sum of the numbers of
    :func:`~sheetcalc.functions.helpers.numeric_args` (0 when there are
    none).  Errors propagate; direct non-numeric text gives ``#VALUE!``.
    """
    nums = numeric_args(args)
    if isinstance(nums, CellError):
        return nums
    return float(sum(nums))


def fn_product(*args: object) -> float | CellError:
    """``PRODUCT(value, ...)``: the product of the numbers of
    :func:`~sheetcalc.functions.helpers.numeric_args`; ``0`` when there are
    no numbers at all.  Errors propagate.
    """
    nums = numeric_args(args)
    if isinstance(nums, CellError):
        return nums
    if not nums:
        return 0.0
    return float(math.prod(nums))


def fn_round(number: object, digits: object = 0.0) -> float | CellError:
    """``ROUND(number, [digits])``: round half away from zero.

    ``digits`` (default 0) is truncated toward zero to an integer; negative
    digits round to tens, hundreds, ...  Rounding uses the shortest decimal
    form of the number (``repr``), so ``ROUND(2.5) = 3``, ``ROUND(-2.5) = -3``,
    ``ROUND(1.005, 2) = 1.01`` and ``ROUND(1234.5, -2) = 1200``.  Both
    arguments are coerced with :func:`~sheetcalc.values.to_number`; errors
    propagate (``number`` first).
    """
    x = _num(number)
    if isinstance(x, CellError):
        return x
    d = _num(digits)
    if isinstance(d, CellError):
        return d
    nd = int(d)
    q = Decimal(1).scaleb(-nd)
    return float(Decimal(repr(x)).quantize(q, rounding=ROUND_HALF_UP))


def fn_abs(number: object) -> float | CellError:
    """``ABS(number)``: absolute value (argument coerced with ``to_number``; errors propagate)."""
    x = _num(number)
    if isinstance(x, CellError):
        return x
    return abs(x)


def fn_int(number: object) -> float | CellError:
    """``INT(number)``: round *down* to an integer (toward minus infinity):
    ``INT(2.7) = 2``, ``INT(-2.1) = -3``.  Errors propagate.
    """
    x = _num(number)
    if isinstance(x, CellError):
        return x
    return float(math.floor(x))


def fn_mod(number: object, divisor: object) -> float | CellError:
    """``MOD(number, divisor)``: remainder with the sign of the divisor,
    ``number - divisor * INT(number / divisor)``: ``MOD(-3, 2) = 1``,
    ``MOD(3, -2) = -1``.  A zero divisor gives ``#DIV/0!``.  Errors
    propagate (``number`` first).
    """
    n = _num(number)
    if isinstance(n, CellError):
        return n
    d = _num(divisor)
    if isinstance(d, CellError):
        return d
    if d == 0:
        return DIV0
    return n - d * math.floor(n / d)


def fn_sqrt(number: object) -> float | CellError:
    """``SQRT(number)``: square root; a negative number gives ``#NUM!``.  Errors propagate."""
    x = _num(number)
    if isinstance(x, CellError):
        return x
    if x < 0:
        return NUM
    return math.sqrt(x)


def fn_power(base: object, exponent: object) -> float | CellError:
    """``POWER(base, exponent)``: the same as ``base ^ exponent`` (see
    :func:`sheetcalc.operators.arithmetic`, including ``#NUM!`` and
    ``#DIV/0!`` cases).
    """
    return arithmetic("^", as_scalar(base), as_scalar(exponent))
