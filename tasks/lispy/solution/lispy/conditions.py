"""Raising and handling errors from Lisp: ``error``, ``raise`` and ``guard``.

* ``(error message irritant ...)`` raises an :class:`~lispy.datatypes.ErrorObject`.
* ``(raise obj)`` raises any Lisp value.
* ``(guard (var clause ...) body ...)`` evaluates `body`; if it raises, `var` is
  bound to the *condition* and the cond-like clauses choose a handler.

The condition of a :class:`~lispy.errors.LispRaise` is its payload; the condition
of any other :class:`~lispy.errors.LispError` (an unbound variable, a type
error, ...) is a new ErrorObject whose message is ``str(exc)`` and whose
irritants are empty, so Lisp code can handle interpreter errors too.
"""

from __future__ import annotations

from lispy.datatypes import VOID, ErrorObject, Pair, Symbol, from_pylist
from lispy.environment import Environment
from lispy.errors import LispError, LispRaise, LispSyntaxError, LispTypeError
from lispy.evaluator import ARROW, ELSE, SPECIAL_FORMS, _forms, _sequence, apply_procedure, evaluate
from lispy.printer import to_string


def builtin_error(message: object, *irritants: object) -> object:
    """``(error message irritant ...)``: raise an error object; never returns.

    The message is `message` itself if it is a string, otherwise its displayed
    form (``(error 'oops)`` has message ``"oops"``).  Raises
    :class:`~lispy.errors.LispRaise` whose payload is ``ErrorObject(message,
    [irritant, ...])`` and whose text (``str(exc)``) is the message followed by
    each irritant's *written* form, separated by single spaces: ``(error "bad
    thing:" 42 "x")`` → ``bad thing: 42 "x"``.
    """
    text = message if isinstance(message, str) else to_string(message, write=False)
    full = " ".join([text, *(to_string(i) for i in irritants)])
    raise LispRaise(ErrorObject(text, list(irritants)), full)


def builtin_raise(obj: object) -> object:
    """``(raise obj)``: raise `obj` as a condition; never returns.

    Raises :class:`~lispy.errors.LispRaise` with payload `obj` and text
    ``"uncaught exception: <written obj>"``.
    """
    raise LispRaise(obj, f"uncaught exception: {to_string(obj)}")


def condition_of(exc: LispError) -> object:
    """The Lisp condition object for `exc` (see the module docstring)."""
    if isinstance(exc, LispRaise):
        return exc.payload
    return ErrorObject(str(exc), [])


def is_error_object(x: object) -> bool:
    """``(error-object? x)``."""
    return isinstance(x, ErrorObject)


def error_object_message(x: object) -> str:
    """``(error-object-message e)``: the message string of an error object."""
    if not isinstance(x, ErrorObject):
        raise LispTypeError(f"error-object-message: expected error object, got {to_string(x)}")
    return x.message


def error_object_irritants(x: object) -> object:
    """``(error-object-irritants e)``: a new Lisp list of the irritants."""
    if not isinstance(x, ErrorObject):
        raise LispTypeError(f"error-object-irritants: expected error object, got {to_string(x)}")
    return from_pylist(x.irritants)


def sf_guard(args: object, env: Environment) -> object:
    """``(guard (var clause ...) body ...)``: evaluate `body`, handling errors.

    The body forms are evaluated in order in a new child frame of `env` (*not* in
    tail position, since errors must be caught); if none raises, the value of the
    last is returned.  If a :class:`~lispy.errors.LispError` is raised, `var` is
    bound to the condition (:func:`condition_of`) in a new child frame of `env`
    and the clauses are tried there like ``cond`` clauses: ``(test body ...)``,
    ``(test)`` (returns the test value), ``(test => receiver)`` and a final
    ``(else body ...)``.  The chosen clause's body is in tail position.  If no
    clause matches, the *original* exception is re-raised.  Python exceptions that
    are not LispErrors (e.g. RecursionError) are not caught.

    LispSyntaxError ``"guard: bad syntax"`` if the ``(var clause ...)`` part is
    not a list starting with a symbol, if the body is empty, or a clause is not a
    non-empty list.
    """
    items = _forms(args, "guard")
    if len(items) < 2 or not isinstance(items[0], Pair) or not isinstance(items[0].car, Symbol):
        raise LispSyntaxError("guard: bad syntax")
    var = items[0].car
    clauses = _forms(items[0].cdr, "guard")
    try:
        body_env = env.extend([], None, [])
        result: object = VOID
        for form in items[1:]:
            result = evaluate(form, body_env)
        return result
    except LispError as exc:
        caught = exc
    handler_env = env.extend([var], None, [condition_of(caught)])
    for clause in clauses:
        if not isinstance(clause, Pair):
            raise LispSyntaxError("guard: bad syntax")
        parts = _forms(clause, "guard")
        if parts[0] is ELSE:
            return _sequence(parts[1:], handler_env)
        value = evaluate(parts[0], handler_env)
        if value is False:
            continue
        if len(parts) == 1:
            return value
        if parts[1] is ARROW and len(parts) == 3:
            return apply_procedure(evaluate(parts[2], handler_env), [value])
        return _sequence(parts[1:], handler_env)
    raise caught


SPECIAL_FORMS[Symbol("guard")] = sf_guard

