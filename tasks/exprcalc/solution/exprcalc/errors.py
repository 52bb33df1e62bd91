"""The exceptions raised by exprcalc.  All of them derive from :class:`CalcError`."""

from __future__ import annotations


class CalcError(Exception):
    """Base class of every exprcalc error.

    ``line`` is ``None`` except for errors raised by
    :meth:`exprcalc.calculator.Calculator.run`, which sets it to the 1-based line
    number of the script line that failed.
    """

    line: int | None = None


class ParseError(CalcError):
    """The source text is not a valid statement.

    ``message`` is the bare message and ``pos`` the 0-based character offset in the
    source; ``str(error)`` is ``"<message> (at position <pos>)"``.
    """

    def __init__(self, message: str, pos: int):
        super().__init__(message, pos)
        self.message = message
        self.pos = pos

    def __str__(self) -> str:
        return f"{self.message} (at position {self.pos})"


class EvalError(CalcError):
    """A statement was parsed but could not be evaluated (e.g. numeric overflow)."""


class UnknownNameError(EvalError):
    """A variable or function name is not defined.

    ``name`` is the name and ``kind`` is ``"variable"`` or ``"function"``;
    ``str(error)`` is ``"Unknown <kind> '<name>'"``.
    """

    def __init__(self, name: str, kind: str):
        super().__init__(f"Unknown {kind} '{name}'")
        self.name = name
        self.kind = kind


class ArityError(EvalError):
    """A function was called with the wrong number of arguments."""


class DivisionByZeroError(EvalError):
    """Division or modulo by zero, or zero raised to a negative power."""


class DomainError(EvalError):
    """A mathematical function was called outside its domain (``sqrt(-1)``)."""


class RecursionLimitError(EvalError):
    """User-defined functions called each other too deeply."""
