"""Evaluation of syntax trees against cell values."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .nodes import (
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
from .operators import COMPARISON_OPS, arithmetic, compare, concat, negate, percent
from .values import NAME, VALUE, CellError, RangeValue, as_scalar

#: ``resolver(row, col)`` returns the current value of a cell (``None`` if empty).
Resolver = Callable[[int, int], object]


class Evaluator:
    """Evaluates syntax trees.

    ``resolver(row, col)`` supplies cell values (0-based coordinates).
    ``functions`` maps upper-case function names to
    :class:`~sheetcalc.functions.FunctionSpec`; when omitted, the built-in
    library :data:`sheetcalc.functions.FUNCTIONS` is used.
    """

    def __init__(self, resolver: Resolver, functions: Mapping[str, object] | None = None):
        if functions is None:
            from .functions import FUNCTIONS

            functions = FUNCTIONS
        self.resolver = resolver
        self.functions = functions

    def evaluate(self, node: Node) -> object:
        """Evaluate a whole formula and return the value to store in its cell.

        Like :meth:`eval_node`, then: a :class:`RangeValue` result is reduced
        with :func:`~sheetcalc.values.as_scalar` (a 1x1 range gives its
        value, a larger range ``#VALUE!``), and an empty result (``None``,
        e.g. ``=A1`` with ``A1`` empty) becomes ``0.0``.
        """
        result = as_scalar(self.eval_node(node))
        if result is None:
            return 0.0
        return result

    def eval_node(self, node: Node) -> object:
        """Evaluate any node; the result may be a :class:`RangeValue`.

        * :class:`Number`, :class:`Text`, :class:`Boolean` -> their value;
          :class:`ErrorLiteral` -> ``CellError(code)``;
        * :class:`Ref` -> ``resolver(row, col)`` (``None`` stays ``None``);
        * :class:`Range` -> :meth:`eval_range`; :class:`Call` -> :meth:`eval_call`;
        * :class:`Name` -> ``#NAME?`` (there are no named ranges);
        * operators: operands are evaluated and reduced with
          :func:`~sheetcalc.values.as_scalar` (so a multi-cell range operand
          gives ``#VALUE!``), then ``Unary("-")`` -> :func:`negate`,
          ``Unary("+")`` -> the operand unchanged (no coercion), ``Percent``
          -> :func:`percent`, ``&`` -> :func:`concat`, comparisons ->
          :func:`compare`, arithmetic -> :func:`arithmetic`.

        Raises ``TypeError`` for an object that is not a node.
        """
        if isinstance(node, Number):
            return float(node.value)
        if isinstance(node, (Text, Boolean)):
            return node.value
        if isinstance(node, ErrorLiteral):
            return CellError(node.code)
        if isinstance(node, Ref):
            return self.resolver(node.ref.row, node.ref.col)
        if isinstance(node, Range):
            return self.eval_range(node)
        if isinstance(node, Call):
            return self.eval_call(node)
        if isinstance(node, Name):
            return NAME
        if isinstance(node, Unary):
            value = as_scalar(self.eval_node(node.operand))
            if node.op == "-":
                return negate(value)
            return value
        if isinstance(node, Percent):
            return percent(as_scalar(self.eval_node(node.operand)))
        if isinstance(node, Binary):
            left = as_scalar(self.eval_node(node.left))
            right = as_scalar(self.eval_node(node.right))
            if node.op == "&":
                return concat(left, right)
            if node.op in COMPARISON_OPS:
                return compare(node.op, left, right)
            return arithmetic(node.op, left, right)
        raise TypeError(f"not a formula node: {node!r}")

    def eval_range(self, node: Range) -> RangeValue:
        """Evaluate a range to a :class:`RangeValue` of the current cell values.

        The grid covers the normalized rectangle (``B2:A1`` is the same as
        ``A1:B2``): one tuple per row, top to bottom, each with the values
        from left to right, as given by the resolver (``None`` for empty).
        """
        top, left, bottom, right = node.range.bounds()
        return RangeValue(
            tuple(
                tuple(self.resolver(r, c) for c in range(left, right + 1))
                for r in range(top, bottom + 1)
            )
        )

    def eval_call(self, node: Call) -> object:
        """Evaluate a function call.

        The name is looked up (case-insensitively) in ``functions``; an
        unknown function gives ``#NAME?`` without evaluating the arguments.
        A wrong number of arguments (fewer than ``spec.min_args`` or, when
        ``spec.max_args`` is not ``None``, more than it) gives ``#VALUE!``.
        Otherwise every argument is evaluated with :meth:`eval_node` (ranges
        stay :class:`RangeValue`, errors are passed as values, not
        propagated) and ``spec.func(*values)`` is returned.
        """
        spec = self.functions.get(node.name.upper())
        if spec is None:
            return NAME
        n = len(node.args)
        if n < spec.min_args or (spec.max_args is not None and n > spec.max_args):
            return VALUE
        args = [self.eval_node(a) for a in node.args]
        return spec.func(*args)
