"""The Lisp data model.

How Lisp values are represented in Python:

=====================  ==============================================
Lisp                   Python
=====================  ==============================================
``#t`` / ``#f``        ``True`` / ``False``
integers, reals        ``int`` / ``float`` (never ``bool``)
strings                ``str``
symbols                :class:`Symbol` (interned: one object per name)
the empty list ``()``  the singleton :data:`NIL`
pairs                  :class:`Pair` (mutable ``car`` / ``cdr`` cells)
unspecified value      the singleton :data:`VOID`
error objects          :class:`ErrorObject`
procedures, macros     see :mod:`lispy.procedures`
=====================  ==============================================

Only ``#f`` is false: every other value (including ``0``, ``""`` and ``()``)
counts as true in a conditional.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from lispy.errors import LispTypeError


class Symbol:
    """A Lisp symbol.

    Symbols are interned: ``Symbol("x") is Symbol("x")``, so they can be compared
    with ``is``.  :meth:`uninterned` makes a fresh symbol that is not in the table
    (used by ``gensym``).  ``str(sym)`` is its name.
    """

    __slots__ = ("name",)
    _table: dict[str, Symbol] = {}

    def __new__(cls, name: str) -> Symbol:
        sym = cls._table.get(name)
        if sym is None:
            sym = object.__new__(cls)
            sym.name = name
            cls._table[name] = sym
        return sym

    @classmethod
    def uninterned(cls, name: str) -> Symbol:
        """A new symbol called `name` that is not identical to any other symbol."""
        sym = object.__new__(cls)
        sym.name = name
        return sym

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Symbol({self.name!r})"

    def __reduce__(self):
        return (Symbol, (self.name,))


class Nil:
    """The type of the empty list; its only instance is :data:`NIL`."""

    _instance: Nil | None = None

    def __new__(cls) -> Nil:
        if cls._instance is None:
            cls._instance = object.__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NIL"


NIL = Nil()


class Void:
    """The type of the unspecified value; its only instance is :data:`VOID`.

    ``define``, ``set!``, ``display`` and friends return it; the REPL does not
    print it.
    """

    _instance: Void | None = None

    def __new__(cls) -> Void:
        if cls._instance is None:
            cls._instance = object.__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "VOID"


VOID = Void()


class Unassigned:
    """Marker bound to ``letrec`` variables before their initialiser has run.

    Looking up a variable bound to :data:`UNASSIGNED` is an error (see
    :meth:`lispy.environment.Environment.lookup`).
    """

    _instance: Unassigned | None = None

    def __new__(cls) -> Unassigned:
        if cls._instance is None:
            cls._instance = object.__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNASSIGNED"


UNASSIGNED = Unassigned()


class Pair:
    """A mutable cons cell.

    Pairs compare by identity (``==`` is ``is``); use
    :func:`lispy.builtins.equality.is_equal` for structural comparison.
    """

    __slots__ = ("car", "cdr")

    def __init__(self, car: object, cdr: object):
        self.car = car
        self.cdr = cdr

    def __repr__(self) -> str:
        return f"Pair({self.car!r}, {self.cdr!r})"


@dataclass(eq=False)
class ErrorObject:
    """The condition object created by ``(error message irritant ...)``.

    ``message`` is a Python string; ``irritants`` a Python list of Lisp values.
    """

    message: str
    irritants: list = field(default_factory=list)


def is_true(value: object) -> bool:
    """Lisp truthiness: everything except ``#f`` is true."""
    return value is not False


def from_pylist(items: Iterable[object], tail: object = NIL) -> object:
    """Build a Lisp list from a Python iterable.

    The elements of `items` become the cars of fresh pairs, in order; the cdr of
    the last pair is `tail` (default :data:`NIL`, giving a proper list).  An empty
    `items` returns `tail` itself.  The input is not modified.

    >>> from_pylist([1, 2])          # (1 2)
    Pair(1, Pair(2, NIL))
    >>> from_pylist([1], 2)          # (1 . 2)
    Pair(1, 2)
    """
    result = tail
    for item in reversed(list(items)):
        result = Pair(item, result)
    return result


def to_pylist(obj: object) -> list:
    """The elements of the proper Lisp list `obj`, as a new Python list.

    ``NIL`` gives ``[]``.  Raises :class:`~lispy.errors.LispTypeError` with the
    message ``"expected a proper list"`` if `obj` is not a pair or ``NIL``, or if
    the chain of cdrs ends in anything other than ``NIL`` (an improper list such as
    ``(1 2 . 3)``).  Cyclic lists are not supported (the call would not return).
    """
    items = []
    while isinstance(obj, Pair):
        items.append(obj.car)
        obj = obj.cdr
    if obj is not NIL:
        raise LispTypeError("expected a proper list")
    return items


def is_proper_list(obj: object) -> bool:
    """True if `obj` is a finite chain of pairs ending in ``NIL`` (or ``NIL`` itself).

    Returns False for non-pairs, improper (dotted) lists and circular lists; it
    must terminate on circular structures (e.g. by Floyd's tortoise and hare) and
    must not raise.
    """
    slow = fast = obj
    while True:
        if fast is NIL:
            return True
        if not isinstance(fast, Pair):
            return False
        fast = fast.cdr
        if fast is NIL:
            return True
        if not isinstance(fast, Pair):
            return False
        fast = fast.cdr
        slow = slow.cdr
        if fast is slow:
            return False
