"""Operator semantics on scalar values (see :mod:`sheetcalc.values`).

All functions take scalar values (never a :class:`~sheetcalc.values.RangeValue`)
and return a value; spreadsheet problems are returned as
:class:`~sheetcalc.values.CellError`, never raised.  When both operands are
errors, the left one wins.
"""

from __future__ import annotations

import math

from .values import DIV0, NUM, CellError, compare_values, to_number, to_text

ARITHMETIC_OPS = ("+", "-", "*", "/", "^")
COMPARISON_OPS = ("=", "<>", "<", ">", "<=", ">=")


def arithmetic(op: str, left: object, right: object) -> float | CellError:
    """Apply ``+ - * / ^`` to two values.

    1. An error operand is returned as is (left first), before any coercion.
    2. Both operands are coerced with :func:`~sheetcalc.values.to_number`
       (empty -> 0, ``TRUE`` -> 1, numeric text -> number); a coercion
       error is returned (left first), e.g. ``"a" + 1`` -> ``#VALUE!``.
    3. ``x / 0`` -> ``#DIV/0!``.  For ``^``: ``0^0`` -> ``#NUM!``,
       ``0^negative`` -> ``#DIV/0!``, a negative base with a non-integer
       exponent -> ``#NUM!``.
    4. A result that overflows or is not finite -> ``#NUM!``.

    The result is a ``float``.  Raises ``ValueError`` for an unknown ``op``.
    """
    if op not in ARITHMETIC_OPS:
        raise ValueError(f"unknown arithmetic operator {op!r}")
    for v in (left, right):
        if isinstance(v, CellError):
            return v
    x = to_number(left)
    if isinstance(x, CellError):
        return x
    y = to_number(right)
    if isinstance(y, CellError):
        return y
    try:
        if op == "+":
            r = x + y
        elif op == "-":
            r = x - y
        elif op == "*":
            r = x * y
        elif op == "/":
            if y == 0:
                return DIV0
            r = x / y
        else:
            if x == 0 and y == 0:
                return NUM
            if x == 0 and y < 0:
                return DIV0
            if x < 0 and not float(y).is_integer():
                return NUM
            r = x**y
    except (OverflowError, ZeroDivisionError):
        return NUM
    if isinstance(r, complex) or not math.isfinite(r):
        return NUM
    return float(r)


def concat(left: object, right: object) -> str | CellError:
    """The ``&`` operator: join the text forms of two values.

    Errors propagate (left first); otherwise both sides go through
    :func:`~sheetcalc.values.to_text`, so ``1 & TRUE`` -> ``"1TRUE"`` and an
    empty cell contributes ``""``.
    """
    for v in (left, right):
        if isinstance(v, CellError):
            return v
    a = to_text(left)
    if isinstance(a, CellError):
        return a
    b = to_text(right)
    if isinstance(b, CellError):
        return b
    return a + b


def compare(op: str, left: object, right: object) -> bool | CellError:
    """Apply a comparison operator (``= <> < > <= >=``) to two values.

    Errors propagate (left first).  Otherwise the result follows
    :func:`~sheetcalc.values.compare_values`: no coercion between types
    (``1 = "1"`` is ``FALSE``, ``"b" > 100`` is ``TRUE``), case-insensitive
    text, and empty cells equal to ``0`` / ``""`` / ``FALSE``.

    Raises ``ValueError`` for an unknown ``op``.
    """
    if op not in COMPARISON_OPS:
        raise ValueError(f"unknown comparison operator {op!r}")
    for v in (left, right):
        if isinstance(v, CellError):
            return v
    c = compare_values(left, right)
    if op == "=":
        return c == 0
    if op == "<>":
        return c != 0
    if op == "<":
        return c < 0
    if op == ">":
        return c > 0
    if op == "<=":
        return c <= 0
    return c >= 0


def negate(value: object) -> float | CellError:
    """Unary minus: coerce with :func:`~sheetcalc.values.to_number` and negate.

    Errors (given or from coercion) are returned; ``-0`` is ``0.0``.
    """
    x = to_number(value)
    if isinstance(x, CellError):
        return x
    return 0.0 - x


def percent(value: object) -> float | CellError:
    """Postfix ``%``: coerce with :func:`~sheetcalc.values.to_number` and divide by 100.

    Errors (given or from coercion) are returned.
    """
    x = to_number(value)
    if isinstance(x, CellError):
        return x
    return x / 100
