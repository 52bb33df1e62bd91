"""Layer 4: executing parsed statements against a `Catalog`.

A SELECT runs as a pipeline::

    build_rows        FROM (table scan or index lookup, joins) and WHERE
    group_rows        GROUP BY, aggregates, HAVING      (grouped queries only)
    projection        expand_select_items, then evaluate each item per row
    DISTINCT          distinct_rows
    ORDER BY          apply_order_by (sort_entries)
    LIMIT / OFFSET

Rows flow as tuples laid out by a `Scope`; expressions are evaluated by an
`Evaluator` whose subquery runner is `Executor.run_subquery`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minidb.aggregates import aggregate_values
from minidb.errors import CatalogError, ExecutionError, TypeMismatchError
from minidb.expressions import (
    Evaluator,
    RowEnv,
    Scope,
    apply_comparison,
    apply_logical,
    find_aggregates,
)
from minidb.ordering import distinct_rows, sort_entries
from minidb.result import Result
from minidb.storage import Catalog, Table
from minidb.syntax import (
    BinaryOp,
    ColumnRef,
    CreateIndex,
    CreateTable,
    Delete,
    DropIndex,
    DropTable,
    Exists,
    Expr,
    FromClause,
    FunctionCall,
    Insert,
    InSubquery,
    Join,
    Literal,
    OrderItem,
    Parameter,
    ScalarSubquery,
    Select,
    SelectItem,
    Star,
    Statement,
    Update,
)
from minidb.values import is_number, value_key


@dataclass(frozen=True)
class AccessPlan:
    """How rows of one table are fetched: a full scan, or an index lookup of ``key``."""

    table: str
    index: str | None = None
    key: tuple | None = None

    def describe(self) -> str:
        """'SCAN t' or 'INDEX LOOKUP t USING idx'."""
        if self.index is None:
            return f"SCAN {self.table}"
        return f"INDEX LOOKUP {self.table} USING {self.index}"


def _truth(value: Any, clause: str) -> bool:
    """True only for SQL TRUE; raises for values that are not truth values."""
    if value is not None and not isinstance(value, bool):
        raise TypeMismatchError(f"{clause} must be a boolean, got {value!r}")
    return value is True


def _conjuncts(expr: Expr | None) -> list[Expr]:
    if expr is None:
        return []
    if isinstance(expr, BinaryOp) and expr.op == "AND":
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    return [expr]


_TYPE_OK = {
    "INTEGER": is_number,
    "REAL": is_number,
    "TEXT": lambda v: isinstance(v, str),
    "BOOLEAN": lambda v: isinstance(v, bool),
}


class Executor:
    """Runs statements against a catalog, with one set of ``?`` parameter values.

    Attributes:
        catalog: the tables and indexes.
        params: parameter values for ``?`` placeholders.
        evaluator: an `Evaluator` wired to `run_subquery`.
    """

    def __init__(self, catalog: Catalog, params: tuple | list = ()):
        """Create an executor over ``catalog``."""
        self.catalog = catalog
        self.params = tuple(params)
        self.evaluator = Evaluator(self.params, self.run_subquery)

    def _rowids(self, plan: AccessPlan) -> list[int]:
        table = self.catalog.get_table(plan.table)
        if plan.index is None:
            return list(table.rows)
        return table.indexes[plan.index].lookup(plan.key)

    # ------------------------------------------------------------------ access

    def plan_access(self, table: Table, binding: str, where: Expr | None) -> AccessPlan:
        """Choose between a full scan of ``table`` and an equality lookup in one of its indexes.

        The WHERE clause is split into its top-level AND terms. A term is usable
        when it is ``column = constant`` or ``constant = column`` where:

        - the column is a `ColumnRef` of this table: unqualified or qualified by
          ``binding``, and naming one of the table's columns;
        - the constant is a non-NULL `Literal`, or a `Parameter` whose value (from
          ``self.params``) exists and is not NULL;
        - the constant suits the column type (a number for INTEGER and REAL, a
          str for TEXT, a bool for BOOLEAN), so that an index lookup finds exactly
          the rows a scan would;
        - some index of the table covers exactly that one column (constraint
          indexes count).

        Among usable (term, index) pairs, a unique index beats a non-unique one;
        then the earlier term wins; then the index created first.

        Returns:
            ``AccessPlan(table.name, index_name, (value,))`` for the chosen
            lookup, or ``AccessPlan(table.name)`` for a full scan. The plan only
            narrows the candidate rows: callers still apply the whole WHERE.
        """
        names = set(table.column_names)
        best: tuple | None = None
        for term_no, term in enumerate(_conjuncts(where)):
            if not (isinstance(term, BinaryOp) and term.op == "="):
                continue
            for col, const in ((term.left, term.right), (term.right, term.left)):
                if not isinstance(col, ColumnRef) or col.name not in names:
                    continue
                if col.table is not None and col.table != binding:
                    continue
                if isinstance(const, Literal):
                    value = const.value
                elif isinstance(const, Parameter) and const.index < len(self.params):
                    value = self.params[const.index]
                else:
                    continue
                if value is None:
                    continue
                column = table.columns[table.position(col.name)]
                if not _TYPE_OK[column.type_name](value):
                    continue
                for idx_no, index in enumerate(table.indexes.values()):
                    if index.columns != (col.name,):
                        continue
                    rank = (not index.unique, term_no, idx_no)
                    if best is None or rank < best[0]:
                        best = (rank, index.name, value)
        if best is None:
            return AccessPlan(table.name)
        return AccessPlan(table.name, best[1], (best[2],))

    def join_rows(
        self, scope: Scope, rows: list[tuple], join: Join, outer: RowEnv | None = None
    ) -> tuple[Scope, list[tuple]]:
        """Join the rows built so far with the table of ``join``.

        The new scope is ``scope`` plus a source ``(join.table.binding, its
        columns)``; each output row is a left row followed by a right row. For
        every left row (in order) the right table's rows are taken in rowid
        order:

        - CROSS: every combination;
        - INNER: the combinations whose ON condition is True;
        - LEFT: as INNER, but a left row without any match is kept once, padded
          with NULLs for the right table's columns.

        The ON condition is evaluated in the combined row (with ``outer`` as the
        enclosing environment, for correlated subqueries).

        Raises:
            CatalogError: the joined table does not exist.
            ExecutionError: "table name t specified more than once" when the
                binding is already used in ``scope``.
            TypeMismatchError: the ON condition is not a boolean.
        """
        table = self.catalog.get_table(join.table.name)
        binding = join.table.binding
        if any(b == binding for b, _ in scope.sources):
            raise ExecutionError(f"table name {binding} specified more than once")
        new_scope = Scope(scope.sources + [(binding, table.column_names)])
        right_rows = [row for _, row in table.scan()]
        padding = (None,) * len(table.columns)
        out: list[tuple] = []
        for left in rows:
            matched = False
            for right in right_rows:
                combined = left + right
                if join.kind != "CROSS":
                    cond = self.evaluator.evaluate(join.on, RowEnv(new_scope, combined, outer))
                    if not _truth(cond, "ON condition"):
                        continue
                out.append(combined)
                matched = True
            if join.kind == "LEFT" and not matched:
                out.append(left + padding)
        return new_scope, out

    def build_rows(
        self, from_: FromClause | None, where: Expr | None, outer: RowEnv | None = None
    ) -> tuple[Scope, list[tuple]]:
        """Produce the rows of the FROM clause that satisfy WHERE.

        - No FROM: an empty scope and a single empty row ``()``.
        - One table: the rows chosen by `plan_access` (an index lookup or a
          full scan), in rowid order, scope ``[(binding, columns)]``.
        - Joins: a full scan of the first table, then `join_rows` for each join
          in order.

        Then the rows for which WHERE (evaluated with ``outer`` as enclosing
        environment) is True are kept, in order.

        Raises:
            CatalogError: an unknown table or column.
            TypeMismatchError: WHERE is not a boolean ("WHERE clause must be a
                boolean, got 1").
        """
        if from_ is None:
            scope, rows = Scope([]), [()]
        else:
            table = self.catalog.get_table(from_.first.name)
            binding = from_.first.binding
            scope = Scope([(binding, table.column_names)])
            if from_.joins:
                rows = [row for _, row in table.scan()]
            else:
                plan = self.plan_access(table, binding, where)
                rows = [table.rows[r] for r in self._rowids(plan)]
            for join in from_.joins:
                scope, rows = self.join_rows(scope, rows, join, outer)
        if where is not None:
            rows = [
                row
                for row in rows
                if _truth(
                    self.evaluator.evaluate(where, RowEnv(scope, row, outer)), "WHERE clause"
                )
            ]
        return scope, rows

    # -------------------------------------------------------------- projection

    def expand_select_items(self, items: tuple[SelectItem, ...], scope: Scope) -> list[tuple[str, Expr]]:
        """Turn the select list into (output column name, expression) pairs.

        - ``*``: every column of every source, in scope order, each as
          ``(column, ColumnRef(column, binding))``.
        - ``t.*``: the columns of the source bound to ``t`` only.
        - an expression: named by its alias if it has one; else a `ColumnRef`
          is named by its column name, a `FunctionCall` by the function name
          (``count(*)`` -> 'count'), and anything else '?column?'.

        Raises:
            ExecutionError: "SELECT * with no tables specified" for ``*`` without
                FROM.
            CatalogError: "no such table: t" for ``t.*`` with an unknown binding.
        """
        out: list[tuple[str, Expr]] = []
        for item in items:
            expr = item.expr
            if isinstance(expr, Star):
                if expr.table is None and not scope.sources:
                    raise ExecutionError("SELECT * with no tables specified")
                sources = [
                    (b, cols) for b, cols in scope.sources if expr.table is None or b == expr.table
                ]
                if not sources:
                    raise CatalogError(f"no such table: {expr.table}")
                for binding, cols in sources:
                    out.extend((c, ColumnRef(c, binding)) for c in cols)
                continue
            if item.alias is not None:
                name = item.alias
            elif isinstance(expr, (ColumnRef, FunctionCall)):
                name = expr.name
            else:
                name = "?column?"
            out.append((name, expr))
        return out

    # ----------------------------------------------------------------- grouping

    def group_rows(
        self, select: Select, scope: Scope, rows: list[tuple], outer: RowEnv | None = None
    ) -> list[RowEnv]:
        """Group the rows of a grouped query and compute its aggregates.

        The aggregates are those `find_aggregates` finds in the select items,
        HAVING and ORDER BY; each must have exactly one argument unless it is
        ``count(*)``. Rows are grouped by the values of the GROUP BY expressions
        (NULLs group together; groups appear in order of first occurrence).
        Without GROUP BY all rows form one group, even when there are none (so
        ``SELECT count(*) FROM empty`` gives one row with 0); with GROUP BY and
        no rows there are no groups.

        Each group becomes a ``RowEnv(scope, row, outer, aggregates)`` where
        ``row`` is the group's first row (all NULLs for an empty group) and
        ``aggregates`` maps each aggregate call to `aggregate_values` over the
        group (the argument evaluated per row). Groups whose HAVING condition
        is not True are dropped.

        Raises:
            ExecutionError: "wrong number of arguments to function f()"; nested
                aggregates; an aggregate inside GROUP BY.
        """
        aggs = find_aggregates(
            [i.expr for i in select.items if not isinstance(i.expr, Star)]
            + [select.having]
            + [o.expr for o in select.order_by]
        )
        for agg in aggs:
            if not agg.star and len(agg.args) != 1:
                raise ExecutionError(f"wrong number of arguments to function {agg.name}()")
        groups: dict[tuple, list[tuple]] = {}
        if select.group_by:
            for row in rows:
                env = RowEnv(scope, row, outer)
                key = tuple(value_key(self.evaluator.evaluate(g, env)) for g in select.group_by)
                groups.setdefault(key, []).append(row)
        else:
            groups[()] = list(rows)
        out: list[RowEnv] = []
        for members in groups.values():
            values: dict[FunctionCall, Any] = {}
            for agg in aggs:
                if agg.star:
                    args = [()] * len(members)
                else:
                    args = [
                        self.evaluator.evaluate(agg.args[0], RowEnv(scope, r, outer)) for r in members
                    ]
                values[agg] = aggregate_values(agg.name, args, agg.distinct, agg.star)
            first = members[0] if members else (None,) * scope.width
            env = RowEnv(scope, first, outer, values)
            if select.having is not None:
                if not _truth(self.evaluator.evaluate(select.having, env), "HAVING clause"):
                    continue
            out.append(env)
        return out

    # ----------------------------------------------------------------- ordering

    def apply_order_by(
        self,
        order_by: tuple[OrderItem, ...],
        items: list[tuple[str, Expr]],
        entries: list[tuple[tuple, RowEnv]],
    ) -> list[tuple[tuple, RowEnv]]:
        """Sort projected entries ``(output values, env)`` by the ORDER BY keys.

        Each key is computed per entry from its `OrderItem` expression:

        - an integer `Literal` n is a 1-based output column position;
        - an unqualified `ColumnRef` equal to an output column name (``items``
          names, aliases included) takes that output value (the first such
          column);
        - anything else is evaluated in the entry's env (so it may use columns
          that are not selected, and aggregates in grouped queries).

        Sorting follows `sort_entries` with each item's (descending,
        nulls_first).

        Raises:
            ExecutionError: "ORDER BY position n is out of range".
        """
        names = [n for n, _ in items]
        keyed = []
        for values, env in entries:
            keys = []
            for item in order_by:
                e = item.expr
                if isinstance(e, Literal) and isinstance(e.value, int) and not isinstance(e.value, bool):
                    if not 1 <= e.value <= len(values):
                        raise ExecutionError(f"ORDER BY position {e.value} is out of range")
                    keys.append(values[e.value - 1])
                elif isinstance(e, ColumnRef) and e.table is None and e.name in names:
                    keys.append(values[names.index(e.name)])
                else:
                    keys.append(self.evaluator.evaluate(e, env))
            keyed.append((tuple(keys), (values, env)))
        return sort_entries(keyed, [(o.descending, o.nulls_first) for o in order_by])

    # ------------------------------------------------------------------- select

    def _count(self, expr: Expr | None, what: str, outer: RowEnv | None) -> int | None:
        if expr is None:
            return None
        value = self.evaluator.evaluate(expr, RowEnv.empty(outer))
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ExecutionError(f"{what} must be a non-negative integer, got {value!r}")
        return value

    def execute_select(self, select: Select, outer: RowEnv | None = None) -> tuple[list[str], list[tuple]]:
        """Run a SELECT and return (column names, rows).

        Steps: `build_rows` (FROM + WHERE); `expand_select_items`; if the query
        is grouped (it has GROUP BY or HAVING, or an aggregate in its select
        list or ORDER BY) `group_rows` gives one env per group, otherwise there
        is one env per row; each env is projected to a tuple of the item values;
        with DISTINCT, duplicate projected tuples are dropped (`distinct_rows`,
        first kept); `apply_order_by` when there is an ORDER BY (otherwise rows
        keep FROM order: rowid order, joins nested left to right); then OFFSET
        rows are skipped and at most LIMIT rows kept. LIMIT and OFFSET are
        evaluated as constants; NULL means no limit / no offset.

        ``outer`` is the environment of the enclosing query when this SELECT is
        a (possibly correlated) subquery.

        Raises:
            ExecutionError: "LIMIT must be a non-negative integer, got x" (same
                for OFFSET), and errors of the steps above.
        """
        scope, rows = self.build_rows(select.from_, select.where, outer)
        items = self.expand_select_items(select.items, scope)
        grouped = (
            bool(select.group_by)
            or select.having is not None
            or bool(find_aggregates([e for _, e in items] + [o.expr for o in select.order_by]))
        )
        if grouped:
            envs = self.group_rows(select, scope, rows, outer)
        else:
            envs = [RowEnv(scope, row, outer) for row in rows]
        entries = [(tuple(self.evaluator.evaluate(e, env) for _, e in items), env) for env in envs]
        if select.distinct:
            entries = distinct_rows(entries, key=lambda entry: entry[0])
        if select.order_by:
            entries = self.apply_order_by(select.order_by, items, entries)
        out = [values for values, _ in entries]
        limit = self._count(select.limit, "LIMIT", outer)
        offset = self._count(select.offset, "OFFSET", outer) or 0
        out = out[offset:] if limit is None else out[offset : offset + limit]
        return [n for n, _ in items], out

    def run_subquery(self, node: InSubquery | Exists | ScalarSubquery, env: RowEnv) -> Any:
        """Evaluate a subquery expression; ``env`` is the enclosing row's environment.

        The subquery runs with `execute_select` and ``outer=env``, so it may refer
        to the enclosing query's columns (a correlated subquery, re-run per row).

        - `Exists`: True if the subquery returns at least one row, else False.
        - `ScalarSubquery`: the single value of its single row; NULL when it
          returns no rows.
        - `InSubquery`: like IN with a list: False when the subquery returns no
          rows (even for a NULL operand); NULL when the operand is NULL; True when
          some returned value equals the operand; otherwise NULL if some returned
          value is NULL, else False. NOT IN is the three-valued negation.

        Raises:
            ExecutionError: "subquery must return exactly one column" (scalar and
                IN subqueries); "scalar subquery returned more than one row".
        """
        if isinstance(node, Exists):
            _, rows = self.execute_select(node.query, env)
            return bool(rows)
        if isinstance(node, ScalarSubquery):
            names, rows = self.execute_select(node.query, env)
            if len(names) != 1:
                raise ExecutionError("subquery must return exactly one column")
            if not rows:
                return None
            if len(rows) > 1:
                raise ExecutionError("scalar subquery returned more than one row")
            return rows[0][0]
        value = self.evaluator.evaluate(node.operand, env)
        names, rows = self.execute_select(node.query, env)
        if len(names) != 1:
            raise ExecutionError("subquery must return exactly one column")
        if not rows:
            result: bool | None = False
        elif value is None:
            result = None
        else:
            result = False
            for (v,) in rows:
                if v is None:
                    result = None
                elif apply_comparison("=", value, v):
                    result = True
                    break
        return apply_logical("NOT", result) if node.negated else result

    # ---------------------------------------------------------------------- DML

    def execute_insert(self, stmt: Insert) -> int:
        """Run an INSERT and return the number of rows inserted.

        Target columns are the given column list, or all columns in table order.
        For VALUES, every row must have one value per target column; all values
        are evaluated (as constants: no columns are visible) before the first
        row is inserted. For INSERT ... SELECT the query runs first and must
        return one column per target column. Each row is stored with
        `Table.insert` as {column: value}; columns not listed get their defaults.

        Raises:
            CatalogError: unknown table or column; "column c specified more than
                once" in the column list.
            ExecutionError: "expected N values, got M" for a VALUES row of the
                wrong length; "INSERT has N target columns but the SELECT returns
                M".
            ConstraintError, TypeMismatchError: from `Table.insert`. Rows inserted
                before the failing one stay (the `Database` makes statements
                atomic).
        """
        table = self.catalog.get_table(stmt.table)
        columns = list(stmt.columns) if stmt.columns is not None else table.column_names
        for i, c in enumerate(columns):
            table.position(c)
            if c in columns[:i]:
                raise CatalogError(f"column {c} specified more than once")
        if stmt.query is not None:
            names, value_rows = self.execute_select(stmt.query)
            if len(names) != len(columns):
                raise ExecutionError(
                    f"INSERT has {len(columns)} target columns but the SELECT returns {len(names)}"
                )
        else:
            value_rows = []
            for exprs in stmt.rows or ():
                if len(exprs) != len(columns):
                    raise ExecutionError(f"expected {len(columns)} values, got {len(exprs)}")
                value_rows.append(tuple(self.evaluator.evaluate(e, RowEnv.empty()) for e in exprs))
        for values in value_rows:
            table.insert(dict(zip(columns, values, strict=False)))
        return len(value_rows)

    def execute_update(self, stmt: Update) -> int:
        """Run an UPDATE and return the number of rows changed.

        Candidate rows come from `plan_access` (then the full WHERE is applied;
        without WHERE every row matches). For every matching row the SET
        expressions are evaluated against the row's *old* values (``SET a = b, b
        = a`` swaps); all new values are computed before any row is written, then
        each row is written with `Table.update` in rowid order.

        Raises:
            CatalogError: unknown table or column; "column c assigned more than
                once".
            ConstraintError, TypeMismatchError: from `Table.update` or evaluation.
        """
        table = self.catalog.get_table(stmt.table)
        assigned: list[str] = []
        for col, _ in stmt.assignments:
            table.position(col)
            if col in assigned:
                raise CatalogError(f"column {col} assigned more than once")
            assigned.append(col)
        scope = Scope([(table.name, table.column_names)])
        plan = self.plan_access(table, table.name, stmt.where)
        changes: list[tuple[int, dict[str, Any]]] = []
        for rowid in self._rowids(plan):
            env = RowEnv(scope, table.rows[rowid])
            if stmt.where is not None and not _truth(
                self.evaluator.evaluate(stmt.where, env), "WHERE clause"
            ):
                continue
            changes.append(
                (rowid, {col: self.evaluator.evaluate(e, env) for col, e in stmt.assignments})
            )
        for rowid, new in changes:
            table.update(rowid, new)
        return len(changes)

    def execute_delete(self, stmt: Delete) -> int:
        """Run a DELETE and return the number of rows deleted.

        Candidate rows come from `plan_access`; the WHERE condition is evaluated
        for every candidate *before* any row is deleted (so a subquery in WHERE
        sees the table as it was); the matching rows are then deleted with
        `Table.delete`. Without WHERE every row is deleted.

        Raises:
            CatalogError: unknown table or column.
        """
        table = self.catalog.get_table(stmt.table)
        scope = Scope([(table.name, table.column_names)])
        plan = self.plan_access(table, table.name, stmt.where)
        doomed = [
            rowid
            for rowid in self._rowids(plan)
            if stmt.where is None
            or _truth(
                self.evaluator.evaluate(stmt.where, RowEnv(scope, table.rows[rowid])),
                "WHERE clause",
            )
        ]
        for rowid in doomed:
            table.delete(rowid)
        return len(doomed)

    # ----------------------------------------------------------------- dispatch

    def execute(self, stmt: Statement) -> Result:
        """Execute one non-transaction statement and wrap the outcome in a `Result`.

        - SELECT: ``Result(columns, rows, rowcount=len(rows))``.
        - INSERT / UPDATE / DELETE: ``Result([], [], rowcount=<rows affected>)``.
        - CREATE TABLE / CREATE INDEX / DROP TABLE / DROP INDEX: the catalog
          operation (with its IF [NOT] EXISTS flag), ``Result()`` with rowcount 0.

        Raises:
            ExecutionError: "transaction statements are handled by Database" for
                BEGIN, COMMIT and ROLLBACK (and for any other statement type).
        """
        if isinstance(stmt, Select):
            columns, rows = self.execute_select(stmt)
            return Result(columns, rows, len(rows))
        if isinstance(stmt, Insert):
            return Result(rowcount=self.execute_insert(stmt))
        if isinstance(stmt, Update):
            return Result(rowcount=self.execute_update(stmt))
        if isinstance(stmt, Delete):
            return Result(rowcount=self.execute_delete(stmt))
        if isinstance(stmt, CreateTable):
            self.catalog.create_table(stmt)
        elif isinstance(stmt, CreateIndex):
            self.catalog.create_index(stmt)
        elif isinstance(stmt, DropTable):
            self.catalog.drop_table(stmt.name, stmt.if_exists)
        elif isinstance(stmt, DropIndex):
            self.catalog.drop_index(stmt.name, stmt.if_exists)
        else:
            raise ExecutionError("transaction statements are handled by Database")
        return Result()
