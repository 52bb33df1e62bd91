"""The tokenizer: source text -> list of :class:`Token`."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from exprcalc.errors import ParseError

OPERATORS = "+-*/%^"
SINGLE = {"(": "LPAREN", ")": "RPAREN", ",": "COMMA", "=": "ASSIGN"}


class TokenType(enum.Enum):
    NUMBER = "number"
    NAME = "name"
    OP = "operator"
    LPAREN = "("
    RPAREN = ")"
    COMMA = ","
    ASSIGN = "="
    EOF = "end of input"


@dataclass(frozen=True)
class Token:
    """One token.

    ``value`` is the ``int``/``float`` for ``NUMBER``, the identifier for ``NAME``,
    the operator character for ``OP`` (``**`` is normalised to ``"^"``), the
    character itself for ``LPAREN``/``RPAREN``/``COMMA``/``ASSIGN``, and ``None``
    for ``EOF``.  ``pos`` is the offset of the token's first character and
    ``text`` the exact source text of the token (``""`` for ``EOF``).
    """

    type: TokenType
    value: object
    pos: int
    text: str


def read_number(source: str, pos: int) -> tuple[int | float, int]:
    """Read the number literal starting at ``source[pos]``.

    Accepted forms (ASCII digits only)::

        digits                    "42"     -> 42        (int)
        digits . digits           "3.25"   -> 3.25      (float)
        . digits                  ".5"     -> 0.5       (float)
        any of those + exponent   "1e3", "2.5E-2", ".5e+1"  (float)

    where the exponent is ``e`` or ``E``, an optional sign and at least one digit.
    Returns ``(value, end)``: an ``int`` for plain digit strings, otherwise a
    ``float``; ``end`` is the offset just past the literal.  Letters directly after
    a number are not part of it (``"2x"`` reads ``2`` and stops at ``x``).

    Raises :class:`~exprcalc.errors.ParseError` ``"Malformed number"`` at ``pos``
    when an exponent marker has no digits (``"1e"``, ``"1e+"``), when a ``.`` is
    not followed by a digit (``"1."``, ``"1.e5"``), when the literal is directly
    followed by another ``.`` (``"1.2.3"``, ``"1e5.0"``), or when ``source[pos]`` does
    not start a number at all.
    """
    n = len(source)
    i = pos
    while i < n and source[i].isascii() and source[i].isdigit():
        i += 1
    has_int = i > pos
    is_float = False
    if i < n and source[i] == ".":
        i += 1
        j = i
        while i < n and source[i].isascii() and source[i].isdigit():
            i += 1
        if i == j:
            raise ParseError("Malformed number", pos)
        is_float = True
    elif not has_int:
        raise ParseError("Malformed number", pos)
    if i < n and source[i] in "eE":
        i += 1
        if i < n and source[i] in "+-":
            i += 1
        j = i
        while i < n and source[i].isascii() and source[i].isdigit():
            i += 1
        if i == j:
            raise ParseError("Malformed number", pos)
        is_float = True
    if i < n and source[i] == ".":
        raise ParseError("Malformed number", pos)
    literal = source[pos:i]
    return (float(literal) if is_float else int(literal)), i


def tokenize(source: str) -> list[Token]:
    """Split ``source`` into tokens; the list always ends with one ``EOF`` token.

    * whitespace is skipped, and ``#`` starts a comment that runs to the end of
      the line;
    * a digit, or a ``.`` followed by a digit, starts a number (:func:`read_number`);
    * a letter or ``_`` starts a name: letters, digits and ``_`` (ASCII only);
    * ``+ - * / % ^`` are operators, and ``**`` is an alternative spelling of
      ``^`` (its token has value ``"^"`` and text ``"**"``);
    * ``( ) , =`` are ``LPAREN``, ``RPAREN``, ``COMMA`` and ``ASSIGN``.

    Example: ``tokenize("f(x) = x**2")`` gives ``NAME(f)@0 LPAREN@1 NAME(x)@2
    RPAREN@3 ASSIGN@5 NAME(x)@7 OP(^)@8 NUMBER(2)@10 EOF@11``.

    Raises :class:`~exprcalc.errors.ParseError` ``"Unexpected character '<c>'"`` at
    any other character (e.g. ``$``, ``!``, ``&``, a lone ``.``, a non-ASCII letter),
    and the errors of :func:`read_number`.
    """
    tokens: list[Token] = []
    i = 0
    n = len(source)
    while i < n:
        ch = source[i]
        if ch.isspace():
            i += 1
        elif ch == "#":
            while i < n and source[i] != "\n":
                i += 1
        elif (ch.isascii() and ch.isdigit()) or (
            ch == "." and i + 1 < n and source[i + 1].isascii() and source[i + 1].isdigit()
        ):
            value, end = read_number(source, i)
            tokens.append(Token(TokenType.NUMBER, value, i, source[i:end]))
            i = end
        elif ch.isascii() and (ch.isalpha() or ch == "_"):
            j = i + 1
            while j < n and source[j].isascii() and (source[j].isalnum() or source[j] == "_"):
                j += 1
            tokens.append(Token(TokenType.NAME, source[i:j], i, source[i:j]))
            i = j
        elif ch == "*" and source.startswith("**", i):
            tokens.append(Token(TokenType.OP, "^", i, "**"))
            i += 2
        elif ch in OPERATORS:
            tokens.append(Token(TokenType.OP, ch, i, ch))
            i += 1
        elif ch in SINGLE:
            tokens.append(Token(TokenType[SINGLE[ch]], ch, i, ch))
            i += 1
        else:
            raise ParseError(f"Unexpected character '{ch}'", i)
    tokens.append(Token(TokenType.EOF, None, n, ""))
    return tokens
