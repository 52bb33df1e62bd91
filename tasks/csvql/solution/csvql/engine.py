"""The front door: a :class:`Database` of named tables that answers queries."""

from __future__ import annotations

from csvql.errors import UnknownTableError
from csvql.executor import Result, execute
from csvql.parser import parse
from csvql.planner import plan
from csvql.reader import read_table
from csvql.table import Table


class Database:
    """A set of tables, by name, that can be queried with SQL-like text.

    >>> db = Database()
    >>> db.load_csv("people", "name,age\\nada,36\\nalan,41\\n").columns
    ['name', 'age']
    >>> db.query("SELECT name FROM people WHERE age > 40").rows
    [('alan',)]
    """

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}

    def register(self, table: Table) -> None:
        """Add ``table`` under ``table.name``, replacing any table of that name."""
        self.tables[table.name] = table

    def load_csv(self, name: str, text: str, delimiter: str = ",") -> Table:
        """Read CSV ``text`` with :func:`~csvql.reader.read_table`, register it
        under ``name`` and return it."""
        table = read_table(text, name=name, delimiter=delimiter)
        self.register(table)
        return table

    def query(self, sql: str) -> Result:
        """Run one query and return its :class:`~csvql.executor.Result`.

        Parses ``sql`` (:func:`~csvql.parser.parse`), looks up the table named in
        FROM (exact, case-sensitive name), plans (:func:`~csvql.planner.plan`) and
        executes (:func:`~csvql.executor.execute`) it.

        Raises :class:`~csvql.errors.UnknownTableError` if no table has that name;
        errors of the other stages propagate unchanged.
        """
        select = parse(sql)
        table = self.tables.get(select.table)
        if table is None:
            raise UnknownTableError(select.table)
        return execute(plan(select, table))
