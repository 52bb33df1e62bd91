"""Evaluating expressions against one row, with SQL's three-valued logic.

A row is given as an *environment*: a mapping from names to values. Boolean
expressions evaluate to ``True``, ``False`` or ``None`` (SQL's UNKNOWN).
"""

from __future__ import annotations

from collections.abc import Mapping

from csvql.errors import QueryTypeError, UnknownColumnError
from csvql.nodes import Aggregate, And, ColumnRef, Compare, IsNull, Literal, Not, Or


def evaluate(expr, env: Mapping[str, object]):
    """Evaluate ``expr`` (a :mod:`csvql.nodes` expression) in environment ``env``.

    - ``ColumnRef(name)`` -> ``env[name]``; raises
      :class:`~csvql.errors.UnknownColumnError` if ``name`` is not in ``env``.
    - ``Literal(v)`` -> ``v``.
    - ``Aggregate`` -> ``env[agg.label]`` (aggregates are computed beforehand by the
      executor and stored under their label, e.g. ``"COUNT(*)"``); raises
      ``UnknownColumnError(label)`` if absent.
    - ``Compare(op, l, r)`` -> ``None`` if either side is ``None``; otherwise the
      comparison's ``bool`` result. Numbers (``int``/``float``, not ``bool``)
      compare with numbers, strings with strings (case-sensitive, by code point)
      and booleans with booleans (``False < True``); any other pairing, e.g.
      ``3 = '3'`` or ``1 = TRUE``, raises :class:`~csvql.errors.QueryTypeError`.
    - ``IsNull(e, negated)`` -> whether ``e`` is ``None`` (inverted when
      ``negated``); never ``None`` itself.
    - ``And``: ``False`` if either side is ``False``, else ``None`` if either side is
      ``None``, else ``True``. ``Or``: ``True`` if either side is ``True``, else
      ``None`` if either is ``None``, else ``False``. ``Not``: ``None`` stays
      ``None``, otherwise the negation. Both sides of ``And``/``Or`` are always
      evaluated (a type error on the right is raised even if the left is ``False``).
      An operand of ``And``/``Or``/``Not`` that is not a ``bool`` or ``None``
      raises ``QueryTypeError``.

    Raises ``TypeError`` for an object that is not an expression node.
    """
    if isinstance(expr, ColumnRef):
        try:
            return env[expr.name]
        except KeyError:
            raise UnknownColumnError(expr.name) from None
    if isinstance(expr, Literal):
        return expr.value
    if isinstance(expr, Aggregate):
        try:
            return env[expr.label]
        except KeyError:
            raise UnknownColumnError(expr.label) from None
    if isinstance(expr, Compare):
        left = evaluate(expr.left, env)
        right = evaluate(expr.right, env)
        if left is None or right is None:
            return None
        if _kind(left) != _kind(right) or _kind(left) is None:
            raise QueryTypeError(f"cannot compare {left!r} with {right!r}")
        op = expr.op
        if op == "=":
            return left == right
        if op == "!=":
            return left != right
        if op == "<":
            return left < right
        if op == "<=":
            return left <= right
        if op == ">":
            return left > right
        if op == ">=":
            return left >= right
        raise QueryTypeError(f"unknown operator {op!r}")
    if isinstance(expr, IsNull):
        return (evaluate(expr.operand, env) is None) != expr.negated
    if isinstance(expr, And):
        a = _truth(evaluate(expr.left, env))
        b = _truth(evaluate(expr.right, env))
        if a is False or b is False:
            return False
        if a is None or b is None:
            return None
        return True
    if isinstance(expr, Or):
        a = _truth(evaluate(expr.left, env))
        b = _truth(evaluate(expr.right, env))
        if a is True or b is True:
            return True
        if a is None or b is None:
            return None
        return False
    if isinstance(expr, Not):
        a = _truth(evaluate(expr.operand, env))
        return None if a is None else not a
    raise TypeError(f"not an expression: {expr!r}")


def _kind(value) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "str"
    return None


def _truth(value):
    if value is None or isinstance(value, bool):
        return value
    raise QueryTypeError(f"not a boolean: {value!r}")
