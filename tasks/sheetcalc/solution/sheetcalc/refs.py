"""Reference analysis and rewriting on syntax trees."""

from __future__ import annotations

from .address import RangeRef, shift_cell
from .errors import AddressError
from .nodes import Binary, Call, ErrorLiteral, Node, Percent, Range, Ref, Unary


def referenced_cells(node: Node) -> set[tuple[int, int]]:
    """Return the ``(row, col)`` of every cell a formula tree refers to.

    Single references contribute their cell; ranges contribute every cell of
    their rectangle (see :meth:`sheetcalc.address.RangeRef.cells`).  The
    whole tree is searched: operands, percent and unary operands, and
    function arguments.  Absolute markers are ignored.  A tree without
    references gives an empty set.
    """
    out: set[tuple[int, int]] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Ref):
            out.add(n.ref.key)
        elif isinstance(n, Range):
            out.update(n.range.cells())
        elif isinstance(n, (Unary, Percent)):
            stack.append(n.operand)
        elif isinstance(n, Binary):
            stack.append(n.left)
            stack.append(n.right)
        elif isinstance(n, Call):
            stack.extend(n.args)
    return out


def shift_references(node: Node, drow: int, dcol: int) -> Node:
    """Return a copy of the tree with references moved as when copying a formula.

    Every :class:`~sheetcalc.nodes.Ref` is moved with
    :func:`sheetcalc.address.shift_cell` (absolute parts stay); both corners
    of every :class:`~sheetcalc.nodes.Range` are moved the same way.  A
    reference (or a range with either corner) that would leave the sheet is
    replaced by ``ErrorLiteral("#REF!")``.  Everything else is copied
    unchanged; the input tree is not modified.
    """
    if isinstance(node, Ref):
        try:
            return Ref(shift_cell(node.ref, drow, dcol))
        except AddressError:
            return ErrorLiteral("#REF!")
    if isinstance(node, Range):
        try:
            start = shift_cell(node.range.start, drow, dcol)
            end = shift_cell(node.range.end, drow, dcol)
        except AddressError:
            return ErrorLiteral("#REF!")
        return Range(RangeRef(start, end))
    if isinstance(node, Unary):
        return Unary(node.op, shift_references(node.operand, drow, dcol))
    if isinstance(node, Percent):
        return Percent(shift_references(node.operand, drow, dcol))
    if isinstance(node, Binary):
        return Binary(
            node.op,
            shift_references(node.left, drow, dcol),
            shift_references(node.right, drow, dcol),
        )
    if isinstance(node, Call):
        return Call(node.name, tuple(shift_references(a, drow, dcol) for a in node.args))
    return node
