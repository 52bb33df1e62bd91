"""Criteria of SUMIF / COUNTIF / AVERAGEIF: ``">5"``, ``"<>done"``, ``"a*"``, ``7`` ..."""

from __future__ import annotations

from collections.abc import Callable

from ..values import ERROR_CODES, CellError, RangeValue, as_scalar, compare_values, is_number, to_number
from .helpers import wildcard_match

_OPS = ("<=", ">=", "<>", "<", ">", "=")


def _is_bool(v: object) -> bool:
    return isinstance(v, bool)


def _blank(v: object) -> bool:
    return v is None or v == ""


def _cmp_ok(op: str, c: int) -> bool:
    return {"=": c == 0, "<": c < 0, ">": c > 0, "<=": c <= 0, ">=": c >= 0}[op]


def make_predicate(criteria: object) -> Callable[[object], bool]:
    """Build the test a cell value must pass to be counted by SUMIF-like functions.

    ``criteria`` (a 1x1 :class:`RangeValue` is reduced to its value):

    * a number: matches number cells with that value (not text, not booleans);
    * a boolean: matches boolean cells with that value;
    * a :class:`CellError`: matches cells holding the same error;
    * ``None`` is treated like ``""``.
    * text: an optional operator prefix ``=  <>  <  >  <=  >=`` (default
      ``=``) followed by an operand:

      - empty operand: ``""`` and ``"="`` match empty cells (``None`` or
        ``""``), ``"<>"`` matches non-empty cells, the ordering operators
        match nothing;
      - numeric operand (:func:`~sheetcalc.values.to_number` accepts it,
        e.g. ``">=2.5"``, ``"10"``): ``=`` and the ordering operators only
        match number cells, compared numerically;
      - ``TRUE`` / ``FALSE`` (any case): likewise, for boolean cells;
      - an error code such as ``#N/A``: likewise, for error cells (which
        never match ordering operators);
      - any other text: ``=`` matches text cells with
        :func:`~sheetcalc.functions.helpers.wildcard_match` (so it is
        case-insensitive and supports ``* ? ~``); the ordering operators
        match text cells compared case-insensitively (no wildcards);
      - ``<>`` with a non-empty operand matches exactly the cells that
        ``=`` with the same operand does not match (blanks, other types and
        errors included).

    Error cells never match, except as stated above.
    """
    if isinstance(criteria, RangeValue):
        criteria = as_scalar(criteria)
    if criteria is None:
        criteria = ""
    if isinstance(criteria, CellError):
        return lambda v: isinstance(v, CellError) and v.code == criteria.code
    if isinstance(criteria, bool):
        return lambda v: isinstance(v, bool) and v == criteria
    if is_number(criteria):
        return lambda v: is_number(v) and v == criteria
    text = str(criteria)
    op, operand = "=", text
    for cand in _OPS:
        if text.startswith(cand):
            op, operand = cand, text[len(cand):]
            break
    if operand == "":
        if op == "=":
            return _blank
        if op == "<>":
            return lambda v: not _blank(v)
        return lambda v: False

    num = to_number(operand)
    upper = operand.strip().upper()
    if not isinstance(num, CellError):
        typed: Callable[[object], bool] = is_number
        target: object = num
    elif upper in ("TRUE", "FALSE"):
        typed = _is_bool
        target = upper == "TRUE"
    elif upper in ERROR_CODES:
        code = upper
        equal = lambda v: isinstance(v, CellError) and v.code == code  # noqa: E731
        if op == "=":
            return equal
        if op == "<>":
            return lambda v: not equal(v)
        return lambda v: False
    else:
        if op == "=":
            return lambda v: isinstance(v, str) and wildcard_match(operand, v)
        if op == "<>":
            return lambda v: not (isinstance(v, str) and wildcard_match(operand, v))
        return lambda v: isinstance(v, str) and _cmp_ok(op, compare_values(v, operand))

    if op == "<>":
        return lambda v: not (typed(v) and v == target)
    return lambda v: typed(v) and _cmp_ok(op, compare_values(v, target))
