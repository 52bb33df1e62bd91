"""Strings, symbols <-> strings, and ``format``.

lispy strings are immutable Python ``str`` values; there is no separate character
type.  Type errors raise :class:`~lispy.errors.LispTypeError` ``"<name>:
expected string, got <written value>"`` (``expected integer`` for indices).
"""

from __future__ import annotations

from lispy.datatypes import NIL, Pair, Symbol, from_pylist
from lispy.errors import EvalError, LispTypeError
from lispy.printer import to_string


def check_string(who: str, x: object) -> str:
    """Return `x` if it is a string, else raise the module's LispTypeError."""
    if not isinstance(x, str):
        raise LispTypeError(f"{who}: expected string, got {to_string(x)}")
    return x


def string_length(s: object) -> int:
    """``(string-length s)``: the number of characters."""
    return len(check_string("string-length", s))


def string_upcase(s: object) -> str:
    """``(string-upcase s)``."""
    return check_string("string-upcase", s).upper()


def string_downcase(s: object) -> str:
    """``(string-downcase s)``."""
    return check_string("string-downcase", s).lower()


def string_to_symbol(s: object) -> Symbol:
    """``(string->symbol s)``: the interned symbol named `s`."""
    return Symbol(check_string("string->symbol", s))


def symbol_to_string(sym: object) -> str:
    """``(symbol->string sym)``: the name of a symbol."""
    if not isinstance(sym, Symbol):
        raise LispTypeError(f"symbol->string: expected symbol, got {to_string(sym)}")
    return sym.name


def string_contains(s: object, needle: object) -> int | bool:
    """``(string-contains s needle)``: index of the first occurrence of `needle`, or #f."""
    i = check_string("string-contains", s).find(check_string("string-contains", needle))
    return False if i < 0 else i


def string_append(*strings: object) -> str:
    """``(string-append s ...)``: the concatenation (``(string-append)`` is ``""``).

    LispTypeError ``"string-append: expected string, got ..."`` for a
    non-string argument (symbols are not strings).
    """
    return "".join(check_string("string-append", s) for s in strings)


def _check_int(who: str, x: object) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise LispTypeError(f"{who}: expected integer, got {to_string(x)}")
    return x


def substring(s: object, start: object, end: object = None) -> str:
    """``(substring s start [end])``: the characters from `start` up to (not
    including) `end`, which defaults to the length of `s`.

    Errors: LispTypeError ``substring: expected string, ...`` / ``substring:
    expected integer, ...``; EvalError ``"substring: index out of range"``
    unless ``0 <= start <= end <= (string-length s)``.
    """
    check_string("substring", s)
    _check_int("substring", start)
    if end is None:
        end = len(s)
    _check_int("substring", end)
    if not 0 <= start <= end <= len(s):
        raise EvalError("substring: index out of range")
    return s[start:end]


def string_split(s: object, sep: object = None) -> object:
    """``(string-split s [sep])``: a Lisp list of the pieces of `s`.

    Without `sep`, splits on runs of whitespace and drops empty pieces
    (``(string-split "  a b ")`` → ``("a" "b")``, ``(string-split "")`` →
    ``()``).  With a separator string, splits on every occurrence and keeps empty
    pieces (``(string-split "a,,b" ",")`` → ``("a" "" "b")``, ``(string-split
    "" ",")`` → ``("")``).

    Errors: LispTypeError ``string-split: expected string, ...``; EvalError
    ``"string-split: empty separator"`` for ``""`` as separator.
    """
    check_string("string-split", s)
    if sep is None:
        return from_pylist(s.split())
    check_string("string-split", sep)
    if sep == "":
        raise EvalError("string-split: empty separator")
    return from_pylist(s.split(sep))


def string_join(lst: object, sep: object = " ") -> str:
    """``(string-join lst [sep])``: the strings of the list `lst` joined with `sep`
    (default a single space); ``(string-join '())`` is ``""``.

    Errors (LispTypeError): ``"string-join: expected proper list"`` if `lst` is
    not a proper list; ``string-join: expected string, ...`` for a non-string
    element or separator.
    """
    check_string("string-join", sep)
    parts = []
    while isinstance(lst, Pair):
        parts.append(check_string("string-join", lst.car))
        lst = lst.cdr
    if lst is not NIL:
        raise LispTypeError("string-join: expected proper list")
    return sep.join(parts)


_STRING_OPS = {
    "=": lambda a, b: a == b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
}


def string_compare(op: str, *args: object) -> bool:
    """The chained string comparison ``string<op>?`` (`op` one of ``= < > <= >=``).

    Lexicographic by code point (so ``"Z"`` < ``"a"`` and ``"ab"`` < ``"abc"``),
    true when every adjacent pair satisfies `op`; one argument gives #t.  All
    arguments are checked first: LispTypeError ``"string<op>?: expected string,
    got ..."`` (e.g. ``string<?: expected string, got 1``).  ValueError for an
    unknown `op`.
    """
    if op not in _STRING_OPS:
        raise ValueError(f"unknown comparison {op!r}")
    who = f"string{op}?"
    for x in args:
        check_string(who, x)
    cmp = _STRING_OPS[op]
    return all(cmp(a, b) for a, b in zip(args, args[1:]))


def format_string(template: object, *args: object) -> str:
    """``(format template arg ...)``: fill the directives of `template` with `args`.

    Directives (the letter is case-insensitive): ``~a`` the next argument as
    ``display`` shows it, ``~s`` the next argument as ``write`` shows it, ``~%``
    a newline, ``~~`` a tilde.  Every other character is copied.
    ``(format "~a is ~s~%" "x" "y")`` → ``x is "y"`` plus a newline.

    Errors: LispTypeError ``format: expected string, ...`` if `template` is not a
    string; EvalError ``"format: too few arguments"`` / ``"format: too many
    arguments"`` when the number of ``~a``/``~s`` directives differs from the
    number of `args`; ``"format: unknown directive ~<c>"``; ``"format:
    incomplete directive"`` for a trailing lone ``~``.
    """
    check_string("format", template)
    out = []
    remaining = list(args)
    i = 0
    while i < len(template):
        ch = template[i]
        if ch != "~":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= len(template):
            raise EvalError("format: incomplete directive")
        d = template[i + 1]
        i += 2
        if d in "aAsS":
            if not remaining:
                raise EvalError("format: too few arguments")
            out.append(to_string(remaining.pop(0), write=d in "sS"))
        elif d == "%":
            out.append("\n")
        elif d == "~":
            out.append("~")
        else:
            raise EvalError(f"format: unknown directive ~{d}")
    if remaining:
        raise EvalError("format: too many arguments")
    return "".join(out)
