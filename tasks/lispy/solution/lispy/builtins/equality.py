"""Equivalence predicates: ``eqv?`` (also ``eq?``) and ``equal?``."""

from __future__ import annotations

from lispy.datatypes import Pair


def is_eqv(a: object, b: object) -> bool:
    """``eqv?`` (lispy's ``eq?`` is the same procedure).

    * Numbers are eqv when they have the same exactness and are numerically
      equal: ``(eqv? 2 2)`` is #t, ``(eqv? 2 2.0)`` is #f, ``(eqv? 0.5 0.5)`` #t;
      a NaN is eqv to a NaN.
    * Booleans are eqv only to the same boolean: ``#t`` is not eqv to ``1`` and
      ``#f`` is not eqv to ``0`` (despite Python's ``True == 1``).
    * Everything else (symbols, ``()``, pairs, strings, procedures, ...) is eqv
      only when it is the very same object (``a is b``); symbols are interned, so
      equal names are eqv, while two separately built lists or strings may not be.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if type(a) is not type(b):
            return False
        if a != a and b != b:  # NaN
            return True
        return a == b
    return a is b


def is_equal(a: object, b: object) -> bool:
    """``equal?``: structural equality.

    Pairs are equal when their cars are equal and their cdrs are equal
    (recursively, so whole lists and trees are compared); strings are equal when
    they have the same characters; everything else is compared with
    :func:`is_eqv` (so ``(equal? 2 2.0)`` is #f).  Long lists must not exhaust
    Python's recursion limit (walk cdrs iteratively).
    """
    while True:
        if isinstance(a, Pair) and isinstance(b, Pair):
            if not is_equal(a.car, b.car):
                return False
            a, b = a.cdr, b.cdr
            continue
        if isinstance(a, str) and isinstance(b, str):
            return a == b
        return is_eqv(a, b)
