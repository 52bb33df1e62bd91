"""A recursive-descent parser over the token list produced by :mod:`jsonkit.lexer`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jsonkit.errors import ParseError
from jsonkit.lexer import Token, TokenKind, tokenize

DEFAULT_MAX_DEPTH = 256

SCALAR_KINDS = (
    TokenKind.STRING,
    TokenKind.NUMBER,
    TokenKind.TRUE,
    TokenKind.FALSE,
    TokenKind.NULL,
)


class Parser:
    """Parse one JSON document.

    The constructor tokenizes ``text`` immediately (so lexical errors are raised
    by ``Parser(text)`` itself) and positions the parser on the first token.

    Args:
        text: the JSON document.
        object_hook: if given, called with every decoded object (a ``dict``) and
            its return value used instead of the dict; inner objects are passed
            to the hook before the objects that contain them.
        max_depth: the maximum nesting depth of arrays and objects; ``[]`` has
            depth 1 and ``[[]]`` depth 2.  Must be at least 1.

    Attributes:
        text: the document; tokens: the token list; index: the position of the
        current token in ``tokens``; depth: the current nesting depth (0 outside
        any container).
    """

    def __init__(
        self,
        text: str,
        *,
        object_hook: Callable[[dict[str, Any]], Any] | None = None,
        max_depth: int = DEFAULT_MAX_DEPTH,
    ):
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self.text = text
        self.tokens: list[Token] = tokenize(text)
        self.index = 0
        self.depth = 0
        self.object_hook = object_hook
        self.max_depth = max_depth

    # -- small helpers (not units) -------------------------------------------------
    @property
    def current(self) -> Token:
        """The token the parser is positioned on."""
        return self.tokens[self.index]

    def advance(self) -> Token:
        """Return the current token and move to the next one (never past ``EOF``)."""
        tok = self.tokens[self.index]
        if tok.kind is not TokenKind.EOF:
            self.index += 1
        return tok

    def error(self, msg: str, pos: int | None = None) -> ParseError:
        """A :class:`ParseError` at ``pos`` (default: the current token's position)."""
        return ParseError(msg, self.text, self.current.pos if pos is None else pos)

    def _enter(self, tok: Token) -> None:
        """Enter a container opened by ``tok``: raise ``"Maximum nesting depth exceeded"``
        at ``tok.pos`` if :attr:`depth` is already ``max_depth``, else increment it."""
        if self.depth >= self.max_depth:
            raise self.error("Maximum nesting depth exceeded", tok.pos)
        self.depth += 1

    # -- grammar -------------------------------------------------------------------
    def parse(self) -> Any:
        """Parse the whole document: exactly one value followed by the end of input.

        Returns the decoded value (``dict``, ``list``, ``str``, ``int``, ``float``,
        ``True``, ``False`` or ``None``).

        Raises :class:`ParseError`: ``"Expecting value"`` at offset 0 for an empty
        (or whitespace-only) document (the position of the ``EOF`` token, i.e. the
        length of the text, for whitespace-only input); ``"Extra data"`` at the
        first token after a complete value (``"[1] 2"`` -> char 4); or any error
        raised while parsing the value.
        """
        value = self.parse_value()
        if self.current.kind is not TokenKind.EOF:
            raise self.error("Extra data")
        return value

    def parse_value(self) -> Any:
        """Parse the value starting at the current token and return it.

        Scalars (string, number, ``true``, ``false``, ``null``) are returned as the
        token's value and consume one token; ``[`` is delegated to
        :meth:`parse_array` and ``{`` to :meth:`parse_object`.

        Raises :class:`ParseError` ``"Expecting value"`` at the current token's
        position if it cannot start a value (e.g. ``]``, ``,``, ``:`` or ``EOF``).
        """
        tok = self.current
        if tok.kind in SCALAR_KINDS:
            self.advance()
            return tok.value
        if tok.kind is TokenKind.LBRACKET:
            return self.parse_array()
        if tok.kind is TokenKind.LBRACE:
            return self.parse_object()
        raise self.error("Expecting value")

    def parse_array(self) -> list[Any]:
        """Parse an array; the current token must be ``[``.  Returns a ``list``.

        Elements are parsed with :meth:`parse_value` and separated by commas.
        On entry :attr:`depth` is incremented (via ``_enter``, which checks
        ``max_depth``); it is restored when the array has been read.

        Raises :class:`ParseError`:

        * ``"Expecting '['"`` at the current token if it is not ``[``;
        * ``"Maximum nesting depth exceeded"`` at the ``[`` if entering the array
          would make :attr:`depth` exceed ``max_depth``;
        * ``"Expecting value"`` where an element is missing (``"[,1]"``, ``"[1,,2]"``,
          or ``"["`` at the end of input);
        * ``"Trailing comma not allowed"`` at the comma in ``"[1,]"``;
        * ``"Expecting ',' delimiter"`` at the token following an element when it
          is neither ``,`` nor ``]`` (``"[1 2]"`` -> at ``2``; ``"[1"`` -> at the end).
        """
        start = self.current
        if start.kind is not TokenKind.LBRACKET:
            raise self.error("Expecting '['")
        self._enter(start)
        self.advance()
        items: list[Any] = []
        if self.current.kind is TokenKind.RBRACKET:
            self.advance()
            self.depth -= 1
            return items
        while True:
            items.append(self.parse_value())
            tok = self.current
            if tok.kind is TokenKind.COMMA:
                self.advance()
                if self.current.kind is TokenKind.RBRACKET:
                    raise self.error("Trailing comma not allowed", tok.pos)
                continue
            if tok.kind is TokenKind.RBRACKET:
                self.advance()
                self.depth -= 1
                return items
            raise self.error("Expecting ',' delimiter")

    def parse_object(self) -> Any:
        """Parse an object; the current token must be ``{``.

        Members are ``"key": value`` pairs separated by commas; values are parsed
        with :meth:`parse_value`.  When a key is repeated the last value wins
        (keeping the position of the first occurrence in the dict).  Returns the
        ``dict``, or ``object_hook(dict)`` when the parser has an ``object_hook``.
        :attr:`depth` is handled as in :meth:`parse_array`.

        Raises :class:`ParseError`:

        * ``"Expecting '{'"`` at the current token if it is not ``{``;
        * ``"Maximum nesting depth exceeded"`` at the ``{`` (as for arrays);
        * ``"Expecting property name enclosed in double quotes"`` at a token where
          a key is required that is not a string (``"{1: 2}"``, ``"{"``);
        * ``"Expecting ':' delimiter"`` at the token after a key if it is not ``:``;
        * ``"Expecting value"`` if the value after ``:`` is missing;
        * ``"Trailing comma not allowed"`` at the comma in ``'{"a": 1,}'``;
        * ``"Expecting ',' delimiter"`` at the token after a value when it is
          neither ``,`` nor ``}``.
        """
        start = self.current
        if start.kind is not TokenKind.LBRACE:
            raise self.error("Expecting '{'")
        self._enter(start)
        self.advance()
        result: dict[str, Any] = {}
        if self.current.kind is TokenKind.RBRACE:
            self.advance()
        else:
            while True:
                key_tok = self.current
                if key_tok.kind is not TokenKind.STRING:
                    raise self.error("Expecting property name enclosed in double quotes")
                self.advance()
                if self.current.kind is not TokenKind.COLON:
                    raise self.error("Expecting ':' delimiter")
                self.advance()
                result[key_tok.value] = self.parse_value()
                tok = self.current
                if tok.kind is TokenKind.COMMA:
                    self.advance()
                    if self.current.kind is TokenKind.RBRACE:
                        raise self.error("Trailing comma not allowed", tok.pos)
                    continue
                if tok.kind is TokenKind.RBRACE:
                    self.advance()
                    break
                raise self.error("Expecting ',' delimiter")
        self.depth -= 1
        if self.object_hook is not None:
            return self.object_hook(result)
        return result
