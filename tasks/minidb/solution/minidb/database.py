"""Layer 5: the `Database` facade: SQL in, `Result` out, with transactions.

Every statement is atomic: if it fails, the database is left exactly as it
was before the statement (rows inserted by an INSERT before the failing row
are removed again). Outside a transaction each statement commits on its own
(autocommit). ``BEGIN`` starts a transaction; ``COMMIT`` keeps its changes;
``ROLLBACK`` restores the database as it was at ``BEGIN``. A failing statement
inside a transaction is undone on its own and the transaction stays open (as
in SQLite).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from minidb.errors import ExecutionError, TransactionError
from minidb.executor import Executor
from minidb.lexer import tokenize
from minidb.parser import parse_sql
from minidb.result import Result
from minidb.storage import Catalog
from minidb.syntax import Begin, Commit, Delete, Rollback, Select, Statement, Update
from minidb.tokens import TokenType


class Database:
    """An in-memory database.

    Example::

        db = Database()
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        db.execute("INSERT INTO users VALUES (1, 'ann'), (2, 'bob')")
        db.execute("SELECT name FROM users WHERE id = ?", (2,)).rows   # [('bob',)]

    Attributes:
        catalog: the current tables and indexes.
    """

    def __init__(self):
        """Create an empty database, not in a transaction."""
        self.catalog = Catalog()
        self._saved: Catalog | None = None

    @property
    def in_transaction(self) -> bool:
        """True between BEGIN and COMMIT/ROLLBACK."""
        return self._saved is not None

    def table_names(self) -> list[str]:
        """The names of all tables, sorted."""
        return sorted(self.catalog.tables)

    # ------------------------------------------------------------ transactions

    def begin(self) -> None:
        """Start a transaction: remember the current state of the whole catalog.

        Raises:
            TransactionError: "a transaction is already active".
        """
        if self._saved is not None:
            raise TransactionError("a transaction is already active")
        self._saved = copy.deepcopy(self.catalog)

    def commit(self) -> None:
        """End the transaction, keeping its changes.

        Raises:
            TransactionError: "no transaction is active".
        """
        if self._saved is None:
            raise TransactionError("no transaction is active")
        self._saved = None

    def rollback(self) -> None:
        """End the transaction, restoring the catalog as it was at `begin`.

        Tables created during the transaction disappear, dropped ones come back,
        rows and indexes are restored.

        Raises:
            TransactionError: "no transaction is active".
        """
        if self._saved is None:
            raise TransactionError("no transaction is active")
        self.catalog = self._saved
        self._saved = None

    # --------------------------------------------------------------- execution

    def run_statement(self, stmt: Statement, params: Sequence[Any] = ()) -> Result:
        """Execute one parsed statement with ``params`` for its ``?`` placeholders.

        `Begin`, `Commit` and `Rollback` call `begin`, `commit` and `rollback`
        and return an empty ``Result()``. SELECT runs directly on the catalog
        (`Executor.execute`). Any other statement is atomic: a copy of the
        catalog is taken first and, if execution raises, the catalog is restored
        from it before the error propagates.

        Raises:
            TransactionError: from the transaction methods.
            MiniDBError: whatever execution raises (the database unchanged).
        """
        if isinstance(stmt, Begin):
            self.begin()
            return Result()
        if isinstance(stmt, Commit):
            self.commit()
            return Result()
        if isinstance(stmt, Rollback):
            self.rollback()
            return Result()
        if isinstance(stmt, Select):
            return Executor(self.catalog, params).execute(stmt)
        saved = copy.deepcopy(self.catalog)
        try:
            return Executor(self.catalog, params).execute(stmt)
        except Exception:
            self.catalog = saved
            raise

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Result:
        """Parse and execute exactly one SQL statement (a trailing ';' is fine).

        ``params`` gives the values of the ``?`` placeholders, in order; there
        must be exactly as many values as placeholders.

        Returns:
            The statement's `Result` (see `Executor.execute`; empty for BEGIN,
            COMMIT and ROLLBACK).

        Raises:
            SQLSyntaxError: the text does not parse.
            ExecutionError: "execute() expects exactly one statement, got N";
                "expected N parameters, got M".
            MiniDBError: any error of the statement (which then has no effect).
        """
        statements = parse_sql(sql)
        if len(statements) != 1:
            raise ExecutionError(f"execute() expects exactly one statement, got {len(statements)}")
        expected = sum(1 for t in tokenize(sql) if t.type is TokenType.PARAM)
        if len(params) != expected:
            raise ExecutionError(f"expected {expected} parameters, got {len(params)}")
        return self.run_statement(statements[0], tuple(params))

    def execute_script(self, sql: str) -> list[Result]:
        """Execute every statement of ``sql`` in order and return their results.

        The whole text is parsed first: a syntax error anywhere runs nothing.
        Execution stops at the first failing statement, whose error propagates;
        the statements before it keep their effects. Placeholders are not
        supported (a ``?`` fails with "missing value for parameter 1").
        """
        return [self.run_statement(stmt) for stmt in parse_sql(sql)]

    def explain(self, sql: str, params: Sequence[Any] = ()) -> str:
        """Describe how one SELECT, UPDATE or DELETE would access its tables.

        One line per table, in FROM order: ``INDEX LOOKUP t USING idx`` when
        `Executor.plan_access` picks an index (only for a single-table FROM and
        for UPDATE/DELETE), else ``SCAN t``. A SELECT without FROM gives
        ``CONSTANT ROW``. Nothing is executed.

        Raises:
            SQLSyntaxError: the text does not parse.
            CatalogError: an unknown table.
            ExecutionError: "explain() expects exactly one statement" or
                "EXPLAIN supports SELECT, UPDATE and DELETE".
        """
        statements = parse_sql(sql)
        if len(statements) != 1:
            raise ExecutionError("explain() expects exactly one statement")
        stmt = statements[0]
        executor = Executor(self.catalog, tuple(params))
        if isinstance(stmt, (Update, Delete)):
            table = self.catalog.get_table(stmt.table)
            return executor.plan_access(table, table.name, stmt.where).describe()
        if not isinstance(stmt, Select):
            raise ExecutionError("EXPLAIN supports SELECT, UPDATE and DELETE")
        if stmt.from_ is None:
            return "CONSTANT ROW"
        first = stmt.from_.first
        table = self.catalog.get_table(first.name)
        if not stmt.from_.joins:
            return executor.plan_access(table, first.binding, stmt.where).describe()
        lines = [f"SCAN {first.name}"]
        for join in stmt.from_.joins:
            lines.append(f"SCAN {self.catalog.get_table(join.table.name).name}")
        return "\n".join(lines)
