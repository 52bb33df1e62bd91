"""The formula lexer: turns formula text into a list of :class:`Token`.

Token kinds (the ``kind`` attribute, a string):

========  ==================================================  ==============
kind      matches                                             ``value``
========  ==================================================  ==============
NUMBER    ``12``, ``3.5``, ``.5``, ``1.``, ``1e3``, ``2E-4``   ``float``
STRING    ``"text"`` (``""`` inside is an escaped quote)      ``str`` (unquoted)
BOOL      ``TRUE`` / ``FALSE`` (any case, not before ``(``)    ``bool``
ERROR     an error literal such as ``#DIV/0!`` or ``#N/A``    canonical code
REF       a cell reference such as ``A1``, ``$B$2``, ``c10``   upper-cased text
NAME      a function or other name: ``SUM``, ``foo``, ``_x.y``  upper-cased text
OP        ``+ - * / ^ & % = <> < > <= >=``                    the operator
LPAREN    ``(``                                               ``"("``
RPAREN    ``)``                                               ``")"``
COMMA     ``,``                                               ``","``
COLON     ``:``                                               ``":"``
EOF       end of the text (always the last token)             ``None``
========  ==================================================  ==============

Whitespace between tokens is skipped.  ``pos`` is the 0-based index of the
token's first character in the text.  A leading ``=`` is an ordinary ``OP``
token for the lexer; :func:`sheetcalc.parser.parse` strips it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import LexError
from .values import ERROR_CODES

NUMBER = "NUMBER"
STRING = "STRING"
BOOL = "BOOL"
ERROR = "ERROR"
REF = "REF"
NAME = "NAME"
OP = "OP"
LPAREN = "LPAREN"
RPAREN = "RPAREN"
COMMA = "COMMA"
COLON = "COLON"
EOF = "EOF"

_NUMBER_RE = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_REF_RE = re.compile(r"\$?[A-Za-z]{1,3}\$?\d+")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_NAME_CONT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.(")
_ERRORS_LONGEST_FIRST = tuple(sorted(ERROR_CODES, key=len, reverse=True))


@dataclass(frozen=True)
class Token:
    """One token: its ``kind`` (see the module docs), ``value`` and ``pos``."""

    kind: str
    value: object
    pos: int


class Lexer:
    """Scans formula text from ``start`` (default 0) into tokens.

    ``pos`` is the index of the next character to read; each ``read_*``
    method expects ``pos`` to be at the first character of its token, returns
    the token, and leaves ``pos`` just after it.
    """

    def __init__(self, text: str, start: int = 0):
        self.text = text
        self.pos = start

    def tokenize(self) -> list[Token]:
        """Scan the whole text and return its tokens, ending with an ``EOF`` token.

        Whitespace is skipped.  The character at ``pos`` selects the reader:
        a digit, or ``.`` followed by a digit -> :meth:`read_number`; ``"``
        -> :meth:`read_string`; ``#`` -> :meth:`read_error`; a letter, ``_``
        or ``$`` -> :meth:`read_word`; anything else -> :meth:`read_operator`.
        The ``EOF`` token's ``pos`` is ``len(text)``.

        Raises :class:`LexError` (from the readers) on invalid input.
        """
        tokens: list[Token] = []
        text = self.text
        while True:
            while self.pos < len(text) and text[self.pos].isspace():
                self.pos += 1
            if self.pos >= len(text):
                tokens.append(Token(EOF, None, len(text)))
                return tokens
            ch = text[self.pos]
            nxt = text[self.pos + 1] if self.pos + 1 < len(text) else ""
            if ch.isdigit() or (ch == "." and nxt.isdigit()):
                tokens.append(self.read_number())
            elif ch == '"':
                tokens.append(self.read_string())
            elif ch == "#":
                tokens.append(self.read_error())
            elif (ch.isascii() and ch.isalpha()) or ch in "_$":
                tokens.append(self.read_word())
            else:
                tokens.append(self.read_operator())

    def read_number(self) -> Token:
        """Read a NUMBER token: digits with optional fraction and exponent.

        Accepted forms: ``12``, ``3.5``, ``1.`` (trailing dot), ``.5``,
        ``1e3``, ``2.5E-4``, ``1e+2``.  The value is a ``float``.  An ``e``
        not followed by digits is not part of the number (``"2e"`` reads
        ``2`` and leaves ``e``).  Signs are never part of a number: ``-1`` is
        an operator and a number.

        Raises :class:`LexError` if there is no number at ``pos``.
        """
        m = _NUMBER_RE.match(self.text, self.pos)
        if m is None:
            raise LexError("expected a number", self.pos)
        start = self.pos
        self.pos = m.end()
        return Token(NUMBER, float(m.group()), start)

    def read_string(self) -> Token:
        '''Read a STRING token delimited by double quotes.

        Inside the string, ``""`` stands for one ``"``: the text
        ``"say ""hi"""`` gives the value ``say "hi"``.  The value excludes the
        delimiting quotes; ``""`` gives the empty string.

        Raises :class:`LexError` (with the position of the opening quote) if
        the string is not terminated.
        '''
        start = self.pos
        text = self.text
        i = start + 1
        out = []
        while i < len(text):
            ch = text[i]
            if ch == '"':
                if i + 1 < len(text) and text[i + 1] == '"':
                    out.append('"')
                    i += 2
                    continue
                self.pos = i + 1
                return Token(STRING, "".join(out), start)
            out.append(ch)
            i += 1
        raise LexError("unterminated string", start)

    def read_error(self) -> Token:
        """Read an ERROR token: one of :data:`sheetcalc.values.ERROR_CODES`.

        Matching is case-insensitive (``#n/a`` is ``#N/A``) and the value is
        the canonical upper-case code.  When several codes match, the longest
        wins.

        Raises :class:`LexError` if no known error literal starts at ``pos``.
        """
        for code in _ERRORS_LONGEST_FIRST:
            if self.text[self.pos : self.pos + len(code)].upper() == code:
                start = self.pos
                self.pos += len(code)
                return Token(ERROR, code, start)
        raise LexError("unknown error literal", self.pos)

    def read_word(self) -> Token:
        """Read a REF, BOOL or NAME token starting with a letter, ``_`` or ``$``.

        * REF: optional ``$``, 1-3 letters, optional ``$``, digits
          (``A1``, ``$b$2``, ``XFD10``), provided the next character is not a
          letter, digit, ``_``, ``.`` or ``(`` (so ``LOG10(`` and ``A1B`` are
          names).  The value is the upper-cased text, ``$`` included.
        * otherwise a name: a letter or ``_`` followed by letters, digits,
          ``_`` and ``.``.  ``TRUE`` / ``FALSE`` (any case) give a BOOL token
          unless the next non-space character is ``(``; every other name is a
          NAME token whose value is upper-cased.

        Raises :class:`LexError` when a ``$`` does not start a valid reference.
        """
        start = self.pos
        text = self.text
        m = _REF_RE.match(text, start)
        if m is not None and (m.end() >= len(text) or text[m.end()] not in _NAME_CONT):
            self.pos = m.end()
            return Token(REF, m.group().upper(), start)
        m = _NAME_RE.match(text, start)
        if m is None:
            raise LexError("invalid reference", start)
        self.pos = m.end()
        word = m.group().upper()
        if word in ("TRUE", "FALSE"):
            j = self.pos
            while j < len(text) and text[j].isspace():
                j += 1
            if j >= len(text) or text[j] != "(":
                return Token(BOOL, word == "TRUE", start)
        return Token(NAME, word, start)

    def read_operator(self) -> Token:
        """Read an OP, LPAREN, RPAREN, COMMA or COLON token.

        Two-character operators ``<=``, ``>=`` and ``<>`` are preferred over
        their one-character prefixes.  Single-character operators are
        ``+ - * / ^ & % = < >``.

        Raises :class:`LexError` (with the position) for any other character.
        """
        start = self.pos
        two = self.text[start : start + 2]
        if two in ("<=", ">=", "<>"):
            self.pos += 2
            return Token(OP, two, start)
        ch = self.text[start : start + 1]
        self.pos += 1
        if ch in ("+", "-", "*", "/", "^", "&", "%", "=", "<", ">"):
            return Token(OP, ch, start)
        if ch == "(":
            return Token(LPAREN, ch, start)
        if ch == ")":
            return Token(RPAREN, ch, start)
        if ch == ",":
            return Token(COMMA, ch, start)
        if ch == ":":
            return Token(COLON, ch, start)
        self.pos = start
        raise LexError(f"unexpected character {ch!r}", start)


def tokenize(text: str, start: int = 0) -> list[Token]:
    """Tokenize ``text`` (from index ``start``); see :meth:`Lexer.tokenize`."""
    return Lexer(text, start).tokenize()
