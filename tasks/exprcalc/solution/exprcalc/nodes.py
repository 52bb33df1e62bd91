"""The abstract syntax tree, and :func:`to_source` which prints it back as text."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Number:
    value: int | float


@dataclass(frozen=True)
class Name:
    id: str


@dataclass(frozen=True)
class UnaryOp:
    op: str  # "-" or "+"
    operand: Node


@dataclass(frozen=True)
class BinOp:
    op: str  # one of + - * / % ^
    left: Node
    right: Node


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Assign:
    name: str
    value: Node


@dataclass(frozen=True)
class FuncDef:
    name: str
    params: tuple[str, ...]
    body: Node


Node = Number | Name | UnaryOp | BinOp | Call | Assign | FuncDef

# Binding strength used by to_source: larger binds tighter.
PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2, "unary": 3, "^": 4, "atom": 5}


def _prec(node: Node) -> int:
    if isinstance(node, BinOp):
        return PRECEDENCE[node.op]
    if isinstance(node, UnaryOp):
        return PRECEDENCE["unary"]
    if isinstance(node, Number) and node.value < 0:
        return PRECEDENCE["unary"]
    return PRECEDENCE["atom"]


def to_source(node: Node) -> str:
    """Return source text for ``node`` that parses back to the same tree.

    Formatting rules:

    * ``Number``: ``int`` values with ``str``, ``float`` values with ``repr``
      (``Number(2.5)`` -> ``"2.5"``, ``Number(1e100)`` -> ``"1e+100"``); a negative
      number is treated like a unary minus expression for parenthesisation.
    * ``Name``: the identifier.  ``Call``: ``"f(a, b)"`` (``", "`` between arguments,
      ``"f()"`` without).
    * ``BinOp``: ``"<left> <op> <right>"`` with one space on each side of the
      operator (including ``^``).
    * ``UnaryOp``: the operator directly followed by the operand (``"-x"``, ``"--x"``).
    * ``Assign``: ``"x = <value>"``; ``FuncDef``: ``"f(a, b) = <body>"``.

    Parentheses are added only where needed.  Precedence, loosest first:
    ``+ -`` < ``* / %`` < unary ``- +`` < ``^`` < atoms.  ``+ - * / %`` are left
    associative, so a right operand of the *same* precedence is parenthesised
    (``1 - (2 - 3)``, ``a * (b / c)``) and a left one is not.  ``^`` is right
    associative: its left operand is parenthesised when it is a ``^`` or a unary
    expression (``(2 ^ 3) ^ 2``, ``(-2) ^ 2``), its right operand only when it
    binds looser than unary (``2 ^ -1``, ``2 ^ (1 + 1)``).  The operand of a unary
    operator is parenthesised when it is a binary ``+ - * / %`` expression
    (``-(a + b)``, but ``-2 ^ 2``).

    Raises ``TypeError`` for an object that is not a node.
    """
    if isinstance(node, Number):
        return repr(node.value) if isinstance(node.value, float) else str(node.value)
    if isinstance(node, Name):
        return node.id
    if isinstance(node, Call):
        return f"{node.func}({', '.join(to_source(a) for a in node.args)})"
    if isinstance(node, UnaryOp):
        inner = to_source(node.operand)
        if _prec(node.operand) < PRECEDENCE["unary"]:
            inner = f"({inner})"
        return f"{node.op}{inner}"
    if isinstance(node, BinOp):
        p = PRECEDENCE[node.op]
        left, right = to_source(node.left), to_source(node.right)
        if node.op == "^":
            left_parens = _prec(node.left) <= p
            right_parens = _prec(node.right) < PRECEDENCE["unary"]
        else:
            left_parens = _prec(node.left) < p
            right_parens = _prec(node.right) <= p
        if left_parens:
            left = f"({left})"
        if right_parens:
            right = f"({right})"
        return f"{left} {node.op} {right}"
    if isinstance(node, Assign):
        return f"{node.name} = {to_source(node.value)}"
    if isinstance(node, FuncDef):
        return f"{node.name}({', '.join(node.params)}) = {to_source(node.body)}"
    raise TypeError(f"not an expression node: {node!r}")
