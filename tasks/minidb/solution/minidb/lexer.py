"""Layer 1: turn SQL text into a list of `Token`s.

Each ``scan_*`` function reads one token starting at a given offset and
returns ``(token, next_offset)``. `tokenize` skips whitespace and comments and
dispatches to the right scanner.
"""

from __future__ import annotations

from minidb.errors import SQLSyntaxError
from minidb.tokens import KEYWORDS, OPERATORS_1, OPERATORS_2, Token, TokenType


def _is_ident_start(ch: str) -> bool:
    return ch.isalpha() or ch == "_"


def _is_ident_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def scan_number(sql: str, pos: int) -> tuple[Token, int]:
    """Scan a numeric literal starting at ``sql[pos]``.

    Accepted forms: ``123``, ``1.5``, ``1.`` (= 1.0), ``.5`` (= 0.5), and any of
    these followed by an exponent ``e``/``E`` with an optional sign and at least
    one digit (``1e3``, ``2.5E-2``). Without a fraction or exponent the token is
    `TokenType.INTEGER` with an int value; otherwise `TokenType.FLOAT` with a
    float value. A leading sign is *not* part of the number (it is an operator).

    Args:
        sql: the whole SQL text.
        pos: offset of the first character (a digit, or a '.' followed by a digit).

    Returns:
        The token (whose ``pos`` is ``pos``) and the offset just past the number.

    Raises:
        SQLSyntaxError: if an exponent has no digits (``1e``, ``1e+``), or if the
            number is immediately followed by a letter, an underscore or a second
            '.' (``12abc``, ``1.2.3``); the position is that of the offending
            character.
    """
    n = len(sql)
    i = pos
    while i < n and sql[i].isdigit():
        i += 1
    is_float = False
    if i < n and sql[i] == ".":
        is_float = True
        i += 1
        while i < n and sql[i].isdigit():
            i += 1
    if i < n and sql[i] in "eE":
        is_float = True
        i += 1
        if i < n and sql[i] in "+-":
            i += 1
        if i >= n or not sql[i].isdigit():
            raise SQLSyntaxError("invalid number: exponent has no digits", i)
        while i < n and sql[i].isdigit():
            i += 1
    if i < n and (_is_ident_start(sql[i]) or sql[i] == "."):
        raise SQLSyntaxError(f"invalid number: unexpected {sql[i]!r}", i)
    text = sql[pos:i]
    if is_float:
        return Token(TokenType.FLOAT, float(text), pos), i
    return Token(TokenType.INTEGER, int(text), pos), i


def scan_string(sql: str, pos: int) -> tuple[Token, int]:
    """Scan a single-quoted string literal starting at ``sql[pos]`` (a ``'``).

    Inside the literal two consecutive quotes stand for one quote
    (``'it''s'`` is ``it's``); every other character, newlines included, is
    taken literally (there are no backslash escapes).

    Returns:
        A `TokenType.STRING` token whose value is the decoded contents and whose
        ``pos`` is ``pos``, and the offset just past the closing quote.

    Raises:
        SQLSyntaxError: "unterminated string literal" at the position of the
            opening quote if the text ends before the closing quote.
    """
    i = pos + 1
    n = len(sql)
    parts: list[str] = []
    while True:
        j = sql.find("'", i)
        if j < 0:
            raise SQLSyntaxError("unterminated string literal", pos)
        parts.append(sql[i:j])
        if j + 1 < n and sql[j + 1] == "'":
            parts.append("'")
            i = j + 2
            continue
        return Token(TokenType.STRING, "".join(parts), pos), j + 1


def scan_word(sql: str, pos: int) -> tuple[Token, int]:
    """Scan a keyword or an unquoted identifier starting at ``sql[pos]``.

    A word starts with a letter or '_' and continues with letters, digits and
    '_'. If its upper-case form is in `minidb.tokens.KEYWORDS` the result is a
    `TokenType.KEYWORD` token whose value is the upper-case keyword; otherwise it
    is a `TokenType.IDENT` token whose value is the word in lower case
    (unquoted identifiers are case-insensitive).

    Returns:
        The token (with ``pos`` = ``pos``) and the offset just past the word.
    """
    i = pos
    n = len(sql)
    while i < n and _is_ident_char(sql[i]):
        i += 1
    word = sql[pos:i]
    upper = word.upper()
    if upper in KEYWORDS:
        return Token(TokenType.KEYWORD, upper, pos), i
    return Token(TokenType.IDENT, word.lower(), pos), i


def scan_quoted_identifier(sql: str, pos: int) -> tuple[Token, int]:
    """Scan a double-quoted identifier starting at ``sql[pos]`` (a ``"``).

    The contents are kept verbatim (case preserved, keywords allowed:
    ``"Order"`` is the identifier ``Order``); two consecutive double quotes
    stand for one double quote.

    Returns:
        A `TokenType.IDENT` token (never a keyword) with ``pos`` = ``pos``, and
        the offset just past the closing quote.

    Raises:
        SQLSyntaxError: "unterminated quoted identifier" at the opening quote if
            there is no closing quote; "empty quoted identifier" at the opening
            quote for ``""``.
    """
    i = pos + 1
    n = len(sql)
    parts: list[str] = []
    while True:
        j = sql.find('"', i)
        if j < 0:
            raise SQLSyntaxError("unterminated quoted identifier", pos)
        parts.append(sql[i:j])
        if j + 1 < n and sql[j + 1] == '"':
            parts.append('"')
            i = j + 2
            continue
        name = "".join(parts)
        if not name:
            raise SQLSyntaxError("empty quoted identifier", pos)
        return Token(TokenType.IDENT, name, pos), j + 1


def scan_operator(sql: str, pos: int) -> tuple[Token, int]:
    """Scan an operator or punctuation token starting at ``sql[pos]``.

    Two-character operators (``<=``, ``>=``, ``<>``, ``!=``, ``||``) win over
    their one-character prefixes. ``!=`` is normalised to ``<>``. The
    one-character tokens are ``= < > + - * / % ( ) , . ;``.

    Returns:
        A `TokenType.OP` token whose value is the operator text, and the offset
        just past it.

    Raises:
        SQLSyntaxError: "unexpected character 'X'" at ``pos`` for any other
            character (including a lone ``!`` or ``|``).
    """
    two = sql[pos : pos + 2]
    if two in OPERATORS_2:
        return Token(TokenType.OP, "<>" if two == "!=" else two, pos), pos + 2
    ch = sql[pos]
    if ch in OPERATORS_1:
        return Token(TokenType.OP, ch, pos), pos + 1
    raise SQLSyntaxError(f"unexpected character {ch!r}", pos)


def tokenize(sql: str) -> list[Token]:
    """Split SQL text into tokens.

    Whitespace is skipped, as are comments: ``--`` up to the end of the line and
    ``/* ... */`` blocks (not nested). Dispatch on the next character:

    - a digit, or '.' followed by a digit: `scan_number`;
    - ``'``: `scan_string`; ``"``: `scan_quoted_identifier`;
    - a letter or '_': `scan_word`;
    - ``?``: a `TokenType.PARAM` token whose value is the number of '?'
      placeholders seen before it (0, 1, 2, ...);
    - anything else: `scan_operator`.

    The result always ends with a `TokenType.EOF` token (value None) whose
    ``pos`` is ``len(sql)``.

    Raises:
        SQLSyntaxError: from the scanners, or "unterminated comment" at the
            position of the ``/*`` of a block comment that is never closed.
    """
    tokens: list[Token] = []
    i = 0
    n = len(sql)
    params = 0
    while i < n:
        ch = sql[i]
        if ch.isspace():
            i += 1
            continue
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            if j < 0:
                raise SQLSyntaxError("unterminated comment", i)
            i = j + 2
            continue
        if ch.isdigit() or (ch == "." and i + 1 < n and sql[i + 1].isdigit()):
            tok, i = scan_number(sql, i)
        elif ch == "'":
            tok, i = scan_string(sql, i)
        elif ch == '"':
            tok, i = scan_quoted_identifier(sql, i)
        elif _is_ident_start(ch):
            tok, i = scan_word(sql, i)
        elif ch == "?":
            tok = Token(TokenType.PARAM, params, i)
            params += 1
            i += 1
        else:
            tok, i = scan_operator(sql, i)
        tokens.append(tok)
    tokens.append(Token(TokenType.EOF, None, n))
    return tokens
