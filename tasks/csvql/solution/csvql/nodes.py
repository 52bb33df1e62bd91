"""The syntax tree of a query, as produced by :mod:`csvql.parser`.

Expressions are :class:`ColumnRef`, :class:`Literal`, :class:`Aggregate`,
:class:`Compare`, :class:`IsNull`, :class:`And`, :class:`Or` and :class:`Not`.
All nodes are frozen dataclasses, so they compare by value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

AGGREGATE_FUNCTIONS = ("COUNT", "SUM", "AVG", "MIN", "MAX")


@dataclass(frozen=True)
class ColumnRef:
    """A reference to a column (or, in ORDER BY, to an output name) by name."""

    name: str


@dataclass(frozen=True)
class Literal:
    """A constant: ``int``, ``float``, ``str``, ``bool`` or ``None`` (NULL)."""

    value: object


@dataclass(frozen=True)
class Aggregate:
    """An aggregate call such as ``SUM(price)``; ``arg`` is ``None`` for ``COUNT(*)``.

    ``func`` is always upper case, one of :data:`AGGREGATE_FUNCTIONS`.
    """

    func: str
    arg: ColumnRef | None

    @property
    def label(self) -> str:
        """The default output name: ``"COUNT(*)"``, ``"SUM(price)"``."""
        return f"{self.func}({'*' if self.arg is None else self.arg.name})"


@dataclass(frozen=True)
class Compare:
    """A comparison ``left op right``; ``op`` is one of ``= != < <= > >=``."""

    op: str
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class IsNull:
    """``operand IS NULL`` (or ``IS NOT NULL`` when ``negated``)."""

    operand: "Expr"
    negated: bool = False


@dataclass(frozen=True)
class And:
    """Logical conjunction."""

    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Or:
    """Logical disjunction."""

    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Not:
    """Logical negation."""

    operand: "Expr"


Expr = Union[ColumnRef, Literal, Aggregate, Compare, IsNull, And, Or, Not]


@dataclass(frozen=True)
class Star:
    """``SELECT *``: every column of the table."""


@dataclass(frozen=True)
class SelectItem:
    """One entry of the select list: a column or an aggregate, with an optional alias."""

    expr: ColumnRef | Aggregate
    alias: str | None = None

    @property
    def output_name(self) -> str:
        """The alias if given, else the column name, else the aggregate's label."""
        if self.alias is not None:
            return self.alias
        if isinstance(self.expr, ColumnRef):
            return self.expr.name
        return self.expr.label


@dataclass(frozen=True)
class OrderItem:
    """One ORDER BY key: a column/output name or an aggregate, and its direction."""

    expr: ColumnRef | Aggregate
    descending: bool = False


@dataclass(frozen=True)
class Select:
    """A whole query.

    ``items`` is either ``[Star()]`` or a list of :class:`SelectItem`; ``where`` is
    ``None`` when absent; ``group_by`` lists column names; ``limit`` is ``None``
    when absent.
    """

    items: tuple
    table: str
    where: Expr | None = None
    group_by: tuple = field(default_factory=tuple)
    order_by: tuple = field(default_factory=tuple)
    limit: int | None = None
