"""Lexical environments.

An :class:`Environment` is one frame of bindings (a dict from
:class:`~lispy.datatypes.Symbol` to value) plus a link to the enclosing
(parent) frame.  The global environment has no parent.  Calling a closure creates
a new frame whose parent is the environment the closure was defined in, which is
what gives lexical scope.
"""

from __future__ import annotations

from lispy.datatypes import UNASSIGNED, Symbol, from_pylist
from lispy.errors import ArityError, EvalError, UnboundVariable


class Environment:
    """A frame of variable bindings with an optional parent frame."""

    def __init__(self, bindings: dict[Symbol, object] | None = None, parent: Environment | None = None):
        self.vars: dict[Symbol, object] = dict(bindings or {})
        self.parent = parent

    def __repr__(self) -> str:
        return f"<Environment {len(self.vars)} bindings{' +parent' if self.parent else ''}>"

    def lookup(self, name: Symbol) -> object:
        """The value bound to `name` in the nearest frame (this one, then parents).

        Raises :class:`~lispy.errors.UnboundVariable` if no frame binds `name`,
        and :class:`~lispy.errors.EvalError` with message
        ``"variable used before initialization: <name>"`` if the nearest binding
        holds :data:`~lispy.datatypes.UNASSIGNED` (a ``letrec`` variable whose
        initialiser has not finished).
        """
        env: Environment | None = self
        while env is not None:
            if name in env.vars:
                value = env.vars[name]
                if value is UNASSIGNED:
                    raise EvalError(f"variable used before initialization: {name}")
                return value
            env = env.parent
        raise UnboundVariable(name)

    def define(self, name: Symbol, value: object) -> None:
        """Bind `name` to `value` in *this* frame.

        Creates the binding or replaces an existing one in this frame; a binding
        of the same name in a parent frame is shadowed, not changed.
        """
        self.vars[name] = value

    def assign(self, name: Symbol, value: object) -> None:
        """``set!``: change the nearest existing binding of `name` to `value`.

        The binding is changed in whichever frame (this one or an ancestor) holds
        it; no new binding is created.  Raises
        :class:`~lispy.errors.UnboundVariable` if no frame binds `name`.
        """
        env: Environment | None = self
        while env is not None:
            if name in env.vars:
                env.vars[name] = value
                return
            env = env.parent
        raise UnboundVariable(name)

    def extend(
        self,
        params: list[Symbol],
        rest: Symbol | None,
        args: list[object],
        name: str | None = None,
    ) -> Environment:
        """A new child frame (parent ``self``) binding `params` to `args`.

        The i-th name in `params` is bound to ``args[i]``.  If `rest` is a
        symbol it is bound to a fresh Lisp list (see
        :func:`~lispy.datatypes.from_pylist`) of the remaining arguments
        (``NIL`` if none).  `self` is not modified.

        Raises :class:`~lispy.errors.ArityError` when the number of arguments does
        not fit, naming the procedure as `name` (or ``"#<procedure>"`` when
        `name` is None), with "argument" singular when the expected count is 1:

        * without `rest`, unless ``len(args) == len(params)``:
          ``"<name>: expected k argument(s), got N"``;
        * with `rest`, if ``len(args) < len(params)``:
          ``"<name>: expected at least k argument(s), got N"``.
        """
        who = name or "#<procedure>"
        k, n = len(params), len(args)
        word = "argument" if k == 1 else "arguments"
        if rest is None and n != k:
            raise ArityError(f"{who}: expected {k} {word}, got {n}")
        if rest is not None and n < k:
            raise ArityError(f"{who}: expected at least {k} {word}, got {n}")
        frame = dict(zip(params, args))
        if rest is not None:
            frame[rest] = from_pylist(args[k:])
        return Environment(frame, self)
