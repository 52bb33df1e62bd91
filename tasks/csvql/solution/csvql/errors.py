"""The exception hierarchy of csvql.

Every error raised on purpose by csvql derives from :class:`CsvqlError`, so a
caller can catch them all at once; the subclasses say which stage failed.
"""

from __future__ import annotations


class CsvqlError(Exception):
    """Base class of every csvql error."""


class CSVError(CsvqlError):
    """Malformed CSV input.

    ``line`` is the 1-based line number of the input where the problem was
    detected (or ``None`` when no single line is to blame).
    """

    def __init__(self, message: str, line: int | None = None):
        self.line = line
        super().__init__(message if line is None else f"line {line}: {message}")


class QuerySyntaxError(CsvqlError):
    """A query that cannot be tokenized or parsed.

    ``pos`` is the 0-based character offset in the query text where the problem
    was detected.
    """

    def __init__(self, message: str, pos: int):
        self.pos = pos
        super().__init__(f"{message} (at position {pos})")


class QueryError(CsvqlError):
    """A syntactically valid query that is meaningless for the data."""


class UnknownColumnError(QueryError):
    """A query names a column that does not exist; ``column`` holds the name."""

    def __init__(self, column: str):
        self.column = column
        super().__init__(f"unknown column {column!r}")


class UnknownTableError(QueryError):
    """A query names a table that is not registered; ``table`` holds the name."""

    def __init__(self, table: str):
        self.table = table
        super().__init__(f"unknown table {table!r}")


class QueryTypeError(QueryError):
    """Values of incompatible types meet: e.g. a number compared with a string,
    or ``SUM`` over a text column."""
