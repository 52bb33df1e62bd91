"""The exception hierarchy of lispy.

Every error that a Lisp program can cause is a subclass of :class:`LispError`, so
host code can catch them all with one ``except LispError``.  The Lisp-level
``guard`` form catches exactly these errors (see :mod:`lispy.conditions`).

::

    LispError
    +-- ParseError          malformed source text (has .line and .col)
    +-- EvalError           anything that goes wrong while evaluating
    |   +-- UnboundVariable     reference to / set! of a name with no binding
    |   +-- LispTypeError       an argument of the wrong type
    |   +-- ArityError          wrong number of arguments
    |   +-- LispSyntaxError     a malformed special form or macro use
    +-- LispRaise           raised by the Lisp procedures ``raise`` and ``error``
"""

from __future__ import annotations


class LispError(Exception):
    """Base class of every error a Lisp program can cause."""


class ParseError(LispError):
    """Malformed source text.

    ``str(err)`` is ``"<message> at line <line>, column <col>"``; the bare
    message, line and column (both 1-based) are kept as attributes.
    """

    def __init__(self, message: str, line: int, col: int):
        super().__init__(f"{message} at line {line}, column {col}")
        self.message = message
        self.line = line
        self.col = col


class EvalError(LispError):
    """An error raised while evaluating an expression."""


class UnboundVariable(EvalError):
    """A variable was referenced (or ``set!``) but has no binding.

    ``str(err)`` is ``"unbound variable: <name>"``; the name is kept in ``.name``.
    """

    def __init__(self, name: str):
        super().__init__(f"unbound variable: {name}")
        self.name = str(name)


class LispTypeError(EvalError):
    """An argument had the wrong type (e.g. ``(car 5)`` or ``(+ 1 "a")``)."""


class ArityError(EvalError):
    """A procedure was called with the wrong number of arguments."""


class LispSyntaxError(EvalError):
    """A special form or macro was used with malformed syntax."""


class LispRaise(LispError):
    """An object raised from Lisp code with ``raise`` or ``error``.

    ``payload`` is the raised Lisp object (an :class:`~lispy.datatypes.ErrorObject`
    for ``error``); ``str(err)`` is the human readable message given when raising.
    """

    def __init__(self, payload: object, message: str):
        super().__init__(message)
        self.payload = payload
