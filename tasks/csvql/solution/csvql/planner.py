"""Checking a parsed query against a table and turning it into a :class:`Plan`.

The planner resolves names, expands ``*``, decides whether the query is an
aggregate query, and lists what the executor must compute. All semantic errors
(unknown columns, misplaced aggregates, ...) are raised here, before any row is
read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from csvql.errors import QueryError, QueryTypeError, UnknownColumnError
from csvql.nodes import Aggregate, And, ColumnRef, Compare, IsNull, Not, Or, Select, Star
from csvql.table import Table


@dataclass
class Plan:
    """What the executor does, in order.

    - ``table``: the table to read; ``where``: the filter expression or ``None``;
    - ``grouped``: whether this is an aggregate query;
    - ``group_by``: the grouping column names (may be empty even when ``grouped``:
      then all rows form one group);
    - ``aggregates``: the distinct :class:`Aggregate` nodes to compute per group
      (from the select list, then ORDER BY), in order of first appearance;
    - ``outputs``: ``(output name, ColumnRef | Aggregate)`` per result column;
    - ``order_by``: ``(environment key, descending)`` per sort key;
    - ``limit``: the maximum number of result rows, or ``None``.
    """

    table: Table
    where: object = None
    grouped: bool = False
    group_by: list[str] = field(default_factory=list)
    aggregates: list[Aggregate] = field(default_factory=list)
    outputs: list[tuple[str, object]] = field(default_factory=list)
    order_by: list[tuple[str, bool]] = field(default_factory=list)
    limit: int | None = None


def plan(select: Select, table: Table) -> Plan:
    """Validate ``select`` against ``table`` and build its :class:`Plan`.

    The table name in ``select`` is not checked (the caller picked ``table``).

    Outputs: ``SELECT *`` gives one output per table column, named like it, in
    table order; otherwise one output per select item, named by
    :attr:`SelectItem.output_name <csvql.nodes.SelectItem.output_name>`.

    The query is *grouped* when it has a ``GROUP BY`` clause or its select list
    contains an aggregate.

    ORDER BY keys become environment keys: an :class:`Aggregate` key becomes its
    ``label`` (and is added to ``aggregates`` if not already there); a
    :class:`ColumnRef` key names an output (outputs win over table columns of
    the same name) or, otherwise, a table column.

    Raises :class:`~csvql.errors.UnknownColumnError` for any column named in the
    select list, an aggregate's argument, WHERE, GROUP BY or ORDER BY that is
    neither a table column nor (for ORDER BY only) an output name.
    Raises :class:`~csvql.errors.QueryError` for: an aggregate inside WHERE;
    ``*`` in a grouped query (``SELECT * ... GROUP BY``); in a grouped query, a
    plain column in the select list that is not a GROUP BY column, or an ORDER
    BY column that is neither an output name nor a GROUP BY column; an aggregate
    in ORDER BY of a query that is not grouped.
    Raises :class:`~csvql.errors.QueryTypeError` for ``SUM``/``AVG`` over a column
    whose type is not ``"int"`` or ``"float"``.
    Checks happen in this order: select list, WHERE, GROUP BY, grouping rules,
    ORDER BY.
    """

    def check_column(name: str) -> None:
        table.index_of(name)

    def check_aggregate(agg: Aggregate) -> None:
        if agg.arg is not None:
            check_column(agg.arg.name)
            if agg.func in ("SUM", "AVG") and table.type_of(agg.arg.name) not in ("int", "float"):
                raise QueryTypeError(f"{agg.func} needs a numeric column, {agg.arg.name!r} is {table.type_of(agg.arg.name)}")

    # select list
    star = any(isinstance(item, Star) for item in select.items)
    outputs: list[tuple[str, object]] = []
    aggregates: list[Aggregate] = []
    if star:
        outputs = [(c, ColumnRef(c)) for c in table.columns]
    else:
        for item in select.items:
            if isinstance(item.expr, Aggregate):
                check_aggregate(item.expr)
                if item.expr not in aggregates:
                    aggregates.append(item.expr)
            else:
                check_column(item.expr.name)
            outputs.append((item.output_name, item.expr))

    # WHERE
    def walk(expr) -> None:
        if isinstance(expr, ColumnRef):
            check_column(expr.name)
        elif isinstance(expr, Aggregate):
            raise QueryError("aggregate functions are not allowed in WHERE")
        elif isinstance(expr, Compare):
            walk(expr.left)
            walk(expr.right)
        elif isinstance(expr, (And, Or)):
            walk(expr.left)
            walk(expr.right)
        elif isinstance(expr, (Not, IsNull)):
            walk(expr.operand)

    if select.where is not None:
        walk(select.where)

    # GROUP BY
    for name in select.group_by:
        check_column(name)

    grouped = bool(select.group_by) or bool(aggregates)
    if grouped:
        if star:
            raise QueryError("SELECT * cannot be used with GROUP BY")
        for _, expr in outputs:
            if isinstance(expr, ColumnRef) and expr.name not in select.group_by:
                raise QueryError(f"column {expr.name!r} must appear in GROUP BY or be aggregated")

    # ORDER BY
    output_names = [name for name, _ in outputs]
    order_by: list[tuple[str, bool]] = []
    for item in select.order_by:
        if isinstance(item.expr, Aggregate):
            if not grouped:
                raise QueryError("aggregate in ORDER BY of a query without aggregates")
            check_aggregate(item.expr)
            if item.expr not in aggregates:
                aggregates.append(item.expr)
            order_by.append((item.expr.label, item.descending))
            continue
        name = item.expr.name
        if name in output_names:
            order_by.append((name, item.descending))
            continue
        check_column(name)
        if grouped and name not in select.group_by:
            raise QueryError(f"ORDER BY column {name!r} must be an output or a GROUP BY column")
        order_by.append((name, item.descending))

    return Plan(
        table=table,
        where=select.where,
        grouped=grouped,
        group_by=list(select.group_by),
        aggregates=aggregates,
        outputs=outputs,
        order_by=order_by,
        limit=select.limit,
    )
