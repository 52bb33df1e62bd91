"""Token definitions shared by the lexer and the parser."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class TokenType(Enum):
    """The kinds of token produced by `minidb.lexer.tokenize`."""

    KEYWORD = "keyword"  # value: the keyword in upper case, e.g. "SELECT"
    IDENT = "ident"  # value: the identifier (lower-cased unless it was quoted)
    INTEGER = "integer"  # value: an int
    FLOAT = "float"  # value: a float
    STRING = "string"  # value: the string contents with quotes removed
    OP = "op"  # value: the operator or punctuation text, e.g. "<=", "(", ","
    PARAM = "param"  # value: the 0-based index of this '?' placeholder
    EOF = "eof"  # value: None; always the last token


@dataclass(frozen=True)
class Token:
    """One token of SQL text.

    Attributes:
        type: the kind of token.
        value: the decoded value (see `TokenType` for what each kind holds).
        pos: 0-based offset of the token's first character in the SQL text.
    """

    type: TokenType
    value: Any
    pos: int


#: Reserved words. They are recognised case-insensitively; to use one as a
#: table or column name, quote it ("order"). Type names (INTEGER, TEXT, ...)
#: and function names (COUNT, UPPER, ...) are *not* keywords.
KEYWORDS = frozenset(
    """
    ALL AND AS ASC BEGIN BETWEEN BY CASE COMMIT CREATE CROSS DEFAULT DELETE DESC
    DISTINCT DROP ELSE END EXISTS FALSE FIRST FROM GROUP HAVING IF IN INDEX INNER
    INSERT INTO IS JOIN KEY LAST LEFT LIKE LIMIT NOT NULL NULLS OFFSET ON OR ORDER
    OUTER PRIMARY ROLLBACK SELECT SET TABLE THEN TRANSACTION TRUE UNIQUE UPDATE
    VALUES WHEN WHERE
    """.split()
)

#: Operators and punctuation, two-character ones first.
OPERATORS_2 = ("<=", ">=", "<>", "!=", "||")
OPERATORS_1 = ("=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", ".", ";")
