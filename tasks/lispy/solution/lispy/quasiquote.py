"""Quasiquotation: ```(a ,b ,@c)``.

A quasiquoted template is copied like ``quote`` would return it, except that
``(unquote x)`` (written ``,x``) is replaced by the value of ``x`` and
``(unquote-splicing x)`` (``,@x``) inside a list is replaced by the *elements*
of the list ``x`` evaluates to.  Quasiquotes nest: each inner ``quasiquote``
raises the nesting depth by one and each ``unquote`` lowers it; only unquotes at
depth 1 are evaluated, deeper ones are kept (with their contents processed at the
lower depth).

This module registers the special forms ``quasiquote``, ``unquote`` and
``unquote-splicing`` (the last two are errors outside a quasiquote).
"""

from __future__ import annotations

from lispy.datatypes import NIL, Pair, from_pylist, is_proper_list, to_pylist
from lispy.environment import Environment
from lispy.errors import LispSyntaxError, LispTypeError
from lispy.evaluator import SPECIAL_FORMS, _forms, evaluate
from lispy.reader import QUASIQUOTE, UNQUOTE, UNQUOTE_SPLICING

_MARKERS = (UNQUOTE, QUASIQUOTE, UNQUOTE_SPLICING)


def _operand(form: Pair, who: str) -> object:
    items = _forms(form.cdr, who)
    if len(items) != 1:
        raise LispSyntaxError(f"{who}: bad syntax")
    return items[0]


def quasi_expand(template: object, env: Environment, depth: int = 1) -> object:
    """The value of the quasiquote template `template` at nesting `depth` (>= 1).

    * A non-pair (symbol, number, ``()``, ...) is returned as is (unevaluated).
    * ``(unquote x)``: at depth 1 the value of ``x`` evaluated in `env`; deeper, the
      list ``(unquote X)`` where ``X`` is `x` expanded at ``depth - 1``.
    * ``(quasiquote x)``: the list ``(quasiquote X)``, `x` expanded at ``depth + 1``.
    * ``(unquote-splicing x)`` reached as a template on its own (not as an element
      of a list) at depth 1: LispSyntaxError ``"unquote-splicing: not in list
      context"``; deeper: ``(unquote-splicing X)`` with `x` at ``depth - 1``.
    * Any other list: a *new* list whose elements are the expanded elements, except
      that an element ``(unquote-splicing x)`` at depth 1 contributes the elements
      of the value of ``x`` (which must be a proper list, else LispTypeError
      ``"unquote-splicing: expected proper list"``; the spliced elements are
      copied into fresh pairs).  A dotted tail is expanded too, and a tail that is
      itself an unquote form is handled as one: ```(1 . ,x)`` is ``(1 . X)``.

    ``unquote`` / ``quasiquote`` / ``unquote-splicing`` forms without exactly one
    operand raise LispSyntaxError ``"<name>: bad syntax"``.  Unquoted values are
    inserted as they are (not copied).
    """
    if not isinstance(template, Pair):
        return template
    head = template.car
    if head is UNQUOTE:
        arg = _operand(template, "unquote")
        if depth == 1:
            return evaluate(arg, env)
        return from_pylist([UNQUOTE, quasi_expand(arg, env, depth - 1)])
    if head is QUASIQUOTE:
        arg = _operand(template, "quasiquote")
        return from_pylist([QUASIQUOTE, quasi_expand(arg, env, depth + 1)])
    if head is UNQUOTE_SPLICING:
        arg = _operand(template, "unquote-splicing")
        if depth == 1:
            raise LispSyntaxError("unquote-splicing: not in list context")
        return from_pylist([UNQUOTE_SPLICING, quasi_expand(arg, env, depth - 1)])
    items: list[object] = []
    tail: object = NIL
    p: object = template
    while isinstance(p, Pair):
        if p is not template and p.car in _MARKERS:
            tail = quasi_expand(p, env, depth)
            break
        elem = p.car
        if isinstance(elem, Pair) and elem.car is UNQUOTE_SPLICING:
            arg = _operand(elem, "unquote-splicing")
            if depth == 1:
                value = evaluate(arg, env)
                if not is_proper_list(value):
                    raise LispTypeError("unquote-splicing: expected proper list")
                items.extend(to_pylist(value))
            else:
                items.append(from_pylist([UNQUOTE_SPLICING, quasi_expand(arg, env, depth - 1)]))
        else:
            items.append(quasi_expand(elem, env, depth))
        p = p.cdr
    else:
        tail = p
    return from_pylist(items, tail)


def sf_quasiquote(args: object, env: Environment) -> object:
    """``(quasiquote template)``: :func:`quasi_expand` at depth 1.

    LispSyntaxError ``"quasiquote: bad syntax"`` unless there is exactly one operand.
    """
    items = _forms(args, "quasiquote")
    if len(items) != 1:
        raise LispSyntaxError("quasiquote: bad syntax")
    return quasi_expand(items[0], env, 1)


def sf_unquote(args: object, env: Environment) -> object:
    """``unquote`` outside a quasiquote: LispSyntaxError ``"unquote: not in quasiquote"``."""
    raise LispSyntaxError("unquote: not in quasiquote")


def sf_unquote_splicing(args: object, env: Environment) -> object:
    """``unquote-splicing`` outside a quasiquote: LispSyntaxError
    ``"unquote-splicing: not in quasiquote"``."""
    raise LispSyntaxError("unquote-splicing: not in quasiquote")


SPECIAL_FORMS[QUASIQUOTE] = sf_quasiquote
SPECIAL_FORMS[UNQUOTE] = sf_unquote
SPECIAL_FORMS[UNQUOTE_SPLICING] = sf_unquote_splicing
