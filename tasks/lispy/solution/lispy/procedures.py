"""Callable Lisp values: closures, builtins and the macro base class.

* :class:`Procedure` is a closure made by ``lambda`` (or ``define``): its
  parameter list, body and the environment it was created in.
* :class:`Builtin` wraps a Python function with a Lisp name and an arity.
* :class:`MacroBase` is the base of everything the evaluator expands instead of
  calling (``define-macro`` macros and ``syntax-rules`` transformers, see
  :mod:`lispy.macros`).

Any other Python callable placed in an environment can also be called from Lisp;
it receives the evaluated arguments positionally.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lispy.datatypes import NIL, Pair, Symbol
from lispy.errors import ArityError, LispSyntaxError

if TYPE_CHECKING:  # pragma: no cover
    from lispy.environment import Environment


def _plural(n: int) -> str:
    return "argument" if n == 1 else "arguments"


def parse_params(spec: object) -> tuple[list[Symbol], Symbol | None]:
    """Split a ``lambda`` parameter list into (required names, rest name or None).

    * a symbol ``args``: no required parameters, everything goes to ``args``
      → ``([], args)``;
    * ``NIL`` (``()``) → ``([], None)``;
    * a proper list of symbols ``(a b)`` → ``([a, b], None)``;
    * an improper list ``(a b . rest)`` → ``([a, b], rest)``.

    Raises :class:`~lispy.errors.LispSyntaxError`: ``"bad parameter list"`` if any
    parameter (or the whole spec, or the rest position) is not a symbol, and
    ``"duplicate parameter: <name>"`` if a name occurs twice (including the rest
    name).
    """
    names: list[Symbol] = []
    while isinstance(spec, Pair):
        if not isinstance(spec.car, Symbol):
            raise LispSyntaxError("bad parameter list")
        names.append(spec.car)
        spec = spec.cdr
    rest: Symbol | None = None
    if isinstance(spec, Symbol):
        rest = spec
    elif spec is not NIL:
        raise LispSyntaxError("bad parameter list")
    seen: set[int] = set()
    for name in [*names, *([rest] if rest is not None else [])]:
        if id(name) in seen:
            raise LispSyntaxError(f"duplicate parameter: {name}")
        seen.add(id(name))
    return names, rest


@dataclass(eq=False)
class Procedure:
    """A closure: ``params`` (list of Symbol), ``rest`` (Symbol or None), ``body``
    (non-empty Python list of forms), ``env`` (defining Environment) and ``name``
    (a str, or None for an anonymous procedure)."""

    params: list[Symbol]
    rest: Symbol | None
    body: list
    env: Environment
    name: str | None = None


@dataclass(eq=False)
class Builtin:
    """A primitive procedure implemented in Python.

    ``fn`` receives the Lisp arguments positionally; ``min_args`` / ``max_args``
    bound the number of arguments (``max_args=None`` means no upper bound).
    """

    name: str
    fn: Callable[..., object]
    min_args: int = 0
    max_args: int | None = None

    def __call__(self, *args: object) -> object:
        """Check the number of arguments, then return ``self.fn(*args)``.

        Raises :class:`~lispy.errors.ArityError` before calling ``fn`` if
        ``len(args)`` is out of range, with one of these messages (``N`` the
        number given, and "argument" singular when the expected count is 1):

        * fixed arity (``min_args == max_args == k``):
          ``"<name>: expected k argument(s), got N"``,
          e.g. ``"car: expected 1 argument, got 2"``;
        * no maximum: ``"<name>: expected at least k argument(s), got N"``;
        * a range: ``"<name>: expected between lo and hi arguments, got N"``.

        Exceptions raised by ``fn`` propagate unchanged.
        """
        n = len(args)
        lo, hi = self.min_args, self.max_args
        if n < lo or (hi is not None and n > hi):
            if hi == lo:
                raise ArityError(f"{self.name}: expected {lo} {_plural(lo)}, got {n}")
            if hi is None:
                raise ArityError(f"{self.name}: expected at least {lo} {_plural(lo)}, got {n}")
            raise ArityError(f"{self.name}: expected between {lo} and {hi} arguments, got {n}")
        return self.fn(*args)


class MacroBase:
    """Base class of values that the evaluator expands rather than calls.

    When the operator of a combination evaluates to a MacroBase, the evaluator
    calls ``expand(form, env)`` with the whole unevaluated form and the current
    environment and evaluates the returned form in its place.  Subclasses have a
    ``name`` attribute (a str, or None).
    """

    def expand(self, form: object, env: Environment) -> object:
        """Return the expansion of `form` (overridden by subclasses)."""
        raise NotImplementedError
