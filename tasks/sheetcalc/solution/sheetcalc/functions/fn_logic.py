"""Logical and information functions: IF, AND, OR, NOT, IFERROR, IS*."""

from __future__ import annotations

from ..values import VALUE, CellError, as_scalar, is_number, to_bool
from .helpers import iter_args


def fn_if(condition: object, if_true: object, if_false: object = False) -> object:
    """``IF(condition, value_if_true, [value_if_false])``.

    ``condition`` is reduced to a scalar and coerced with
    :func:`~sheetcalc.values.to_bool`; an error there (including text such
    as ``"yes"`` -> ``#VALUE!``) is returned.  Otherwise the chosen branch
    is returned as given (errors in the *other* branch are ignored, and a
    range is returned as a range).  A missing third argument gives
    ``FALSE``.
    """
    cond = to_bool(as_scalar(condition))
    if isinstance(cond, CellError):
        return cond
    return if_true if cond else if_false


def _logical_values(args: tuple[object, ...]) -> list[bool] | CellError:
    out: list[bool] = []
    for v, from_range in iter_args(args):
        if isinstance(v, CellError):
            return v
        if from_range:
            if isinstance(v, bool):
                out.append(v)
            elif is_number(v):
                out.append(v != 0)
            continue
        if v is None:
            continue
        b = to_bool(v)
        if isinstance(b, CellError):
            return VALUE
        out.append(b)
    return out


def fn_and(*args: object) -> bool | CellError:
    """``AND(value, ...)``: ``TRUE`` when every logical value is true.

    Inside ranges only booleans and numbers (non-zero is true) count; text
    and empty cells are skipped.  Direct arguments are coerced with
    :func:`~sheetcalc.values.to_bool` (direct text other than
    ``TRUE``/``FALSE`` gives ``#VALUE!``; direct empty values are skipped).
    The first error found propagates.  No logical values at all gives
    ``#VALUE!``.
    """
    vals = _logical_values(args)
    if isinstance(vals, CellError):
        return vals
    if not vals:
        return VALUE
    return all(vals)


def fn_or(*args: object) -> bool | CellError:
    """``OR(value, ...)``: ``TRUE`` when any logical value is true.

    Same argument rules as :func:`fn_and` (ranges: booleans and numbers
    only; direct text must be ``TRUE``/``FALSE``; first error propagates; no
    logical values gives ``#VALUE!``).
    """
    vals = _logical_values(args)
    if isinstance(vals, CellError):
        return vals
    if not vals:
        return VALUE
    return any(vals)


def fn_not(value: object) -> bool | CellError:
    """``NOT(value)``: the logical negation of :func:`~sheetcalc.values.to_bool`
    of the (scalar) argument; errors propagate (``NOT("x")`` -> ``#VALUE!``).
    """
    b = to_bool(as_scalar(value))
    if isinstance(b, CellError):
        return b
    return not b


def fn_iferror(value: object, value_if_error: object) -> object:
    """``IFERROR(value, value_if_error)``: ``value_if_error`` when ``value``
    (reduced to a scalar) is an error, otherwise ``value`` unchanged.
    """
    if isinstance(as_scalar(value), CellError):
        return value_if_error
    return value


def fn_iserror(value: object) -> bool:
    """``ISERROR(value)``: ``TRUE`` when the (scalar) value is any error.

    A multi-cell range reduces to ``#VALUE!`` and so gives ``TRUE``.
    """
    return isinstance(as_scalar(value), CellError)


def fn_isnumber(value: object) -> bool:
    """``ISNUMBER(value)``: ``TRUE`` only for numbers (not booleans, not numeric text)."""
    return is_number(as_scalar(value))


def fn_istext(value: object) -> bool:
    """``ISTEXT(value)``: ``TRUE`` only for text values (including ``""``)."""
    return isinstance(as_scalar(value), str)


def fn_isblank(value: object) -> bool:
    """``ISBLANK(value)``: ``TRUE`` only for an empty cell (``None``); ``""`` is not blank."""
    return as_scalar(value) is None
