"""Built-in functions and constants."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from exprcalc.errors import ArityError, DomainError, EvalError, UnknownNameError

Value = int | float


def _log(x: Value, base: Value | None = None) -> float:
    return math.log10(x) if base is None else math.log(x, base)


def _min(*args: Value) -> Value:
    return min(args)


def _max(*args: Value) -> Value:
    return max(args)


def _round(x: Value, ndigits: int | None = None) -> Value:
    if ndigits is None:
        return round(x)
    if isinstance(ndigits, float):
        if not ndigits.is_integer():
            raise ValueError("ndigits must be a whole number")
        ndigits = int(ndigits)
    return round(float(x), ndigits)


@dataclass(frozen=True)
class Builtin:
    """A built-in function: ``max_args`` is ``None`` when unlimited."""

    name: str
    func: Callable[..., Value]
    min_args: int
    max_args: int | None


BUILTINS: dict[str, Builtin] = {
    b.name: b
    for b in (
        Builtin("abs", abs, 1, 1),
        Builtin("min", _min, 1, None),
        Builtin("max", _max, 1, None),
        Builtin("sqrt", math.sqrt, 1, 1),
        Builtin("exp", math.exp, 1, 1),
        Builtin("ln", math.log, 1, 1),
        Builtin("log", _log, 1, 2),
        Builtin("sin", math.sin, 1, 1),
        Builtin("cos", math.cos, 1, 1),
        Builtin("tan", math.tan, 1, 1),
        Builtin("floor", math.floor, 1, 1),
        Builtin("ceil", math.ceil, 1, 1),
        Builtin("round", _round, 1, 2),
    )
}
"""The built-in functions by name (see :func:`call_builtin` for their meaning)."""

CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "tau": math.tau}
"""Predefined constants; user variables of the same name shadow them."""


def check_arity(name: str, nargs: int, min_args: int, max_args: int | None) -> None:
    """Check that a call of ``name`` with ``nargs`` arguments is allowed.

    Returns ``None`` when ``min_args <= nargs`` and (``max_args`` is ``None`` or
    ``nargs <= max_args``).  Otherwise raises :class:`~exprcalc.errors.ArityError`
    whose message is, with ``s`` the plural suffix chosen by the expected count
    (``argument`` for 1, ``arguments`` otherwise):

    * fixed count (``min_args == max_args``):
      ``"<name>() takes exactly <min> argument<s> (<nargs> given)"``;
    * unlimited (``max_args is None``):
      ``"<name>() takes at least <min> argument<s> (<nargs> given)"``;
    * a range: ``"<name>() takes <min> to <max> arguments (<nargs> given)"``.

    Example: ``check_arity("sqrt", 2, 1, 1)`` raises
    ``"sqrt() takes exactly 1 argument (2 given)"``.
    """
    if nargs >= min_args and (max_args is None or nargs <= max_args):
        return
    if min_args == max_args:
        plural = "" if min_args == 1 else "s"
        msg = f"{name}() takes exactly {min_args} argument{plural} ({nargs} given)"
    elif max_args is None:
        plural = "" if min_args == 1 else "s"
        msg = f"{name}() takes at least {min_args} argument{plural} ({nargs} given)"
    else:
        msg = f"{name}() takes {min_args} to {max_args} arguments ({nargs} given)"
    raise ArityError(msg)


def call_builtin(name: str, args: list[Value]) -> Value:
    """Call the built-in function ``name`` with the (already evaluated) ``args``.

    The built-ins: ``abs(x)``, ``min(x, ...)`` and ``max(x, ...)`` (one or more
    arguments), ``sqrt(x)``, ``exp(x)``, ``ln(x)`` (natural log), ``log(x)``
    (base 10) and ``log(x, base)``, ``sin``/``cos``/``tan`` (radians),
    ``floor(x)`` and ``ceil(x)`` (returning ``int``), ``round(x)`` (to an ``int``,
    halves to even as in Python) and ``round(x, n)`` (a ``float`` with ``n``
    decimals; ``n`` must be a whole number).  Arity is checked with
    :func:`check_arity` before the call.

    Raises:
        UnknownNameError: ``name`` is not a built-in (kind ``"function"``).
        ArityError: wrong number of arguments.
        DomainError: ``"Math domain error in <name>()"`` when the underlying
            function rejects its arguments (``sqrt(-1)``, ``ln(0)``,
            ``log(8, 1)``, ``round(1.5, 0.5)``).
        EvalError: ``"Numeric overflow in <name>()"`` when the result is too
            large (``exp(1000)``).
    """
    builtin = BUILTINS.get(name)
    if builtin is None:
        raise UnknownNameError(name, "function")
    check_arity(name, len(args), builtin.min_args, builtin.max_args)
    try:
        return builtin.func(*args)
    except (ValueError, ZeroDivisionError):
        raise DomainError(f"Math domain error in {name}()") from None
    except OverflowError:
        raise EvalError(f"Numeric overflow in {name}()") from None
