"""Turning source text into tokens.

A token is a :class:`Token` with a ``kind``, the exact source ``text`` and the
1-based ``line`` and ``col`` of its first character.  Kinds:

==========  ===================================================================
kind        text
==========  ===================================================================
``"("``     ``(``
``")"``     ``)``
``"'"``     ``'``  (quote)
``"`"``     ````` (quasiquote)
``","``     ``,``  (unquote)
``",@"``    ``,@`` (unquote-splicing)
``"#;"``    ``#;`` (datum comment: the reader skips the next datum)
``"string"`` a string literal, *including* its double quotes, escapes undecoded
``"atom"``  anything else: numbers, symbols, booleans, ``.``
==========  ===================================================================
"""

from __future__ import annotations

from dataclasses import dataclass

from lispy.errors import ParseError

#: Characters that end an atom (besides whitespace).
DELIMITERS = frozenset("()\";'`,")


@dataclass(frozen=True)
class Token:
    """One token: its kind (see the module docstring), text and 1-based position."""

    kind: str
    text: str
    line: int
    col: int


def tokenize(source: str) -> list[Token]:
    """Split `source` into a list of :class:`Token`, in order.

    Rules:

    * Whitespace separates tokens and is dropped.  A newline (``"\\n"``) starts a
      new line: line numbers and columns are 1-based, and a tab counts as one
      column.
    * ``;`` starts a comment that runs to the end of the line.
    * ``#|`` starts a block comment ending at the matching ``|#``; block comments
      nest (``#| a #| b |# c |#`` is one comment).
    * ``#;`` produces a ``"#;"`` token (a datum comment, handled by the reader).
    * ``(``, ``)``, ``'``, ````` and ``,`` are single-character tokens, except that
      ``,@`` is one ``",@"`` token.
    * ``"`` starts a string literal that ends at the next ``"`` not preceded by
      a backslash escape (``\\"`` and ``\\\\`` do not end it).  Strings may span
      lines.  The token text is the raw literal including both quotes.
    * Anything else is an ``"atom"``: a maximal run of characters that are
      neither whitespace nor one of ``( ) " ; ' ` ,``.  So ``a'b`` is the three
      tokens ``a``, ``'``, ``b``, while ``#t``, ``-1.5``, ``.`` and ``a|b`` are
      single atoms.

    Raises :class:`~lispy.errors.ParseError` with the position of the opening
    delimiter for ``"unterminated string"`` and ``"unterminated block comment"``.
    """
    tokens: list[Token] = []
    i = 0
    n = len(source)
    line, col = 1, 1

    def advance(k: int) -> None:
        nonlocal i, line, col
        for _ in range(k):
            if source[i] == "\n":
                line += 1
                col = 1
            else:
                col += 1
            i += 1

    while i < n:
        c = source[i]
        if c.isspace():
            advance(1)
        elif c == ";":
            while i < n and source[i] != "\n":
                advance(1)
        elif source.startswith("#|", i):
            start_line, start_col = line, col
            depth = 0
            while True:
                if i >= n:
                    raise ParseError("unterminated block comment", start_line, start_col)
                if source.startswith("#|", i):
                    depth += 1
                    advance(2)
                elif source.startswith("|#", i):
                    depth -= 1
                    advance(2)
                    if depth == 0:
                        break
                else:
                    advance(1)
        elif source.startswith("#;", i):
            tokens.append(Token("#;", "#;", line, col))
            advance(2)
        elif source.startswith(",@", i):
            tokens.append(Token(",@", ",@", line, col))
            advance(2)
        elif c in "()'`,":
            tokens.append(Token(c, c, line, col))
            advance(1)
        elif c == '"':
            start, start_line, start_col = i, line, col
            advance(1)
            while True:
                if i >= n:
                    raise ParseError("unterminated string", start_line, start_col)
                if source[i] == "\\":
                    advance(2 if i + 1 < n else 1)
                elif source[i] == '"':
                    advance(1)
                    break
                else:
                    advance(1)
            tokens.append(Token("string", source[start:i], start_line, start_col))
        else:
            start, start_line, start_col = i, line, col
            while i < n and not source[i].isspace() and source[i] not in DELIMITERS:
                advance(1)
            tokens.append(Token("atom", source[start:i], start_line, start_col))
    return tokens
