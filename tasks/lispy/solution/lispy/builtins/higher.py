"""Higher-order builtins: procedures that call Lisp procedures.

They call back into the evaluator through
:func:`lispy.evaluator.apply_procedure`, so a Lisp closure, a builtin or any
Python callable can be passed.  List arguments must be proper lists
(:class:`~lispy.errors.LispTypeError` ``"<name>: expected proper list"``).
"""

from __future__ import annotations

from lispy.datatypes import VOID, from_pylist, is_proper_list, to_pylist
from lispy.errors import LispTypeError
from lispy.evaluator import apply_procedure


def _lists(who: str, lists: tuple) -> list[list]:
    out = []
    for lst in lists:
        if not is_proper_list(lst):
            raise LispTypeError(f"{who}: expected proper list")
        out.append(to_pylist(lst))
    return out


def builtin_apply(proc: object, *args: object) -> object:
    """``(apply proc arg ... lst)``: call `proc` with the args followed by the
    elements of the list `lst`.

    ``(apply + 1 2 '(3 4))`` is 10, ``(apply list '())`` is ``()``.  The last
    argument must be a proper list: LispTypeError ``"apply: expected proper
    list"`` (also when only `proc` is given).
    """
    if not args or not is_proper_list(args[-1]):
        raise LispTypeError("apply: expected proper list")
    return apply_procedure(proc, [*args[:-1], *to_pylist(args[-1])])


def builtin_map(proc: object, *lists: object) -> object:
    """``(map proc lst1 lst2 ...)``: a new list of ``(proc e1 e2 ...)`` for the
    elements at each position.

    With several lists, stops at the end of the shortest.  `proc` is applied to
    the positions in order, left to right.  All lists are checked before any call
    (LispTypeError ``"map: expected proper list"``).
    """
    columns = _lists("map", lists)
    return from_pylist([apply_procedure(proc, list(row)) for row in zip(*columns)])


def builtin_for_each(proc: object, *lists: object) -> object:
    """``(for-each proc lst1 ...)``: like ``map`` but only for the effects,
    left to right; returns VOID (LispTypeError ``"for-each: expected proper list"``)."""
    for row in zip(*_lists("for-each", lists)):
        apply_procedure(proc, list(row))
    return VOID


def builtin_filter(pred: object, lst: object) -> object:
    """``(filter pred lst)``: a new list of the elements for which `pred` returns
    anything but ``#f``, in their original order (LispTypeError ``"filter:
    expected proper list"``)."""
    (items,) = _lists("filter", (lst,))
    return from_pylist([x for x in items if apply_procedure(pred, [x]) is not False])


def builtin_fold_left(proc: object, init: object, *lists: object) -> object:
    """``(fold-left proc init lst1 ...)``: combine from the left.

    The accumulator starts as `init`; for each position ``acc = (proc acc e1
    e2 ...)``; stops at the end of the shortest list.  ``(fold-left cons '()
    '(1 2))`` is ``((() . 1) . 2)``.  LispTypeError ``"fold-left: expected proper
    list"``; at least one list is required (ArityError comes from the Builtin).
    """
    acc = init
    for row in zip(*_lists("fold-left", lists)):
        acc = apply_procedure(proc, [acc, *row])
    return acc


def builtin_fold_right(proc: object, init: object, *lists: object) -> object:
    """``(fold-right proc init lst1 ...)``: combine from the right.

    ``acc = (proc e1 e2 ... acc)`` starting with the last position (of the
    shortest list's length) and moving left.  ``(fold-right cons '() '(1 2))``
    is ``(1 2)``.  LispTypeError ``"fold-right: expected proper list"``.
    """
    acc = init
    for row in reversed(list(zip(*_lists("fold-right", lists)))):
        acc = apply_procedure(proc, [*row, acc])
    return acc


def builtin_reduce(proc: object, initial: object, lst: object) -> object:
    """``(reduce proc initial lst)`` (SRFI-1): `initial` if `lst` is empty;
    otherwise start with the first element as accumulator and, for each later
    element ``e``, set ``acc = (proc e acc)``.

    ``(reduce + 0 '(1 2 3))`` 6; ``(reduce - 0 '(1 2 3 4))`` is
    ``(- 4 (- 3 (- 2 1)))`` = 2; `proc` is not called for a one-element list.
    LispTypeError ``"reduce: expected proper list"``.
    """
    (items,) = _lists("reduce", (lst,))
    if not items:
        return initial
    acc = items[0]
    for x in items[1:]:
        acc = apply_procedure(proc, [x, acc])
    return acc


def builtin_sort(lst: object, less: object) -> object:
    """``(sort lst less?)``: a new list of the elements ordered by `less?`.

    ``(less? a b)`` returns true when `a` must come before `b`.  The sort is
    *stable* (elements that are not less than each other keep their order) and
    does not modify `lst`.  LispTypeError ``"sort: expected proper list"``.
    """
    (items,) = _lists("sort", (lst,))

    def merge_sort(xs: list) -> list:
        if len(xs) <= 1:
            return xs
        mid = len(xs) // 2
        left, right = merge_sort(xs[:mid]), merge_sort(xs[mid:])
        out = []
        i = j = 0
        while i < len(left) and j < len(right):
            if apply_procedure(less, [right[j], left[i]]) is not False:
                out.append(right[j])
                j += 1
            else:
                out.append(left[i])
                i += 1
        out.extend(left[i:])
        out.extend(right[j:])
        return out

    return from_pylist(merge_sort(items))


