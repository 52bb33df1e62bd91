"""The abstract syntax tree produced by `minidb.parser`.

All nodes are frozen dataclasses compared by value, so parsed trees can be
checked with ``==`` and used as dictionary keys. Sequences are tuples.
Identifiers are stored as the lexer produced them (unquoted ones lower-cased);
function names are lower-cased; keyword operators are upper-case strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

# ----------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Literal:
    """A constant: int, float, str, bool, or None for NULL."""

    value: Any


@dataclass(frozen=True)
class Parameter:
    """A ``?`` placeholder; ``index`` is its 0-based position in the statement."""

    index: int


@dataclass(frozen=True)
class ColumnRef:
    """A column reference ``name`` or ``table.name`` (``table`` may be an alias)."""

    name: str
    table: str | None = None


@dataclass(frozen=True)
class Star:
    """``*`` or ``table.*`` in a select list."""

    table: str | None = None


@dataclass(frozen=True)
class UnaryOp:
    """``-operand`` (op ``'-'``) or ``NOT operand`` (op ``'NOT'``)."""

    op: str
    operand: Expr


@dataclass(frozen=True)
class BinaryOp:
    """``left op right``.

    ``op`` is one of ``+ - * / % ||``, ``= <> < <= > >=``, ``AND``, ``OR``.
    """

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class IsNull:
    """``operand IS NULL`` (or ``IS NOT NULL`` when ``negated``)."""

    operand: Expr
    negated: bool = False


@dataclass(frozen=True)
class InList:
    """``operand [NOT] IN (item, ...)``."""

    operand: Expr
    items: tuple[Expr, ...]
    negated: bool = False


@dataclass(frozen=True)
class InSubquery:
    """``operand [NOT] IN (SELECT ...)``."""

    operand: Expr
    query: Select
    negated: bool = False


@dataclass(frozen=True)
class Between:
    """``operand [NOT] BETWEEN low AND high``."""

    operand: Expr
    low: Expr
    high: Expr
    negated: bool = False


@dataclass(frozen=True)
class Like:
    """``operand [NOT] LIKE pattern``."""

    operand: Expr
    pattern: Expr
    negated: bool = False


@dataclass(frozen=True)
class Exists:
    """``EXISTS (SELECT ...)``; ``NOT EXISTS`` is ``UnaryOp('NOT', Exists(...))``."""

    query: Select


@dataclass(frozen=True)
class ScalarSubquery:
    """``(SELECT ...)`` used as a value."""

    query: Select


@dataclass(frozen=True)
class FunctionCall:
    """``name(args)``, ``name(DISTINCT arg)`` or ``count(*)`` (``star=True``, no args)."""

    name: str
    args: tuple[Expr, ...] = ()
    distinct: bool = False
    star: bool = False


@dataclass(frozen=True)
class Case:
    """``CASE [operand] WHEN cond THEN result ... [ELSE else_] END``.

    ``operand`` is None for a searched CASE. ``whens`` holds (condition, result)
    pairs; for a simple CASE the condition is the value compared with operand.
    """

    operand: Expr | None
    whens: tuple[tuple[Expr, Expr], ...]
    else_: Expr | None = None


Expr = Union[
    Literal,
    Parameter,
    ColumnRef,
    Star,
    UnaryOp,
    BinaryOp,
    IsNull,
    InList,
    InSubquery,
    Between,
    Like,
    Exists,
    ScalarSubquery,
    FunctionCall,
    Case,
]

# ------------------------------------------------------------------ statements


@dataclass(frozen=True)
class ColumnDef:
    """A column in CREATE TABLE.

    ``type_name`` is the canonical type: 'INTEGER', 'REAL', 'TEXT' or 'BOOLEAN';
    ``length`` is the n of VARCHAR(n)/CHAR(n) (TEXT only) or None. ``default`` is
    a `Literal` or None when there is no DEFAULT clause.
    """

    name: str
    type_name: str
    length: int | None = None
    not_null: bool = False
    primary_key: bool = False
    unique: bool = False
    default: Literal | None = None


@dataclass(frozen=True)
class CreateTable:
    """CREATE TABLE; ``primary_key``/``uniques`` hold the table-level constraints."""

    name: str
    columns: tuple[ColumnDef, ...]
    primary_key: tuple[str, ...] = ()
    uniques: tuple[tuple[str, ...], ...] = ()
    if_not_exists: bool = False


@dataclass(frozen=True)
class CreateIndex:
    """CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table (column)."""

    name: str
    table: str
    column: str
    unique: bool = False
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropTable:
    """DROP TABLE [IF EXISTS] name."""

    name: str
    if_exists: bool = False


@dataclass(frozen=True)
class DropIndex:
    """DROP INDEX [IF EXISTS] name."""

    name: str
    if_exists: bool = False


@dataclass(frozen=True)
class TableRef:
    """A table in FROM, with an optional alias."""

    name: str
    alias: str | None = None

    @property
    def binding(self) -> str:
        """The name that qualifies this table's columns: the alias, else the name."""
        return self.alias or self.name


@dataclass(frozen=True)
class Join:
    """A join onto the tables before it: kind is 'INNER', 'LEFT' or 'CROSS'."""

    kind: str
    table: TableRef
    on: Expr | None = None


@dataclass(frozen=True)
class FromClause:
    """``FROM first [joins...]``; a comma between tables is a CROSS join."""

    first: TableRef
    joins: tuple[Join, ...] = ()


@dataclass(frozen=True)
class SelectItem:
    """One item of a select list: an expression (or `Star`) with an optional alias."""

    expr: Expr
    alias: str | None = None


@dataclass(frozen=True)
class OrderItem:
    """One ORDER BY key. ``nulls_first`` is None when NULLS FIRST/LAST is not given."""

    expr: Expr
    descending: bool = False
    nulls_first: bool | None = None


@dataclass(frozen=True)
class Select:
    """A SELECT statement (also used for subqueries)."""

    items: tuple[SelectItem, ...]
    from_: FromClause | None = None
    where: Expr | None = None
    group_by: tuple[Expr, ...] = ()
    having: Expr | None = None
    order_by: tuple[OrderItem, ...] = ()
    limit: Expr | None = None
    offset: Expr | None = None
    distinct: bool = False


@dataclass(frozen=True)
class Insert:
    """INSERT INTO table [(columns)] VALUES (...), ... | SELECT ...

    Exactly one of ``rows`` and ``query`` is set; ``columns`` is None when no
    column list was given.
    """

    table: str
    columns: tuple[str, ...] | None = None
    rows: tuple[tuple[Expr, ...], ...] | None = None
    query: Select | None = None


@dataclass(frozen=True)
class Update:
    """UPDATE table SET column = expr, ... [WHERE where]."""

    table: str
    assignments: tuple[tuple[str, Expr], ...]
    where: Expr | None = None


@dataclass(frozen=True)
class Delete:
    """DELETE FROM table [WHERE where]."""

    table: str
    where: Expr | None = None


@dataclass(frozen=True)
class Begin:
    """BEGIN [TRANSACTION]."""


@dataclass(frozen=True)
class Commit:
    """COMMIT [TRANSACTION]."""


@dataclass(frozen=True)
class Rollback:
    """ROLLBACK [TRANSACTION]."""


Statement = Union[
    Select,
    Insert,
    Update,
    Delete,
    CreateTable,
    CreateIndex,
    DropTable,
    DropIndex,
    Begin,
    Commit,
    Rollback,
]
