"""Layer 3: evaluating expressions with SQL's three-valued logic.

Truth values are ``True``, ``False`` and ``None`` (UNKNOWN, the result of most
operations on NULL). A WHERE, ON or HAVING clause keeps a row only when its
condition is ``True``.

Column references are resolved through a `RowEnv`: the current row, the
`Scope` describing its columns, and (for correlated subqueries) the
environment of the enclosing query.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from minidb.errors import CatalogError, ExecutionError, TypeMismatchError
from minidb.syntax import (
    Between,
    BinaryOp,
    Case,
    ColumnRef,
    Exists,
    Expr,
    FunctionCall,
    InList,
    InSubquery,
    IsNull,
    Like,
    Literal,
    Parameter,
    ScalarSubquery,
    Star,
    UnaryOp,
)
from minidb.values import compare_values, is_number

AGGREGATE_NAMES = frozenset({"count", "sum", "avg", "min", "max"})
COMPARISON_OPS = frozenset({"=", "<>", "<", "<=", ">", ">="})
ARITHMETIC_OPS = frozenset({"+", "-", "*", "/", "%", "||"})


# ------------------------------------------------------------------ operators


def apply_logical(op: str, left: Any, right: Any = None) -> bool | None:
    """Apply AND, OR or NOT with three-valued logic.

    Operands are True, False or None (UNKNOWN). ``right`` is ignored for NOT.

    - NOT: NOT True = False, NOT False = True, NOT None = None.
    - AND: False if either side is False (even if the other is None); else
      None if either side is None; else True.
    - OR: True if either side is True (even if the other is None); else None
      if either side is None; else False.

    Raises:
        TypeMismatchError: an operand (both for AND/OR) is not a bool or None
            (SQL does not treat numbers or strings as truth values).
        ValueError: ``op`` is not 'AND', 'OR' or 'NOT'.
    """
    if op not in ("AND", "OR", "NOT"):
        raise ValueError(f"unknown logical operator {op!r}")
    operands = (left,) if op == "NOT" else (left, right)
    for v in operands:
        if v is not None and not isinstance(v, bool):
            raise TypeMismatchError(f"{op} expects boolean operands, got {v!r}")
    if op == "NOT":
        return None if left is None else not left
    if op == "AND":
        if left is False or right is False:
            return False
        if left is None or right is None:
            return None
        return True
    if left is True or right is True:
        return True
    if left is None or right is None:
        return None
    return False


def apply_comparison(op: str, left: Any, right: Any) -> bool | None:
    """Compare two values with ``= <> < <= > >=``.

    Returns None when either side is NULL (None); otherwise the comparison
    result according to `minidb.values.compare_values` (so ``1 = 1.0`` is True
    and ``'a' < 'b'`` is True).

    Raises:
        TypeMismatchError: the values are of incomparable kinds (``1 = 'a'``).
        ValueError: ``op`` is not a comparison operator.
    """
    if op not in COMPARISON_OPS:
        raise ValueError(f"unknown comparison operator {op!r}")
    if left is None or right is None:
        return None
    c = compare_values(left, right)
    return {
        "=": c == 0,
        "<>": c != 0,
        "<": c < 0,
        "<=": c <= 0,
        ">": c > 0,
        ">=": c >= 0,
    }[op]


def _to_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def apply_arithmetic(op: str, left: Any, right: Any) -> Any:
    """Apply ``+ - * / %`` or the string concatenation ``||``.

    NULL (None) on either side gives None, for every operator.

    ``||`` converts both sides to text (strings as they are, numbers with
    ``str()``, booleans as 'true'/'false') and concatenates them.

    The other operators need numbers (int or float, not bool). ``+ - *`` follow
    Python (int with int gives int, anything with a float gives float). ``/``
    on two ints is integer division truncating toward zero (``7 / 2`` = 3,
    ``-7 / 2`` = -3); with a float it is true division. ``%`` on two ints gives
    the remainder with the sign of the dividend (``-7 % 3`` = -1, ``7 % -3`` =
    1); with a float it is `math.fmod`.

    Raises:
        ExecutionError: "division by zero" for ``/`` or ``%`` by 0 or 0.0.
        TypeMismatchError: a non-numeric operand for ``+ - * / %``.
        ValueError: ``op`` is not one of these operators.
    """
    if op not in ARITHMETIC_OPS:
        raise ValueError(f"unknown arithmetic operator {op!r}")
    if left is None or right is None:
        return None
    if op == "||":
        return _to_text(left) + _to_text(right)
    if not is_number(left) or not is_number(right):
        raise TypeMismatchError(f"cannot apply {op} to {left!r} and {right!r}")
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if right == 0:
        raise ExecutionError("division by zero")
    both_int = isinstance(left, int) and isinstance(right, int)
    if op == "/":
        if both_int:
            q = abs(left) // abs(right)
            return q if (left >= 0) == (right >= 0) else -q
        return left / right
    if both_int:
        r = abs(left) % abs(right)
        return -r if left < 0 else r
    return math.fmod(left, right)


def like_match(value: str, pattern: str) -> bool:
    """SQL LIKE: does ``value`` match ``pattern`` in full?

    In the pattern ``%`` matches any sequence of characters (including none),
    ``_`` matches exactly one character, and a backslash makes the next
    character literal (``\\%`` matches a percent sign; a trailing backslash
    matches a backslash). Every other character matches itself. Matching is
    case-sensitive and spans newlines.

    Raises:
        TypeMismatchError: either argument is not a str.
    """
    if not isinstance(value, str) or not isinstance(pattern, str):
        raise TypeMismatchError(f"LIKE expects strings, got {value!r} and {pattern!r}")
    parts: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            parts.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if ch == "%":
            parts.append(".*")
        elif ch == "_":
            parts.append(".")
        else:
            parts.append(re.escape(ch))
        i += 1
    return re.fullmatch("".join(parts), value, re.DOTALL) is not None


def _round_half_away(x: float, digits: int) -> float:
    q = Decimal(1).scaleb(-digits)
    return float(Decimal(repr(x)).quantize(q, rounding=ROUND_HALF_UP))


def call_scalar_function(name: str, args: list[Any]) -> Any:
    """Call the built-in scalar function ``name`` (lower case) on evaluated arguments.

    Unless stated otherwise a NULL argument gives NULL.

    - ``upper(s)``, ``lower(s)``, ``trim(s)`` (strips whitespace at both ends),
      ``length(s)`` (number of characters): s must be a str.
    - ``abs(x)``: x a number; the result keeps its type.
    - ``round(x)`` / ``round(x, d)``: x a number, d an int >= 0 (default 0);
      halves round away from zero (``round(2.5)`` = 3.0, ``round(-2.5)`` = -3.0,
      ``round(2.345, 2)`` = 2.35). An int x is returned unchanged; a float x
      gives a float.
    - ``substr(s, start)`` / ``substr(s, start, n)``: the characters of s from
      the 1-based position ``start`` (values below 1 count as 1), at most n of
      them (n < 0 counts as 0); start and n must be ints.
    - ``coalesce(a, ...)``: the first non-NULL argument, or NULL; at least one
      argument.
    - ``nullif(a, b)``: NULL if a and b are both non-NULL and equal, else a.
    - ``typeof(x)``: 'null', 'integer', 'real', 'text' or 'boolean' (never NULL).

    Raises:
        ExecutionError: "no such function: f" for an unknown name; "misuse of
            aggregate function f()" for count/sum/avg/min/max; "wrong number of
            arguments to function f()" for a bad argument count; "round() digits
            must be a non-negative integer".
        TypeMismatchError: an argument of the wrong type.
    """
    if name in AGGREGATE_NAMES:
        raise ExecutionError(f"misuse of aggregate function {name}()")
    arity = {
        "upper": (1, 1),
        "lower": (1, 1),
        "trim": (1, 1),
        "length": (1, 1),
        "abs": (1, 1),
        "round": (1, 2),
        "substr": (2, 3),
        "coalesce": (1, None),
        "nullif": (2, 2),
        "typeof": (1, 1),
    }
    if name not in arity:
        raise ExecutionError(f"no such function: {name}")
    lo, hi = arity[name]
    if len(args) < lo or (hi is not None and len(args) > hi):
        raise ExecutionError(f"wrong number of arguments to function {name}()")
    if name == "coalesce":
        return next((a for a in args if a is not None), None)
    if name == "typeof":
        v = args[0]
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "boolean"
        if isinstance(v, int):
            return "integer"
        if isinstance(v, float):
            return "real"
        return "text"
    if name == "nullif":
        a, b = args
        if a is not None and b is not None and compare_values(a, b) == 0:
            return None
        return a
    if any(a is None for a in args):
        return None

    def need(v: Any, ok: bool, what: str) -> None:
        if not ok:
            raise TypeMismatchError(f"{name}() expects {what}, got {v!r}")

    if name in ("upper", "lower", "trim", "length"):
        s = args[0]
        need(s, isinstance(s, str), "a string")
        return {"upper": str.upper, "lower": str.lower, "trim": str.strip, "length": len}[name](s)
    if name == "abs":
        need(args[0], is_number(args[0]), "a number")
        return abs(args[0])
    if name == "round":
        x = args[0]
        need(x, is_number(x), "a number")
        digits = args[1] if len(args) > 1 else 0
        if isinstance(digits, bool) or not isinstance(digits, int) or digits < 0:
            raise ExecutionError("round() digits must be a non-negative integer")
        if isinstance(x, int):
            return x
        return _round_half_away(x, digits)
    # substr
    s, start = args[0], args[1]
    need(s, isinstance(s, str), "a string")
    for v in args[1:]:
        need(v, isinstance(v, int) and not isinstance(v, bool), "an integer")
    begin = max(start, 1) - 1
    if len(args) == 3:
        return s[begin : begin + max(args[2], 0)]
    return s[begin:]


def find_aggregates(exprs: Iterable[Expr | None]) -> list[FunctionCall]:
    """Collect the aggregate calls (count, sum, avg, min, max) in expressions.

    Walks every expression in ``exprs`` (None entries are skipped) through all
    sub-expressions, including CASE branches, IN lists and the operand of
    ``IN (SELECT ...)``, but *not* into subqueries (their aggregates belong to
    the subquery). Calls are returned in order of first appearance, without
    duplicates (equal calls such as two ``count(*)`` count once).

    Raises:
        ExecutionError: "aggregate functions cannot be nested" when an
            aggregate's argument contains another aggregate.
    """
    found: list[FunctionCall] = []

    def walk(e: Any, inside: bool) -> None:
        if e is None:
            return
        if isinstance(e, FunctionCall):
            is_agg = e.name in AGGREGATE_NAMES
            if is_agg and inside:
                raise ExecutionError("aggregate functions cannot be nested")
            if is_agg and e not in found:
                found.append(e)
            for a in e.args:
                walk(a, inside or is_agg)
        elif isinstance(e, UnaryOp):
            walk(e.operand, inside)
        elif isinstance(e, BinaryOp):
            walk(e.left, inside)
            walk(e.right, inside)
        elif isinstance(e, IsNull):
            walk(e.operand, inside)
        elif isinstance(e, InList):
            walk(e.operand, inside)
            for item in e.items:
                walk(item, inside)
        elif isinstance(e, InSubquery):
            walk(e.operand, inside)
        elif isinstance(e, Between):
            walk(e.operand, inside)
            walk(e.low, inside)
            walk(e.high, inside)
        elif isinstance(e, Like):
            walk(e.operand, inside)
            walk(e.pattern, inside)
        elif isinstance(e, Case):
            walk(e.operand, inside)
            for cond, res in e.whens:
                walk(cond, inside)
                walk(res, inside)
            walk(e.else_, inside)

    for expr in exprs:
        walk(expr, False)
    return found


# -------------------------------------------------------------------- scopes


class Scope:
    """The columns visible at one query level: a list of (binding, column names).

    A binding is the name that qualifies a table's columns (its alias, or its
    name when there is no alias). A row at this level is the concatenation of
    one tuple per source, in order, so a column's position is the total width
    of the sources before it plus its index in its source.
    """

    def __init__(self, sources: list[tuple[str, list[str]]]):
        """Describe rows made of ``sources``, in order."""
        self.sources = [(binding, list(cols)) for binding, cols in sources]

    @property
    def width(self) -> int:
        """The number of values in a row of this scope."""
        return sum(len(cols) for _, cols in self.sources)

    def resolve(self, name: str, table: str | None = None) -> int | None:
        """Find the position of column ``name`` (qualified by ``table``) in a row.

        - Qualified (``table`` given): if no source has that binding the column
          is not in this scope: return None. If exactly one source has it, return
          the position of ``name`` in it.
        - Unqualified: look for ``name`` in every source. One match: its
          position. No match: None.

        Returns:
            The 0-based position in the concatenated row, or None when this scope
            does not provide the column (the caller then tries enclosing scopes).

        Raises:
            CatalogError: "no such column: t.c" when the binding exists but has no
                such column.
            ExecutionError: "ambiguous column name: c" when an unqualified name is
                in several sources, or "ambiguous table name: t" when several
                sources share the binding.
        """
        offset = 0
        hits: list[int] = []
        bound = 0
        for binding, cols in self.sources:
            if table is None or binding == table:
                if table is not None:
                    bound += 1
                if name in cols:
                    hits.append(offset + cols.index(name))
            offset += len(cols)
        if table is not None:
            if bound == 0:
                return None
            if bound > 1:
                raise ExecutionError(f"ambiguous table name: {table}")
            if not hits:
                raise CatalogError(f"no such column: {table}.{name}")
            return hits[0]
        if len(hits) > 1:
            raise ExecutionError(f"ambiguous column name: {name}")
        return hits[0] if hits else None


@dataclass
class RowEnv:
    """What an expression sees: a row, its scope, the enclosing query's environment.

    ``aggregates`` maps aggregate calls to their values for the current group
    (set only for grouped queries).
    """

    scope: Scope
    row: tuple
    outer: RowEnv | None = None
    aggregates: dict[FunctionCall, Any] | None = None

    @classmethod
    def empty(cls, outer: RowEnv | None = None) -> RowEnv:
        """An environment with no columns (for constants such as VALUES and LIMIT)."""
        return cls(Scope([]), (), outer)

    def lookup(self, name: str, table: str | None = None) -> Any:
        """The value of a column, searching this scope and then the enclosing ones.

        Raises:
            CatalogError: "no such column: [t.]c" when no level provides it.
        """
        env: RowEnv | None = self
        while env is not None:
            pos = env.scope.resolve(name, table)
            if pos is not None:
                return env.row[pos]
            env = env.outer
        full = f"{table}.{name}" if table else name
        raise CatalogError(f"no such column: {full}")


def _check_truth(value: Any, where: str) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise TypeMismatchError(f"{where} must be a boolean, got {value!r}")
    return value


class Evaluator:
    """Evaluates expression trees against a `RowEnv`.

    Attributes:
        params: the values of the ``?`` placeholders, by index.
        subquery_runner: called as ``runner(node, env)`` for `InSubquery`,
            `Exists` and `ScalarSubquery` nodes (the executor provides it).
    """

    def __init__(
        self,
        params: tuple | list = (),
        subquery_runner: Callable[[Expr, RowEnv], Any] | None = None,
    ):
        """Create an evaluator for one statement's parameters."""
        self.params = tuple(params)
        self.subquery_runner = subquery_runner

    def evaluate(self, expr: Expr, env: RowEnv | None = None) -> Any:
        """Evaluate ``expr`` in ``env`` (None means an empty environment).

        - `Literal`: its value. `Parameter`: ``params[index]``.
        - `ColumnRef`: ``env.lookup(name, table)``.
        - ``UnaryOp('-')``: negation (None stays None; non-numbers raise
          `TypeMismatchError`); ``UnaryOp('NOT')``: `apply_logical`.
        - ``BinaryOp`` AND/OR: `apply_logical`, short-circuiting: if the left
          side of AND is False (of OR is True) the right side is not evaluated.
          Comparisons: `apply_comparison`. Arithmetic and ``||``:
          `apply_arithmetic`.
        - `FunctionCall` of an aggregate: its value from ``env.aggregates``;
          other functions: arguments evaluated left to right, then
          `call_scalar_function`.
        - `IsNull`, `InList`, `Between`, `Like`: `eval_predicate`; `Case`:
          `eval_case`; `InSubquery`, `Exists`, `ScalarSubquery`: the
          ``subquery_runner``.

        Raises:
            ExecutionError: "missing value for parameter N" (N 1-based) when
                there are too few params; "misuse of aggregate function f()" when
                an aggregate is used outside a grouped query (or is not in
                ``env.aggregates``); "DISTINCT is only allowed in aggregate
                functions"; "subqueries are not supported here" without a runner;
                "'*' is not allowed here" for a `Star`.
            CatalogError, TypeMismatchError: from column lookup and operators.
        """
        if env is None:
            env = RowEnv.empty()
        if isinstance(expr, Literal):
            return expr.value
        if isinstance(expr, Parameter):
            if expr.index >= len(self.params):
                raise ExecutionError(f"missing value for parameter {expr.index + 1}")
            return self.params[expr.index]
        if isinstance(expr, ColumnRef):
            return env.lookup(expr.name, expr.table)
        if isinstance(expr, UnaryOp):
            value = self.evaluate(expr.operand, env)
            if expr.op == "NOT":
                return apply_logical("NOT", value)
            if value is None:
                return None
            if not is_number(value):
                raise TypeMismatchError(f"cannot negate {value!r}")
            return -value
        if isinstance(expr, BinaryOp):
            if expr.op in ("AND", "OR"):
                left = self.evaluate(expr.left, env)
                _check_truth(left, expr.op + " operand")
                if expr.op == "AND" and left is False:
                    return False
                if expr.op == "OR" and left is True:
                    return True
                return apply_logical(expr.op, left, self.evaluate(expr.right, env))
            left = self.evaluate(expr.left, env)
            right = self.evaluate(expr.right, env)
            if expr.op in COMPARISON_OPS:
                return apply_comparison(expr.op, left, right)
            return apply_arithmetic(expr.op, left, right)
        if isinstance(expr, FunctionCall):
            if expr.name in AGGREGATE_NAMES:
                if env.aggregates is None or expr not in env.aggregates:
                    raise ExecutionError(f"misuse of aggregate function {expr.name}()")
                return env.aggregates[expr]
            if expr.distinct:
                raise ExecutionError("DISTINCT is only allowed in aggregate functions")
            args = [self.evaluate(a, env) for a in expr.args]
            return call_scalar_function(expr.name, args)
        if isinstance(expr, (IsNull, InList, Between, Like)):
            return self.eval_predicate(expr, env)
        if isinstance(expr, Case):
            return self.eval_case(expr, env)
        if isinstance(expr, (InSubquery, Exists, ScalarSubquery)):
            if self.subquery_runner is None:
                raise ExecutionError("subqueries are not supported here")
            return self.subquery_runner(expr, env)
        if isinstance(expr, Star):
            raise ExecutionError("'*' is not allowed here")
        raise ExecutionError(f"cannot evaluate {type(expr).__name__}")

    def eval_predicate(self, expr: IsNull | InList | Between | Like, env: RowEnv | None) -> Any:
        """Evaluate IS [NOT] NULL, [NOT] IN (list), [NOT] BETWEEN and [NOT] LIKE.

        Operands are evaluated with `evaluate`.

        - IS NULL is True/False, never NULL; IS NOT NULL is its negation.
        - ``x IN (a, b, ...)``: NULL if x is NULL; True if x equals some item
          (items after the first match are not evaluated); otherwise NULL if some
          item is NULL, else False. NOT IN is the three-valued negation (so
          ``1 NOT IN (2, NULL)`` is NULL).
        - ``x BETWEEN lo AND hi`` is ``x >= lo AND x <= hi`` in three-valued
          logic (``5 BETWEEN NULL AND 3`` is False); NOT BETWEEN negates it.
        - ``x LIKE p``: NULL if either is NULL, else `like_match`; NOT LIKE
          negates it.

        Raises:
            TypeMismatchError: incomparable values, or LIKE on non-strings.
        """
        if isinstance(expr, IsNull):
            is_null = self.evaluate(expr.operand, env) is None
            return not is_null if expr.negated else is_null
        if isinstance(expr, InList):
            value = self.evaluate(expr.operand, env)
            if value is None:
                return None
            result: bool | None = False
            for item in expr.items:
                v = self.evaluate(item, env)
                if v is None:
                    result = None
                elif apply_comparison("=", value, v):
                    result = True
                    break
            return apply_logical("NOT", result) if expr.negated else result
        if isinstance(expr, Between):
            value = self.evaluate(expr.operand, env)
            low = self.evaluate(expr.low, env)
            high = self.evaluate(expr.high, env)
            result = apply_logical(
                "AND", apply_comparison(">=", value, low), apply_comparison("<=", value, high)
            )
            return apply_logical("NOT", result) if expr.negated else result
        if isinstance(expr, Like):
            value = self.evaluate(expr.operand, env)
            pattern = self.evaluate(expr.pattern, env)
            if value is None or pattern is None:
                return None
            matched = like_match(value, pattern)
            return not matched if expr.negated else matched
        raise ExecutionError(f"not a predicate: {type(expr).__name__}")

    def eval_case(self, expr: Case, env: RowEnv | None) -> Any:
        """Evaluate a CASE expression.

        Searched CASE (no operand): the result of the first WHEN whose condition
        is True (False and NULL conditions are skipped). Simple CASE: the operand
        is evaluated once and compared with each WHEN value using ``=``; a NULL
        operand or WHEN value never matches. With no match the ELSE result, or
        NULL without ELSE. Only the chosen result is evaluated.

        Raises:
            TypeMismatchError: a searched-CASE condition is not a boolean or NULL,
                or a simple-CASE comparison is between incomparable values.
        """
        if expr.operand is None:
            for cond, result in expr.whens:
                if _check_truth(self.evaluate(cond, env), "CASE condition") is True:
                    return self.evaluate(result, env)
        else:
            value = self.evaluate(expr.operand, env)
            for when, result in expr.whens:
                if apply_comparison("=", value, self.evaluate(when, env)) is True:
                    return self.evaluate(result, env)
        return None if expr.else_ is None else self.evaluate(expr.else_, env)
