"""Syntax tree nodes produced by :func:`sheetcalc.parser.parse`.

All nodes are frozen dataclasses, so trees compare with ``==`` and can be
used as dictionary keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .address import CellRef, RangeRef


@dataclass(frozen=True)
class Number:
    """A numeric literal (always a ``float``)."""

    value: float


@dataclass(frozen=True)
class Text:
    """A string literal (without quotes)."""

    value: str


@dataclass(frozen=True)
class Boolean:
    """``TRUE`` or ``FALSE``."""

    value: bool


@dataclass(frozen=True)
class ErrorLiteral:
    """An error literal such as ``#REF!``; ``code`` is the canonical code."""

    code: str


@dataclass(frozen=True)
class Ref:
    """A reference to a single cell."""

    ref: CellRef


@dataclass(frozen=True)
class Range:
    """A range reference ``start:end``."""

    range: RangeRef


@dataclass(frozen=True)
class Name:
    """A bare name that is not a reference, boolean or function call."""

    name: str


@dataclass(frozen=True)
class Unary:
    """Prefix ``+`` or ``-`` applied to ``operand``."""

    op: str
    operand: "Node"


@dataclass(frozen=True)
class Percent:
    """Postfix ``%`` applied to ``operand`` (divides by 100)."""

    operand: "Node"


@dataclass(frozen=True)
class Binary:
    """An infix operator: arithmetic, ``&`` or a comparison."""

    op: str
    left: "Node"
    right: "Node"


@dataclass(frozen=True)
class Call:
    """A function call; ``name`` is upper-case, ``args`` a tuple of nodes."""

    name: str
    args: tuple["Node", ...] = ()


Node = Union[Number, Text, Boolean, ErrorLiteral, Ref, Range, Name, Unary, Percent, Binary, Call]

#: Binding strength of binary operators (higher binds tighter).
BINARY_PRECEDENCE = {
    "=": 1, "<>": 1, "<": 1, ">": 1, "<=": 1, ">=": 1,
    "&": 2,
    "+": 3, "-": 3,
    "*": 4, "/": 4,
    "^": 5,
}
PERCENT_PRECEDENCE = 6
UNARY_PRECEDENCE = 7
ATOM_PRECEDENCE = 8
