"""Turning query text into tokens.

Token kinds (the ``kind`` field of :class:`Token`):

========== =====================================================================
kind       value
========== =====================================================================
KEYWORD    the keyword in upper case: one of :data:`KEYWORDS`
IDENT      the identifier's name (bare ``[A-Za-z_][A-Za-z0-9_]*`` that is not a
           keyword, or any text in double quotes: ``"first name"``)
NUMBER     an ``int`` (``42``, ``-3``) or a ``float`` (``2.5``, ``-.5``, ``7.``)
STRING     the text between single quotes, with ``''`` turned into ``'``
OP         one of ``=``, ``!=``, ``<``, ``<=``, ``>``, ``>=`` (``<>`` gives ``!=``)
COMMA      ``","``
LPAREN     ``"("``
RPAREN     ``")"``
STAR       ``"*"``
EOF        ``None``; always the last token, its ``pos`` is ``len(query)``
========== =====================================================================
"""

from __future__ import annotations

from dataclasses import dataclass

from csvql.errors import QuerySyntaxError

KEYWORDS = frozenset(
    {
        "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "GROUP", "BY", "ORDER",
        "ASC", "DESC", "LIMIT", "AS", "IS", "NULL", "TRUE", "FALSE",
    }
)

_WORD_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_WORD_CHARS = _WORD_START | frozenset("0123456789")


@dataclass(frozen=True)
class Token:
    """One token: its kind, its value and the 0-based offset where it starts."""

    kind: str
    value: object
    pos: int


def tokenize(query: str) -> list[Token]:
    """Split ``query`` into a list of :class:`Token`, ending with an ``EOF`` token.

    - Whitespace separates tokens and is otherwise ignored.
    - Words matching ``[A-Za-z_][A-Za-z0-9_]*`` are ``KEYWORD`` tokens (value upper
      case) when their upper-case form is in :data:`KEYWORDS`, else ``IDENT``
      tokens with the word as written. Note that aggregate names such as
      ``COUNT`` are identifiers, not keywords.
    - ``"..."`` is an ``IDENT`` token whose value is the text between the quotes,
      with ``""`` standing for one ``"``; it is never a keyword.
    - ``'...'`` is a ``STRING`` token, with ``''`` standing for one ``'``.
    - Numbers: digits with an optional fraction (``12``, ``12.5``, ``12.``) or a
      fraction alone (``.5``), optionally preceded directly by ``-``. Without a
      decimal point the value is an ``int``, otherwise a ``float``.
    - ``=``, ``!=``, ``<>``, ``<``, ``<=``, ``>``, ``>=`` are ``OP`` tokens;
      ``<>`` is normalised to ``!=``.
    - ``,``, ``(``, ``)`` and ``*`` are ``COMMA``, ``LPAREN``, ``RPAREN``, ``STAR``.

    Every token's ``pos`` is the offset of its first character (for a negative
    number, of the ``-``).

    Raises :class:`~csvql.errors.QuerySyntaxError` with ``pos`` at the offending
    character for an unterminated string or quoted identifier (``pos`` of the
    opening quote), an empty quoted identifier ``""``, a ``-`` not followed by a
    digit or ``.digit``, a ``!`` not followed by ``=``, or any other character
    that cannot start a token.
    """
    tokens: list[Token] = []
    i = 0
    n = len(query)
    singles = {",": "COMMA", "(": "LPAREN", ")": "RPAREN", "*": "STAR"}
    digits = "0123456789"
    while i < n:
        ch = query[i]
        if ch.isspace():
            i += 1
            continue
        start = i
        if ch in _WORD_START:
            while i < n and query[i] in _WORD_CHARS:
                i += 1
            word = query[start:i]
            if word.upper() in KEYWORDS:
                tokens.append(Token("KEYWORD", word.upper(), start))
            else:
                tokens.append(Token("IDENT", word, start))
            continue
        if ch in "\"'":
            text, i = _quoted(query, i, ch)
            if ch == '"':
                if text == "":
                    raise QuerySyntaxError("empty quoted identifier", start)
                tokens.append(Token("IDENT", text, start))
            else:
                tokens.append(Token("STRING", text, start))
            continue
        if ch in digits or ch == "." or ch == "-":
            j = i + 1 if ch == "-" else i
            if not (j < n and (query[j] in digits or (query[j] == "." and j + 1 < n and query[j + 1] in digits))):
                raise QuerySyntaxError(f"unexpected character {ch!r}", i)
            k = j
            while k < n and query[k] in digits:
                k += 1
            is_float = False
            if k < n and query[k] == ".":
                is_float = True
                k += 1
                while k < n and query[k] in digits:
                    k += 1
            literal = query[start:k]
            tokens.append(Token("NUMBER", float(literal) if is_float else int(literal), start))
            i = k
            continue
        if ch in "<>=!":
            two = query[i : i + 2]
            if two in ("<=", ">=", "!=", "<>"):
                tokens.append(Token("OP", "!=" if two == "<>" else two, start))
                i += 2
                continue
            if ch == "!":
                raise QuerySyntaxError("expected '=' after '!'", i)
            tokens.append(Token("OP", ch, start))
            i += 1
            continue
        if ch in singles:
            tokens.append(Token(singles[ch], ch, start))
            i += 1
            continue
        raise QuerySyntaxError(f"unexpected character {ch!r}", i)
    tokens.append(Token("EOF", None, n))
    return tokens


def _quoted(query: str, i: int, q: str) -> tuple[str, int]:
    """Read a quoted run starting at ``query[i] == q``; return (text, index after)."""
    start = i
    i += 1
    out: list[str] = []
    while True:
        if i >= len(query):
            raise QuerySyntaxError("unterminated quoted text", start)
        c = query[i]
        if c == q:
            if query[i + 1 : i + 2] == q:
                out.append(q)
                i += 2
                continue
            return "".join(out), i + 1
        out.append(c)
        i += 1
