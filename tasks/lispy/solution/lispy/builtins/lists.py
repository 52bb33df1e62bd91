"""Pairs and lists.

Type errors raise :class:`~lispy.errors.LispTypeError`: ``"<name>: expected
pair, got <written value>"`` where a pair is required and ``"<name>: expected
proper list"`` where a proper list is required (the value is not shown, since it
may be circular).  Index problems raise :class:`~lispy.errors.EvalError`
``"<name>: index <k> out of range"``.
"""

from __future__ import annotations

from collections.abc import Callable

from lispy.datatypes import NIL, VOID, Pair, is_proper_list
from lispy.errors import EvalError, LispTypeError
from lispy.printer import to_string


def _check_pair(who: str, x: object) -> Pair:
    if not isinstance(x, Pair):
        raise LispTypeError(f"{who}: expected pair, got {to_string(x)}")
    return x


def cons(a: object, b: object) -> Pair:
    """``(cons a b)``: a new pair."""
    return Pair(a, b)


def car(p: object) -> object:
    """``(car p)``: the first field of a pair (LispTypeError ``car: expected pair, got ...``)."""
    return _check_pair("car", p).car


def cdr(p: object) -> object:
    """``(cdr p)``: the second field of a pair (LispTypeError ``cdr: expected pair, got ...``)."""
    return _check_pair("cdr", p).cdr


def set_car(p: object, value: object) -> object:
    """``(set-car! p v)``: replace the car of `p`; returns VOID."""
    _check_pair("set-car!", p).car = value
    return VOID


def set_cdr(p: object, value: object) -> object:
    """``(set-cdr! p v)``: replace the cdr of `p`; returns VOID."""
    _check_pair("set-cdr!", p).cdr = value
    return VOID


def make_list(*items: object) -> object:
    """``(list x ...)``: a new proper list of the arguments."""
    result: object = NIL
    for item in reversed(items):
        result = Pair(item, result)
    return result


def list_length(lst: object) -> int:
    """``(length lst)``: the number of elements of a proper list (``(length '())`` 0).

    LispTypeError ``"length: expected proper list"`` for a non-list, an improper
    list or a circular list (must terminate on circular lists).
    """
    if not is_proper_list(lst):
        raise LispTypeError("length: expected proper list")
    n = 0
    while isinstance(lst, Pair):
        n += 1
        lst = lst.cdr
    return n


def list_append(*lists: object) -> object:
    """``(append lst ... last)``: the concatenation of the lists.

    Every argument except the last must be a proper list and is copied (fresh
    pairs); the last argument is shared, not copied, and may be any value:
    ``(append '(1) '(2 3))`` → ``(1 2 3)``, ``(append '(1) 2)`` → ``(1 . 2)``,
    ``(append)`` → ``()``, ``(append '() 5)`` → ``5``.  The arguments are not
    modified.  LispTypeError ``"append: expected proper list"`` if an argument
    other than the last is not a proper list.
    """
    if not lists:
        return NIL
    *init, result = lists
    for lst in init:
        if not is_proper_list(lst):
            raise LispTypeError("append: expected proper list")
    for lst in reversed(init):
        items = []
        while isinstance(lst, Pair):
            items.append(lst.car)
            lst = lst.cdr
        for item in reversed(items):
            result = Pair(item, result)
    return result


def list_reverse(lst: object) -> object:
    """``(reverse lst)``: a new list with the elements in reverse order.

    The argument is not modified.  LispTypeError ``"reverse: expected proper
    list"`` if `lst` is not a proper list.
    """
    if not is_proper_list(lst):
        raise LispTypeError("reverse: expected proper list")
    result: object = NIL
    while isinstance(lst, Pair):
        result = Pair(lst.car, result)
        lst = lst.cdr
    return result


def _check_index(who: str, k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int):
        raise LispTypeError(f"{who}: expected integer, got {to_string(k)}")
    if k < 0:
        raise EvalError(f"{who}: index {k} out of range")
    return k


def list_tail(lst: object, k: object) -> object:
    """``(list-tail lst k)``: what remains of `lst` after dropping `k` elements.

    The result shares structure with `lst`: ``(list-tail '(1 2 3) 1)`` → ``(2
    3)``, ``(list-tail '(1 2) 2)`` → ``()``; it works on improper lists as long
    as `k` pairs exist (``(list-tail '(1 . 2) 1)`` → ``2``).  Errors:
    LispTypeError ``"list-tail: expected integer, got ..."`` for a non-integer
    `k`; EvalError ``"list-tail: index <k> out of range"`` for a negative `k` or
    when the list has fewer than `k` pairs.
    """
    _check_index("list-tail", k)
    for _ in range(k):
        if not isinstance(lst, Pair):
            raise EvalError(f"list-tail: index {k} out of range")
        lst = lst.cdr
    return lst


def list_ref(lst: object, k: object) -> object:
    """``(list-ref lst k)``: the element at 0-based index `k`.

    Errors: LispTypeError ``"list-ref: expected integer, got ..."`` for a
    non-integer `k`; EvalError ``"list-ref: index <k> out of range"`` for a
    negative `k` or when the list has no element `k`.
    """
    _check_index("list-ref", k)
    for _ in range(k):
        if not isinstance(lst, Pair):
            raise EvalError(f"list-ref: index {k} out of range")
        lst = lst.cdr
    if not isinstance(lst, Pair):
        raise EvalError(f"list-ref: index {k} out of range")
    return lst.car


def mem_search(who: str, eq: Callable[[object, object], bool], x: object, lst: object) -> object:
    """``memq`` / ``memv`` / ``member``: the first sublist of `lst` whose car is `x`.

    Elements are compared with ``eq(x, element)``; the result is the pair whose
    car matched (sharing structure with `lst`, so its tail follows), or ``#f``
    (False) when there is none.  The scan stops at the first match, so an
    improper tail after a match is fine; reaching a non-``NIL`` tail without a
    match raises LispTypeError ``"<who>: expected proper list"``.
    """
    while isinstance(lst, Pair):
        if eq(x, lst.car):
            return lst
        lst = lst.cdr
    if lst is not NIL:
        raise LispTypeError(f"{who}: expected proper list")
    return False


def assoc_search(who: str, eq: Callable[[object, object], bool], key: object, alist: object) -> object:
    """``assq`` / ``assv`` / ``assoc``: the first pair in `alist` whose car is `key`.

    `alist` is a list of pairs; each pair's car is compared with ``eq(key,
    car)`` and the whole pair is returned on a match, else ``#f``.  Errors
    (LispTypeError): ``"<who>: expected pair, got <written element>"`` when an
    element examined before a match is not a pair; ``"<who>: expected proper
    list"`` when the list ends in a non-``NIL`` tail without a match.
    """
    while isinstance(alist, Pair):
        entry = alist.car
        if not isinstance(entry, Pair):
            raise LispTypeError(f"{who}: expected pair, got {to_string(entry)}")
        if eq(key, entry.car):
            return entry
        alist = alist.cdr
    if alist is not NIL:
        raise LispTypeError(f"{who}: expected proper list")
    return False
