"""minidb: an in-memory relational database with a SQL subset.

Quick start::

    from minidb import Database

    db = Database()
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO t VALUES (1, 'a'), (2, NULL)")
    print(db.execute("SELECT * FROM t ORDER BY id").format())

Layers, bottom up: `lexer` -> `parser` (AST in `syntax`) -> `values`,
`storage`, `expressions` -> `aggregates`, `ordering`, `executor` ->
`database`.
"""

from minidb.database import Database
from minidb.errors import (
    CatalogError,
    ConstraintError,
    ExecutionError,
    MiniDBError,
    SQLSyntaxError,
    TransactionError,
    TypeMismatchError,
)
from minidb.lexer import tokenize
from minidb.parser import Parser, parse_sql
from minidb.result import Result
from minidb.tokens import Token, TokenType

__version__ = "0.1.0"

__all__ = [
    "CatalogError",
    "ConstraintError",
    "Database",
    "ExecutionError",
    "MiniDBError",
    "Parser",
    "Result",
    "SQLSyntaxError",
    "Token",
    "TokenType",
    "TransactionError",
    "TypeMismatchError",
    "parse_sql",
    "tokenize",
]
