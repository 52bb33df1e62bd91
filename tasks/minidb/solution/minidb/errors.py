"""The error types raised by minidb.

Every error derives from `MiniDBError`, so callers can catch everything the
database raises with one ``except`` clause, or pick a precise subclass:

- `SQLSyntaxError`: the SQL text could not be tokenized or parsed; carries the
  0-based character ``position`` of the problem when it is known.
- `CatalogError`: an unknown or duplicate table, column or index.
- `ConstraintError`: a NOT NULL, PRIMARY KEY, UNIQUE or VARCHAR length violation.
- `TypeMismatchError`: a value that cannot be stored in, compared with, or
  computed on a value of another type.
- `ExecutionError`: any other run-time failure (division by zero, an ambiguous
  column name, a scalar subquery returning several rows, a wrong parameter count).
- `TransactionError`: BEGIN inside a transaction, COMMIT or ROLLBACK outside one.
"""

from __future__ import annotations


class MiniDBError(Exception):
    """Base class of every error raised by minidb."""


class SQLSyntaxError(MiniDBError):
    """The SQL text is not valid.

    Attributes:
        message: what is wrong, without the position.
        position: 0-based character offset in the SQL text, or None if unknown.
    """

    def __init__(self, message: str, position: int | None = None):
        self.message = message
        self.position = position
        text = message if position is None else f"{message} at position {position}"
        super().__init__(text)


class CatalogError(MiniDBError):
    """An unknown or duplicate table, column or index."""


class ConstraintError(MiniDBError):
    """A NOT NULL, PRIMARY KEY, UNIQUE or length constraint was violated."""


class TypeMismatchError(MiniDBError):
    """A value has the wrong type for a column, a comparison or an operator."""


class ExecutionError(MiniDBError):
    """A run-time error while executing a statement."""


class TransactionError(MiniDBError):
    """Transaction statements used out of order (nested BEGIN, COMMIT without BEGIN)."""
