"""Splitting lines of assembly source into tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackvm.errors import AssemblerError

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39}


@dataclass(frozen=True)
class Token:
    """A token of one source line.

    `kind` is ``"label"`` (a label definition ``name:``; `value` is the name
    without the colon), ``"ident"`` (a mnemonic or a label reference; `value` is
    the text as written) or ``"number"`` (`value` is the ``int``). `line` and
    `column` are 1-based.
    """

    kind: str
    value: str | int
    line: int
    column: int


def parse_number(text: str) -> int:
    """Convert a numeric literal of the assembly language to an ``int``.

    Accepted forms:

    * decimal: ``42``, ``-7``, ``+3`` (leading zeros allowed);
    * hexadecimal ``0x1F``, binary ``0b101``, octal ``0o17`` (prefix in either
      case, digits case-insensitive), each with an optional ``+``/``-`` sign;
    * a character literal: one character between single quotes, ``'A'`` -> 65,
      or one of the escapes ``'\\n'``, ``'\\t'``, ``'\\r'``, ``'\\0'``,
      ``'\\\\'``, ``'\\''``. No sign is allowed before a character literal.

    Underscores, spaces and any other characters are rejected.

    Raises:
        ValueError: if `text` is not one of these forms.

    >>> parse_number("-0x10"), parse_number("'A'")
    (-16, 65)
    """
    if len(text) >= 3 and text[0] == "'" and text[-1] == "'":
        body = text[1:-1]
        if len(body) == 1 and body != "\\" and body != "'":
            return ord(body)
        if len(body) == 2 and body[0] == "\\" and body[1] in _ESCAPES:
            return _ESCAPES[body[1]]
        raise ValueError(f"invalid character literal {text!r}")
    sign = 1
    rest = text
    if rest[:1] in ("+", "-"):
        sign = -1 if rest[0] == "-" else 1
        rest = rest[1:]
    prefix = rest[:2].lower()
    bases = {"0x": (16, "0123456789abcdef"), "0b": (2, "01"), "0o": (8, "01234567")}
    if prefix in bases:
        base, digits = bases[prefix]
        body = rest[2:]
    else:
        base, digits = 10, "0123456789"
        body = rest
    if not body or any(c not in digits for c in body.lower()):
        raise ValueError(f"invalid number {text!r}")
    return sign * int(body, base)


def tokenize_line(line: str, lineno: int) -> list[Token]:
    """Split one line of assembly source into tokens.

    Tokens are separated by whitespace. A ``;`` or ``#`` outside a character
    literal starts a comment that runs to the end of the line. A word ending in
    ``":"`` is a label definition; the name before the colon must be an
    identifier (``[A-Za-z_][A-Za-z0-9_]*``). A word starting with a letter or
    ``_`` must be an identifier and gives an ``"ident"`` token. A word starting
    with a digit or a sign, or a character literal in single quotes (which may
    contain a space, ``;`` or ``#``), is converted with `parse_number`. Blank and
    comment-only lines give ``[]``.

    `lineno` is the 1-based line number recorded in the tokens; columns are
    1-based positions in `line`.

    Raises:
        AssemblerError: with `lineno` and the column of the offending word, for
            an invalid label name, identifier or number, an unterminated
            character literal, or a word starting with any other character.

    >>> [(t.kind, t.value) for t in tokenize_line("loop: push -1 ; comment", 1)]
    [('label', 'loop'), ('ident', 'push'), ('number', -1)]
    """
    tokens: list[Token] = []
    i = 0
    n = len(line)
    while i < n:
        c = line[i]
        if c.isspace():
            i += 1
            continue
        if c in ";#":
            break
        col = i + 1
        if c == "'":
            j = i + 1
            if j < n and line[j] == "\\":
                j += 1
            j += 1
            if j >= n or line[j] != "'":
                raise AssemblerError("unterminated character literal", lineno, col)
            word = line[i : j + 1]
            if j + 1 < n and not (line[j + 1].isspace() or line[j + 1] in ";#"):
                raise AssemblerError(f"unexpected text after {word}", lineno, j + 2)
            try:
                tokens.append(Token("number", parse_number(word), lineno, col))
            except ValueError:
                raise AssemblerError(f"invalid character literal {word}", lineno, col) from None
            i = j + 1
            continue
        j = i
        while j < n and not line[j].isspace() and line[j] not in ";#":
            j += 1
        word = line[i:j]
        i = j
        if word.endswith(":"):
            name = word[:-1]
            if not _IDENT.fullmatch(name):
                raise AssemblerError(f"invalid label name {name!r}", lineno, col)
            tokens.append(Token("label", name, lineno, col))
        elif c.isalpha() or c == "_":
            if not _IDENT.fullmatch(word):
                raise AssemblerError(f"invalid identifier {word!r}", lineno, col)
            tokens.append(Token("ident", word, lineno, col))
        elif c in "0123456789+-":
            try:
                tokens.append(Token("number", parse_number(word), lineno, col))
            except ValueError:
                raise AssemblerError(f"invalid number {word!r}", lineno, col) from None
        else:
            raise AssemblerError(f"unexpected character {c!r}", lineno, col)
    return tokens
