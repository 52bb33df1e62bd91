"""The tree-walking evaluator."""

from __future__ import annotations

from dataclasses import dataclass

from exprcalc.errors import (
    DivisionByZeroError,
    DomainError,
    EvalError,
    RecursionLimitError,
    UnknownNameError,
)
from exprcalc.functions import BUILTINS, CONSTANTS, Value, call_builtin, check_arity
from exprcalc.nodes import Assign, BinOp, Call, FuncDef, Name, Node, Number, UnaryOp

MAX_INT_POWER_BITS = 4096


def apply_binary(op: str, left: Value, right: Value) -> Value:
    """Apply the binary operator ``op`` to two numbers.

    * ``+ - *``: as in Python (``int`` op ``int`` stays ``int``).
    * ``/``: true division, always a ``float`` (``6 / 3`` -> ``2.0``).
    * ``%``: Python modulo (the result has the sign of the divisor: ``-7 % 3`` -> ``2``).
    * ``^``: exponentiation as Python's ``**`` (``2 ^ 10`` -> ``1024``,
      ``2 ^ -1`` -> ``0.5``, ``4 ^ 0.5`` -> ``2.0``).

    Raises:
        DivisionByZeroError: ``"Division by zero"`` for ``/`` and
            ``"Modulo by zero"`` for ``%`` when ``right`` is zero;
            ``"Zero cannot be raised to a negative power"`` for ``0 ^ -n``.
        DomainError: ``"Negative base with fractional exponent"`` when ``left``
            is negative and ``right`` is not a whole number (``(-8) ^ 0.5``);
            ``(-8) ^ 2.0`` is fine (``64.0``).
        EvalError: ``"Result too large"`` when both operands are ``int``,
            ``abs(left) >= 2`` and ``right * (abs(left).bit_length() - 1)`` exceeds
            ``MAX_INT_POWER_BITS`` (4096), or when a float power overflows.
        ValueError: for an unknown operator.
    """
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":
        if right == 0:
            raise DivisionByZeroError("Division by zero")
        return left / right
    if op == "%":
        if right == 0:
            raise DivisionByZeroError("Modulo by zero")
        return left % right
    if op == "^":
        if left == 0 and right < 0:
            raise DivisionByZeroError("Zero cannot be raised to a negative power")
        if left < 0 and not float(right).is_integer():
            raise DomainError("Negative base with fractional exponent")
        if (
            isinstance(left, int)
            and isinstance(right, int)
            and abs(left) >= 2
            and right * (abs(left).bit_length() - 1) > MAX_INT_POWER_BITS
        ):
            raise EvalError("Result too large")
        try:
            return left**right
        except OverflowError:
            raise EvalError("Result too large") from None
    raise ValueError(f"Unknown operator {op!r}")


@dataclass(frozen=True)
class UserFunction:
    """A function defined with ``name(params) = body``."""

    name: str
    params: tuple[str, ...]
    body: Node


class Evaluator:
    """Evaluate AST nodes against a set of variables and user-defined functions.

    Args:
        variables: initial global variables (copied).
        functions: initial user functions, ``{name: UserFunction}`` (copied).
        max_depth: the maximum number of nested user-function calls.

    Attributes:
        variables: the global variables; assignments store here.
        functions: the user-defined functions.
        scopes: a stack of ``{param: value}`` dicts, one per active user-function
            call (innermost last); empty at top level.
    """

    def __init__(
        self,
        variables: dict[str, Value] | None = None,
        functions: dict[str, UserFunction] | None = None,
        *,
        max_depth: int = 100,
    ):
        self.variables: dict[str, Value] = dict(variables or {})
        self.functions: dict[str, UserFunction] = dict(functions or {})
        self.scopes: list[dict[str, Value]] = []
        self.max_depth = max_depth

    def lookup(self, name: str) -> Value:
        """Return the value of the variable ``name``.

        Resolution order: the innermost scope only (the parameters of the function
        call being evaluated; outer calls' parameters are *not* visible), then
        the global :attr:`variables`, then the predefined constants ``pi``, ``e``
        and ``tau``.  Function names are a separate namespace and are not found.

        Raises :class:`~exprcalc.errors.UnknownNameError` (kind ``"variable"``,
        message ``"Unknown variable '<name>'"``) if the name is not found.
        """
        if self.scopes and name in self.scopes[-1]:
            return self.scopes[-1][name]
        if name in self.variables:
            return self.variables[name]
        if name in CONSTANTS:
            return CONSTANTS[name]
        raise UnknownNameError(name, "variable")

    def evaluate(self, node: Node) -> Value | None:
        """Evaluate ``node`` and return its value.

        * ``Number`` -> its value; ``Name`` -> :meth:`lookup`.
        * ``UnaryOp`` -> the negated value for ``-``, the value unchanged for ``+``.
        * ``BinOp`` -> :func:`apply_binary` on the operand values (left first).
        * ``Call`` -> :meth:`call_function` with the argument values (evaluated
          left to right).
        * ``Assign`` -> evaluates the value, stores it in :attr:`variables` (even a
          constant's name may be assigned, shadowing it) and returns it.
        * ``FuncDef`` -> stores a :class:`UserFunction` in :attr:`functions`
          (replacing an earlier definition of the same name) and returns ``None``;
          the body is not evaluated.

        Raises :class:`~exprcalc.errors.EvalError`
        ``"Cannot redefine built-in function '<name>'"`` for a ``FuncDef`` whose
        name is a built-in, ``TypeError`` for an unknown node type, and any error
        of the operations above.
        """
        if isinstance(node, Number):
            return node.value
        if isinstance(node, Name):
            return self.lookup(node.id)
        if isinstance(node, UnaryOp):
            value = self.evaluate(node.operand)
            return -value if node.op == "-" else value
        if isinstance(node, BinOp):
            left = self.evaluate(node.left)
            right = self.evaluate(node.right)
            return apply_binary(node.op, left, right)
        if isinstance(node, Call):
            return self.call_function(node.func, [self.evaluate(a) for a in node.args])
        if isinstance(node, Assign):
            value = self.evaluate(node.value)
            self.variables[node.name] = value
            return value
        if isinstance(node, FuncDef):
            if node.name in BUILTINS:
                raise EvalError(f"Cannot redefine built-in function '{node.name}'")
            self.functions[node.name] = UserFunction(node.name, node.params, node.body)
            return None
        raise TypeError(f"cannot evaluate {node!r}")

    def call_function(self, name: str, args: list[Value]) -> Value:
        """Call the function ``name`` with already evaluated ``args``.

        A user-defined function (in :attr:`functions`) is called by checking its
        arity with :func:`~exprcalc.functions.check_arity` (exactly
        ``len(params)`` arguments), pushing a new scope binding the parameters to
        ``args``, evaluating the body with :meth:`evaluate` and popping the scope
        again (also when evaluation fails).  Otherwise the name is looked up among
        the built-ins with :func:`~exprcalc.functions.call_builtin`.

        Raises:
            UnknownNameError: no user function or built-in of that name
                (kind ``"function"``: ``"Unknown function '<name>'"``).
            ArityError: wrong number of arguments.
            RecursionLimitError: ``"Maximum recursion depth exceeded in '<name>'"``
                when calling a user function while :attr:`max_depth` calls are
                already active.
        """
        func = self.functions.get(name)
        if func is None:
            return call_builtin(name, args)
        check_arity(name, len(args), len(func.params), len(func.params))
        if len(self.scopes) >= self.max_depth:
            raise RecursionLimitError(f"Maximum recursion depth exceeded in '{name}'")
        self.scopes.append(dict(zip(func.params, args)))
        try:
            return self.evaluate(func.body)
        finally:
            self.scopes.pop()
