"""Turn a syntax tree back into formula text."""

from __future__ import annotations

from .address import format_cell
from .nodes import (
    ATOM_PRECEDENCE,
    BINARY_PRECEDENCE,
    PERCENT_PRECEDENCE,
    UNARY_PRECEDENCE,
    Binary,
    Boolean,
    Call,
    ErrorLiteral,
    Name,
    Node,
    Number,
    Percent,
    Range,
    Ref,
    Text,
    Unary,
)
from .values import format_number


def _precedence(node: Node) -> int:
    if isinstance(node, Binary):
        return BINARY_PRECEDENCE[node.op]
    if isinstance(node, Percent):
        return PERCENT_PRECEDENCE
    if isinstance(node, Unary):
        return UNARY_PRECEDENCE
    return ATOM_PRECEDENCE


def format_formula(node: Node) -> str:
    """Return canonical formula text for ``node``, without a leading ``=``.

    Canonical form: no spaces; numbers via
    :func:`sheetcalc.values.format_number` (``2.0 -> 2``, ``1e20 -> 1E+20``);
    strings in double quotes with inner quotes doubled; ``TRUE``/``FALSE``;
    error codes as written; references via
    :func:`sheetcalc.address.format_cell` (keeping ``$``); ranges as
    ``A1:B2``; calls as ``NAME(arg,arg)``.

    Parentheses are added only where needed to keep the tree shape, using
    the parser's precedences (comparison < ``&`` < ``+ -`` < ``* /`` <
    ``^`` < ``%`` < unary): a binary operand is parenthesized when it binds
    more loosely than the operator, and a *right* operand also when it binds
    equally (all binary operators are left-associative); the operand of
    a unary sign or ``%`` is parenthesized when it binds more loosely than
    that operator.  So ``parse(format_formula(t)) == t`` for every tree
    ``t`` produced by the parser, e.g. ``(1+2)*3`` stays ``(1+2)*3`` and
    ``1+(2*3)`` becomes ``1+2*3``.

    Raises ``TypeError`` for an object that is not a node.
    """
    if isinstance(node, Number):
        return format_number(node.value)
    if isinstance(node, Text):
        return '"' + node.value.replace('"', '""') + '"'
    if isinstance(node, Boolean):
        return "TRUE" if node.value else "FALSE"
    if isinstance(node, ErrorLiteral):
        return node.code
    if isinstance(node, Ref):
        return format_cell(node.ref)
    if isinstance(node, Range):
        return f"{format_cell(node.range.start)}:{format_cell(node.range.end)}"
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Call):
        return f"{node.name}({','.join(format_formula(a) for a in node.args)})"
    if isinstance(node, Unary):
        inner = format_formula(node.operand)
        if _precedence(node.operand) < UNARY_PRECEDENCE:
            inner = f"({inner})"
        return node.op + inner
    if isinstance(node, Percent):
        inner = format_formula(node.operand)
        if _precedence(node.operand) < PERCENT_PRECEDENCE:
            inner = f"({inner})"
        return inner + "%"
    if isinstance(node, Binary):
        prec = BINARY_PRECEDENCE[node.op]
        left = format_formula(node.left)
        if _precedence(node.left) < prec:
            left = f"({left})"
        right = format_formula(node.right)
        if _precedence(node.right) <= prec:
            right = f"({right})"
        return f"{left}{node.op}{right}"
    raise TypeError(f"not a formula node: {node!r}")
