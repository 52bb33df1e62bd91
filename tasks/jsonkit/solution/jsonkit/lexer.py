"""Lexical analysis: turn JSON text into a list of :class:`Token` objects.

Every token records the half-open span ``[pos, end)`` of characters it was read
from, so that the parser can report errors at precise positions.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from jsonkit.errors import ParseError

WHITESPACE = " \t\n\r"
PUNCTUATION = {
    "{": "LBRACE",
    "}": "RBRACE",
    "[": "LBRACKET",
    "]": "RBRACKET",
    ":": "COLON",
    ",": "COMMA",
}
LITERALS = {"true": True, "false": False, "null": None}
SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
HEX_DIGITS = "0123456789abcdefABCDEF"


class TokenKind(enum.Enum):
    """The kinds of JSON tokens."""

    LBRACE = "{"
    RBRACE = "}"
    LBRACKET = "["
    RBRACKET = "]"
    COLON = ":"
    COMMA = ","
    STRING = "string"
    NUMBER = "number"
    TRUE = "true"
    FALSE = "false"
    NULL = "null"
    EOF = "end of input"


@dataclass(frozen=True)
class Token:
    """One token.

    ``value`` is the decoded Python value for ``STRING`` (a ``str``), ``NUMBER``
    (an ``int`` or ``float``), ``TRUE``/``FALSE``/``NULL`` (``True``/``False``/``None``);
    for punctuation it is the punctuation character itself and for ``EOF`` it is
    ``None``.  ``pos`` is the offset of the first character and ``end`` the offset
    just past the last one (``pos == end == len(text)`` for ``EOF``).
    """

    kind: TokenKind
    value: Any
    pos: int
    end: int


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def _hex4(text: str, i: int) -> int | None:
    """The value of the 4 hex digits at text[i:i+4], or None if they are not 4 hex digits."""
    chunk = text[i : i + 4]
    if len(chunk) != 4 or any(c not in HEX_DIGITS for c in chunk):
        return None
    return int(chunk, 16)


def scan_string(text: str, pos: int) -> tuple[str, int]:
    """Decode the JSON string literal whose opening quote is at ``text[pos]``.

    Returns ``(value, end)`` where ``value`` is the decoded ``str`` and ``end`` is
    the offset just past the closing quote.

    Escapes: ``\\" \\\\ \\/ \\b \\f \\n \\r \\t`` and ``\\uXXXX`` (exactly four hex
    digits, either case).  A high surrogate escape (``\\uD800``-``\\uDBFF``)
    immediately followed by a low surrogate escape (``\\uDC00``-``\\uDFFF``) decodes
    to the single combined code point (``"\\ud83d\\ude00"`` -> ``"\U0001F600"``).
    Any character other than ``"``, ``\\`` and U+0000-U+001F is taken literally
    (including non-ASCII characters).

    Raises :class:`ParseError` with these messages and positions:

    * ``"Expecting '\\"'"`` at ``pos`` if ``text[pos]`` is not a double quote
      (or ``pos`` is at the end of the text);
    * ``"Unterminated string"`` at ``pos`` (the opening quote) if the text ends
      before the closing quote, including right after a backslash;
    * ``"Invalid control character in string"`` at the offending character, for
      a raw (unescaped) character U+0000-U+001F, e.g. a newline;
    * ``"Invalid escape sequence"`` at the backslash, for an unknown escape such
      as ``\\x`` or ``\\'``;
    * ``"Invalid \\\\uXXXX escape"`` at the backslash, if ``\\u`` is not followed by
      four hex digits (for a surrogate pair whose second half is malformed, at
      the second backslash);
    * ``"Lone surrogate in \\\\u escape"`` at the backslash of a high surrogate not
      followed by a low surrogate escape, or of a low surrogate that does not
      follow a high one.
    """
    if pos >= len(text) or text[pos] != '"':
        raise ParseError("Expecting '\"'", text, pos)
    chunks: list[str] = []
    i = pos + 1
    n = len(text)
    while True:
        if i >= n:
            raise ParseError("Unterminated string", text, pos)
        ch = text[i]
        if ch == '"':
            return "".join(chunks), i + 1
        if ch < " ":
            raise ParseError("Invalid control character in string", text, i)
        if ch != "\\":
            # Copy a run of ordinary characters at once.
            j = i + 1
            while j < n and text[j] not in '"\\' and text[j] >= " ":
                j += 1
            chunks.append(text[i:j])
            i = j
            continue
        if i + 1 >= n:
            raise ParseError("Unterminated string", text, pos)
        esc = text[i + 1]
        if esc in SIMPLE_ESCAPES:
            chunks.append(SIMPLE_ESCAPES[esc])
            i += 2
            continue
        if esc != "u":
            raise ParseError("Invalid escape sequence", text, i)
        code = _hex4(text, i + 2)
        if code is None:
            raise ParseError("Invalid \\uXXXX escape", text, i)
        if 0xDC00 <= code <= 0xDFFF:
            raise ParseError("Lone surrogate in \\u escape", text, i)
        if 0xD800 <= code <= 0xDBFF:
            if text[i + 6 : i + 8] != "\\u":
                raise ParseError("Lone surrogate in \\u escape", text, i)
            low = _hex4(text, i + 8)
            if low is None:
                raise ParseError("Invalid \\uXXXX escape", text, i + 6)
            if not 0xDC00 <= low <= 0xDFFF:
                raise ParseError("Lone surrogate in \\u escape", text, i)
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            chunks.append(chr(code))
            i += 12
            continue
        chunks.append(chr(code))
        i += 6


def scan_number(text: str, pos: int) -> tuple[int | float, int]:
    """Read the JSON number starting at ``text[pos]``.

    Grammar: ``-? (0 | [1-9][0-9]*) ( . [0-9]+ )? ( [eE] [+-]? [0-9]+ )?`` with
    ASCII digits only.  The longest prefix matching the grammar is read; the
    caller deals with whatever follows (``"1.5.2"`` reads ``1.5``).

    Returns ``(value, end)``: an ``int`` when there is neither a fraction nor an
    exponent (``"-12"`` -> ``-12``, ``"-0"`` -> ``0``), otherwise a ``float``
    (``"1.0"`` -> ``1.0``, ``"1e2"`` -> ``100.0``); ``end`` is the offset just past
    the number.

    Raises :class:`ParseError`, always positioned at ``pos`` (the number's first
    character):

    * ``"Leading zeros are not allowed"`` when the integer part is a ``0``
      followed by another digit (``"01"``, ``"-00"``);
    * ``"Invalid number"`` when there is no digit where the grammar requires one
      (``"-"``, ``"-a"``, ``"1."``, ``"1.e5"``, ``"2e"``, ``"2e+"``, ``".5"``);
    * ``"Number out of range"`` when a float is too large to represent
      (``"1e400"``; underflow such as ``"1e-400"`` simply gives ``0.0``).
    """
    n = len(text)
    i = pos
    if i < n and text[i] == "-":
        i += 1
    if i >= n or not _is_digit(text[i]):
        raise ParseError("Invalid number", text, pos)
    if text[i] == "0":
        i += 1
        if i < n and _is_digit(text[i]):
            raise ParseError("Leading zeros are not allowed", text, pos)
    else:
        while i < n and _is_digit(text[i]):
            i += 1
    is_float = False
    if i < n and text[i] == ".":
        i += 1
        if i >= n or not _is_digit(text[i]):
            raise ParseError("Invalid number", text, pos)
        while i < n and _is_digit(text[i]):
            i += 1
        is_float = True
    if i < n and text[i] in "eE":
        i += 1
        if i < n and text[i] in "+-":
            i += 1
        if i >= n or not _is_digit(text[i]):
            raise ParseError("Invalid number", text, pos)
        while i < n and _is_digit(text[i]):
            i += 1
        is_float = True
    literal = text[pos:i]
    if not is_float:
        return int(literal), i
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise ParseError("Number out of range", text, pos)
    return value, i


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens, always ending with one ``EOF`` token.

    Whitespace (space, tab, ``\\n``, ``\\r`` only) between tokens is skipped.
    Strings are decoded with :func:`scan_string` and numbers (starting with ``-``
    or a digit) with :func:`scan_number`.  A run of ASCII letters must be exactly
    ``true``, ``false`` or ``null``.  The lexer does not check the grammar:
    ``"] 1 ,"`` tokenizes fine.

    Example: ``tokenize('[1, "a"]')`` gives kinds ``LBRACKET NUMBER COMMA STRING
    RBRACKET EOF`` with positions 0, 1, 2, 4, 7 and 8.

    Raises :class:`ParseError`: any error of :func:`scan_string` or
    :func:`scan_number`; ``"Invalid literal"`` at the start of a letter run that
    is not one of the three literals (``"True"``, ``"nul"``, ``"truex"``);
    ``"Unexpected character <repr>"`` (e.g. ``"Unexpected character '@'"``) at any
    other character that cannot start a token.
    """
    tokens: list[Token] = []
    i = 0
    n = len(text)
    while True:
        while i < n and text[i] in WHITESPACE:
            i += 1
        if i >= n:
            tokens.append(Token(TokenKind.EOF, None, n, n))
            return tokens
        ch = text[i]
        if ch in PUNCTUATION:
            tokens.append(Token(TokenKind[PUNCTUATION[ch]], ch, i, i + 1))
            i += 1
        elif ch == '"':
            value, end = scan_string(text, i)
            tokens.append(Token(TokenKind.STRING, value, i, end))
            i = end
        elif ch == "-" or _is_digit(ch):
            value, end = scan_number(text, i)
            tokens.append(Token(TokenKind.NUMBER, value, i, end))
            i = end
        elif ch.isascii() and ch.isalpha():
            j = i
            while j < n and text[j].isascii() and text[j].isalpha():
                j += 1
            word = text[i:j]
            if word not in LITERALS:
                raise ParseError("Invalid literal", text, i)
            tokens.append(Token(TokenKind[word.upper()], LITERALS[word], i, j))
            i = j
        else:
            raise ParseError(f"Unexpected character {ch!r}", text, i)
