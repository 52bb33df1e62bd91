"""The in-memory table that queries run against."""

from __future__ import annotations

from dataclasses import dataclass, field

from csvql.errors import UnknownColumnError


@dataclass
class Table:
    """A named table: column names, one type name per column, and rows as tuples.

    Values are Python ``int``, ``float``, ``bool``, ``str`` or ``None`` (NULL),
    matching the column's type (see :mod:`csvql.coltypes`).
    """

    name: str
    columns: list[str]
    types: list[str]
    rows: list[tuple] = field(default_factory=list)

    def index_of(self, column: str) -> int:
        """Return the position of ``column`` (exact, case-sensitive match).

        Raises :class:`~csvql.errors.UnknownColumnError` if there is no such column.
        """
        try:
            return self.columns.index(column)
        except ValueError:
            raise UnknownColumnError(column) from None

    def type_of(self, column: str) -> str:
        """Return the type name of ``column``; raises ``UnknownColumnError`` like
        :meth:`index_of`."""
        return self.types[self.index_of(column)]

    def row_dicts(self) -> list[dict]:
        """Return the rows as dictionaries mapping column name to value."""
        return [dict(zip(self.columns, row)) for row in self.rows]
