"""The reader: from tokens to Lisp data.

``read_all(source)`` returns the list of data (Lisp values) written in the
source; the evaluator then treats those data as code.  Reader syntax:

* ``(a b c)`` a list, ``(a b . c)`` an improper list, ``()`` the empty list;
* ``'x`` is ``(quote x)``, ```x`` is ``(quasiquote x)``, ``,x`` is
  ``(unquote x)`` and ``,@x`` is ``(unquote-splicing x)``;
* ``#;`` skips the datum that follows it (anywhere a datum may appear);
* atoms: numbers, booleans and symbols (see :func:`parse_atom`), strings (see
  :func:`decode_string`).
"""

from __future__ import annotations

import re

from lispy.datatypes import NIL, Pair, Symbol
from lispy.errors import ParseError
from lispy.tokenizer import Token, tokenize

QUOTE = Symbol("quote")
QUASIQUOTE = Symbol("quasiquote")
UNQUOTE = Symbol("unquote")
UNQUOTE_SPLICING = Symbol("unquote-splicing")

#: The symbol a quote-like token abbreviates.
QUOTE_TOKENS = {"'": QUOTE, "`": QUASIQUOTE, ",": UNQUOTE, ",@": UNQUOTE_SPLICING}

_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "a": "\a", "0": "\0"}

_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_SPECIAL_FLOATS = {"+inf.0": float("inf"), "-inf.0": float("-inf"), "+nan.0": float("nan")}
_RADIX_PREFIX = {"x": 16, "b": 2, "o": 8, "d": 10}
_DIGITS = "0123456789abcdef"


def decode_string(raw: str, line: int = 1, col: int = 1) -> str:
    """Decode the string literal `raw` (including its double quotes).

    Escapes: ``\\n`` newline, ``\\t`` tab, ``\\r`` carriage return, ``\\a`` bell,
    ``\\0`` NUL, ``\\\\`` backslash, ``\\"`` double quote, and ``\\x<hex>;``, the
    character with that (1 or more hex digits) code point, terminated by a
    semicolon (``"\\x41;"`` is ``"A"``).  A backslash followed by a newline is a
    line continuation: the backslash, the newline and any spaces or tabs at the
    start of the next line are all dropped.  All other characters, including raw
    newlines, stand for themselves.

    Raises :class:`~lispy.errors.ParseError` at position (`line`, `col`) (the
    position of the literal) with message ``"unknown escape \\<c>"`` for any other
    escape character ``<c>``, ``"bad hex escape"`` for a malformed ``\\x``
    escape (no digits, a non-hex digit, missing ``;`` or a code point above
    0x10FFFF), and ``"unterminated string"`` if `raw` does not both start and end
    with an unescaped double quote.
    """
    if len(raw) < 2 or raw[0] != '"' or raw[-1] != '"':
        raise ParseError("unterminated string", line, col)
    body = raw[1:-1]
    out = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        if i + 1 >= n:
            # the closing quote was escaped
            raise ParseError("unterminated string", line, col)
        e = body[i + 1]
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
            i += 2
        elif e == "x":
            end = body.find(";", i + 2)
            digits = body[i + 2 : end] if end != -1 else ""
            if end == -1 or not digits or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise ParseError("bad hex escape", line, col)
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise ParseError("bad hex escape", line, col)
            out.append(chr(code))
            i = end + 1
        elif e == "\n":
            i += 2
            while i < n and body[i] in " \t":
                i += 1
        else:
            raise ParseError(f"unknown escape \\{e}", line, col)
    return "".join(out)


def parse_number(text: str, radix: int = 10) -> int | float | None:
    """Parse `text` as a number literal, or return None if it is not one.

    * In radix 10: integers (``42``, ``-7``, ``+3``) become ``int``; decimals and
      exponents (``1.5``, ``-.5``, ``2.``, ``1e3``, ``1.5E-2``) become ``float``;
      ``+inf.0``, ``-inf.0`` and ``+nan.0`` are the special floats.
    * A radix prefix overrides `radix`: ``#x`` 16, ``#b`` 2, ``#o`` 8, ``#d``
      10 (prefix letters are case-insensitive), e.g. ``#xff`` is 255 and
      ``#b-101`` is -5.
    * With radix 2, 8 or 16 (from `radix` or a prefix) only integers are allowed:
      an optional sign then at least one digit valid in that radix (hex digits
      are case-insensitive).
    * Anything else (``""``, ``"+"``, ``"-"``, ``"."``, ``"1/2"``, ``"abc"``,
      ``"1e"``, ``"#t"``, surrounding whitespace) gives None.

    Raises ValueError if `radix` is not one of 2, 8, 10, 16.
    """
    if radix not in (2, 8, 10, 16):
        raise ValueError(f"unsupported radix {radix}")
    if len(text) >= 2 and text[0] == "#" and text[1].lower() in _RADIX_PREFIX:
        radix = _RADIX_PREFIX[text[1].lower()]
        text = text[2:]
    if radix == 10:
        if text in _SPECIAL_FLOATS:
            return _SPECIAL_FLOATS[text]
        m = _DECIMAL.fullmatch(text)
        if not m:
            return None
        if "." in text or "e" in text or "E" in text:
            return float(text)
        return int(text)
    sign = 1
    if text[:1] in ("+", "-"):
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    if not text:
        return None
    value = 0
    for ch in text.lower():
        d = _DIGITS.find(ch)
        if d < 0 or d >= radix:
            return None
        value = value * radix + d
    return sign * value


def parse_atom(token: Token) -> object:
    """The Lisp value of an ``"atom"`` token.

    * ``#t`` / ``#true`` are True, ``#f`` / ``#false`` are False;
    * anything :func:`parse_number` accepts (in radix 10) is that number;
    * any other text starting with ``#`` raises
      :class:`~lispy.errors.ParseError` ``"bad syntax <text>"`` at the token;
    * ``.`` on its own raises ParseError ``"unexpected '.'"`` at the token (dots
      are only meaningful inside a list, which :meth:`Reader.read_list` handles);
    * everything else is the (case-sensitive) interned :class:`Symbol` of that
      text, e.g. ``foo``, ``+``, ``...``, ``1+``, ``->string``.
    """
    text = token.text
    if text in ("#t", "#true"):
        return True
    if text in ("#f", "#false"):
        return False
    number = parse_number(text)
    if number is not None:
        return number
    if text.startswith("#"):
        raise ParseError(f"bad syntax {text}", token.line, token.col)
    if text == ".":
        raise ParseError("unexpected '.'", token.line, token.col)
    return Symbol(text)


class Reader:
    """A cursor over a list of tokens that reads one datum at a time."""

    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.pos = 0

    def at_end(self) -> bool:
        """True when every token has been consumed (datum comments are skipped first)."""
        self._skip_datum_comments()
        return self.pos >= len(self.tokens)

    def peek(self) -> Token | None:
        """The next token without consuming it, or None at the end."""
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def next(self) -> Token | None:
        """Consume and return the next token, or None at the end."""
        tok = self.peek()
        if tok is not None:
            self.pos += 1
        return tok

    def _skip_datum_comments(self) -> None:
        """Consume any ``#;`` tokens together with the datum following each."""
        while (tok := self.peek()) is not None and tok.kind == "#;":
            self.pos += 1
            if self.peek() is None:
                raise ParseError("unexpected end of input after #;", tok.line, tok.col)
            self.read_form()

    def read_form(self) -> object:
        """Read and return the next datum, consuming its tokens.

        Datum comments (``#;`` plus the datum after it) before the datum are
        skipped.  ``(`` reads a list with :meth:`read_list`; a quote-like token
        (``'`` ````` ``,`` ``,@``) reads the next datum ``d`` and returns the
        two-element list ``(quote d)``, ``(quasiquote d)``, ``(unquote d)`` or
        ``(unquote-splicing d)``; a ``"string"`` token is decoded with
        :func:`decode_string` (passing the token position); an ``"atom"`` token
        goes through :func:`parse_atom`.

        Raises :class:`~lispy.errors.ParseError`, positioned at the offending
        token, with message ``"unexpected ')'"`` for a stray closing paren,
        ``"unexpected end of input after '"`` (with the quote token's text, e.g.
        ``after ,@``) when a quote-like token is the last token, and
        ``"unexpected end of input"`` (at line 1, column 1) if there are no
        tokens left at all.
        """
        self._skip_datum_comments()
        tok = self.next()
        if tok is None:
            raise ParseError("unexpected end of input", 1, 1)
        if tok.kind == "(":
            return self.read_list(tok)
        if tok.kind == ")":
            raise ParseError("unexpected ')'", tok.line, tok.col)
        if tok.kind in QUOTE_TOKENS:
            self._skip_datum_comments()
            if self.peek() is None:
                raise ParseError(f"unexpected end of input after {tok.text}", tok.line, tok.col)
            datum = self.read_form()
            return Pair(QUOTE_TOKENS[tok.kind], Pair(datum, NIL))
        if tok.kind == "string":
            return decode_string(tok.text, tok.line, tok.col)
        return parse_atom(tok)

    def read_list(self, open_token: Token) -> object:
        """Read the rest of a list whose ``(`` (`open_token`) was just consumed.

        Reads data until the matching ``)`` and returns them as a Lisp list
        (``NIL`` for ``()``).  A ``.`` atom inside the list makes it improper:
        ``(a b . c)`` is ``Pair(a, Pair(b, c))``; the dot must be preceded by at
        least one datum and followed by exactly one datum and then ``)``.
        Datum comments are allowed anywhere inside, including right before ``)``.

        Raises :class:`~lispy.errors.ParseError`: ``"unclosed '('"`` at the
        position of `open_token` if the input ends before the closing ``)``
        (also right after a dot); ``"bad dotted list"`` at the position of the
        ``.`` token if the dot is misplaced (no datum before it, ``)`` right
        after it, or more than one datum after it).
        """
        items: list[object] = []
        tail: object = NIL
        while True:
            self._skip_datum_comments()
            tok = self.peek()
            if tok is None:
                raise ParseError("unclosed '('", open_token.line, open_token.col)
            if tok.kind == ")":
                self.pos += 1
                break
            if tok.kind == "atom" and tok.text == ".":
                self.pos += 1
                if not items:
                    raise ParseError("bad dotted list", tok.line, tok.col)
                self._skip_datum_comments()
                nxt = self.peek()
                if nxt is None:
                    raise ParseError("unclosed '('", open_token.line, open_token.col)
                if nxt.kind == ")":
                    raise ParseError("bad dotted list", tok.line, tok.col)
                tail = self.read_form()
                self._skip_datum_comments()
                close = self.peek()
                if close is None:
                    raise ParseError("unclosed '('", open_token.line, open_token.col)
                if close.kind != ")":
                    raise ParseError("bad dotted list", tok.line, tok.col)
                self.pos += 1
                break
            items.append(self.read_form())
        result = tail
        for item in reversed(items):
            result = Pair(item, result)
        return result


def read_all(source: str) -> list[object]:
    """Read every datum in `source`, in order, and return them as a Python list.

    An empty source (or one with only whitespace and comments) gives ``[]``.
    Propagates the :class:`~lispy.errors.ParseError` of the tokenizer or reader.
    """
    reader = Reader(tokenize(source))
    forms = []
    while not reader.at_end():
        forms.append(reader.read_form())
    return forms


def read(source: str) -> object:
    """Read exactly one datum from `source`.

    Raises :class:`~lispy.errors.ParseError` ``"expected exactly one datum"`` at
    line 1, column 1 if `source` holds zero or several data.
    """
    forms = read_all(source)
    if len(forms) != 1:
        raise ParseError("expected exactly one datum", 1, 1)
    return forms[0]
