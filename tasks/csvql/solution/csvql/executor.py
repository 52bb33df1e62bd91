"""Running a :class:`~csvql.planner.Plan`: filter, group, aggregate, sort, limit, project.

Rows travel through the pipeline as *environments*: dictionaries from names
(table columns, output names, aggregate labels) to values.
"""

from __future__ import annotations

from dataclasses import dataclass

from csvql.aggregates import aggregate
from csvql.errors import QueryTypeError
from csvql.evaluator import evaluate
from csvql.nodes import Aggregate
from csvql.planner import Plan


@dataclass
class Result:
    """The result of a query: output column names and rows (tuples)."""

    columns: list[str]
    rows: list[tuple]

    def as_dicts(self) -> list[dict]:
        """The rows as dictionaries from column name to value."""
        return [dict(zip(self.columns, row)) for row in self.rows]

    def to_csv(self) -> str:
        """The result as CSV text, see :func:`csvql.writer.format_csv`."""
        from csvql.writer import format_csv

        return format_csv(self.columns, self.rows)


def filter_rows(rows: list[dict], condition) -> list[dict]:
    """Return the rows for which ``condition`` evaluates to ``True``.

    Rows where it evaluates to ``False`` or ``None`` (UNKNOWN) are dropped. Order
    is preserved. ``condition=None`` keeps every row (a new list is returned).
    Errors of :func:`~csvql.evaluator.evaluate` propagate.
    """
    if condition is None:
        return list(rows)
    return [row for row in rows if evaluate(condition, row) is True]


def group_rows(rows: list[dict], keys: list[str]) -> list[tuple[tuple, list[dict]]]:
    """Group rows by the values of the columns ``keys``.

    Returns ``(key values tuple, rows of the group)`` pairs, groups in order of
    their first row, rows within a group in input order. ``None`` values group
    together like any other value. With no ``keys`` the result is exactly one
    group ``((), rows)`` -- even when ``rows`` is empty; with ``keys`` and no rows
    it is ``[]``.
    """
    if not keys:
        return [((), list(rows))]
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    return list(groups.items())


def sort_rows(rows: list[dict], keys: list[tuple[str, bool]]) -> list[dict]:
    """Return ``rows`` sorted by ``keys``, a list of ``(name, descending)``.

    The first key is the most significant. ``None`` sorts before every other
    value, so NULLs come first in ascending order and last in descending order.
    The sort is stable: rows that tie on every key keep their input order (also
    for descending keys). With no keys, a copy of ``rows`` is returned.

    Raises :class:`~csvql.errors.QueryTypeError` if one key holds values that
    cannot be ordered together (e.g. strings and numbers).
    """
    result = list(rows)
    for name, descending in reversed(keys):
        try:
            result.sort(key=lambda r: (r[name] is not None, r[name] if r[name] is not None else 0), reverse=descending)
        except TypeError as e:
            raise QueryTypeError(f"cannot sort by {name!r}: {e}") from None
    return result


def execute(plan: Plan) -> Result:
    """Run ``plan`` and return its :class:`Result`.

    Steps:

    1. every table row becomes an environment ``{column: value}``;
    2. :func:`filter_rows` with ``plan.where``;
    3. not grouped: each environment gets every output added under its output
       name (``ColumnRef`` outputs copy the column's value; they take precedence
       over a table column of the same name).
       Grouped: :func:`group_rows` by ``plan.group_by``; each group becomes one
       environment holding the GROUP BY columns, every aggregate of
       ``plan.aggregates`` under its ``label`` (computed with
       :func:`~csvql.aggregates.aggregate` over the argument column's values of
       the group's rows, or one ``1`` per row for ``COUNT(*)``), and every output
       under its output name;
    4. :func:`sort_rows` by ``plan.order_by``;
    5. keep the first ``plan.limit`` rows (all when ``None``);
    6. each row becomes the tuple of its output values, in ``plan.outputs`` order.

    ``Result.columns`` is the list of output names.
    """
    envs = plan.table.row_dicts()
    envs = filter_rows(envs, plan.where)
    if not plan.grouped:
        out_envs = []
        for env in envs:
            e = dict(env)
            for name, expr in plan.outputs:
                e[name] = env[expr.name]
            out_envs.append(e)
    else:
        out_envs = []
        for key, group in group_rows(envs, plan.group_by):
            e = dict(zip(plan.group_by, key))
            for agg in plan.aggregates:
                if agg.arg is None:
                    values = [1] * len(group)
                else:
                    values = [r[agg.arg.name] for r in group]
                e[agg.label] = aggregate(agg.func, values)
            for name, expr in plan.outputs:
                e[name] = e[expr.label] if isinstance(expr, Aggregate) else e[expr.name]
            out_envs.append(e)
    out_envs = sort_rows(out_envs, plan.order_by)
    if plan.limit is not None:
        out_envs = out_envs[: plan.limit]
    names = [name for name, _ in plan.outputs]
    return Result(columns=names, rows=[tuple(e[n] for n in names) for e in out_envs])
