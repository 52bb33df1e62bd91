"""The `Result` of executing one statement."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from minidb.values import is_number


def render_value(value: Any) -> str:
    """How `Result.format` shows a value: NULL, true/false, or ``str(value)``."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass
class Result:
    """What a statement returns.

    Attributes:
        columns: output column names (empty for statements other than SELECT).
        rows: output rows as tuples (empty for statements other than SELECT).
        rowcount: rows returned (SELECT) or affected (INSERT, UPDATE, DELETE);
            0 for DDL and transaction statements.
    """

    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    rowcount: int = 0

    def __iter__(self) -> Iterator[tuple]:
        """Iterate over the rows."""
        return iter(self.rows)

    def __len__(self) -> int:
        """The number of rows."""
        return len(self.rows)

    def scalar(self) -> Any:
        """The first value of the first row, or None when there are no rows."""
        return self.rows[0][0] if self.rows else None

    def as_dicts(self) -> list[dict[str, Any]]:
        """The rows as dicts keyed by column name (a later duplicate name wins)."""
        return [dict(zip(self.columns, row, strict=False)) for row in self.rows]

    def format(self) -> str:
        """Render the result as a text table.

        For a result with columns::

            id | name
            ---+-----
             1 | ann
             2 | NULL
            (2 rows)

        Values are rendered with `render_value`. Each column is as wide as its
        widest cell (header included). Header cells are left-aligned; value
        cells are right-aligned for numbers (int/float, not bool) and
        left-aligned otherwise. Cells are joined with ``" | "``; the separator
        line has ``-`` across each column's width, joined with ``"-+-"``. Every
        line has its trailing spaces removed. The last line is ``(1 row)`` or
        ``(N rows)``. Lines are joined with ``"\\n"``, no final newline.

        A result without columns (INSERT, UPDATE, DELETE, DDL) is the single line
        ``(1 row affected)`` or ``(N rows affected)`` using ``rowcount``.
        """
        if not self.columns:
            noun = "row" if self.rowcount == 1 else "rows"
            return f"({self.rowcount} {noun} affected)"
        cells = [[render_value(v) for v in row] for row in self.rows]
        widths = [len(c) for c in self.columns]
        for row in cells:
            for i, text in enumerate(row):
                widths[i] = max(widths[i], len(text))
        lines = [" | ".join(c.ljust(w) for c, w in zip(self.columns, widths, strict=False)).rstrip()]
        lines.append("-+-".join("-" * w for w in widths))
        for raw, row in zip(self.rows, cells, strict=False):
            parts = []
            for value, text, w in zip(raw, row, widths, strict=False):
                parts.append(text.rjust(w) if is_number(value) else text.ljust(w))
            lines.append(" | ".join(parts).rstrip())
        n = len(self.rows)
        lines.append(f"({n} {'row' if n == 1 else 'rows'})")
        return "\n".join(lines)
