"""The formula parser: tokens -> syntax tree (:mod:`sheetcalc.nodes`).

Grammar, from loosest to tightest binding (all binary operators are
left-associative, as in common spreadsheet programs)::

    comparison     := concat (("=" | "<>" | "<" | ">" | "<=" | ">=") concat)*
    concat         := additive ("&" additive)*
    additive       := multiplicative (("+" | "-") multiplicative)*
    multiplicative := power (("*" | "/") power)*
    power          := percent ("^" percent)*
    percent        := unary "%"*
    unary          := ("+" | "-") unary | primary
    primary        := NUMBER | STRING | BOOL | ERROR
                    | REF (":" REF)?
                    | NAME arguments        -- a function call
                    | NAME                  -- a bare name
                    | "(" comparison ")"
    arguments      := "(" (comparison ("," comparison)*)? ")"

Note the spreadsheet quirks: unary minus binds tighter than ``^``
(``-2^2`` is ``4``), ``^`` is left-associative (``2^3^2`` is ``64``), and
``%`` binds tighter than ``^`` but looser than unary minus.
"""

from __future__ import annotations

from . import lexer as lx
from .address import RangeRef, parse_cell
from .errors import AddressError, ParseError
from .lexer import Lexer, Token
from .nodes import (
    Binary,
    Boolean,
    Call,
    ErrorLiteral,
    Name,
    Node,
    Number,
    Percent,
    Range,
    Ref,
    Text,
    Unary,
)

COMPARISON_OPS = ("=", "<>", "<", ">", "<=", ">=")


class Parser:
    """Recursive-descent parser over a token list that ends with ``EOF``.

    ``i`` is the index of the current token.  Each ``parse_*`` method parses
    one grammar rule starting at the current token, returns its node and
    leaves ``i`` on the first token after it.
    """

    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.i = 0

    # -- small helpers -------------------------------------------------------

    def peek(self) -> Token:
        """The current token (without consuming it)."""
        return self.tokens[self.i]

    def advance(self) -> Token:
        """Consume and return the current token (never moves past ``EOF``)."""
        tok = self.tokens[self.i]
        if tok.kind != lx.EOF:
            self.i += 1
        return tok

    def at_op(self, *ops: str) -> bool:
        """True if the current token is an ``OP`` whose value is one of ``ops``."""
        tok = self.tokens[self.i]
        return tok.kind == lx.OP and tok.value in ops

    def error(self, message: str | None = None) -> ParseError:
        """A :class:`ParseError` about the current token."""
        tok = self.tokens[self.i]
        if message is None:
            if tok.kind == lx.EOF:
                message = "unexpected end of formula"
            else:
                message = f"unexpected {tok.value!r}"
        return ParseError(message, tok.pos)

    # -- grammar rules -------------------------------------------------------

    def parse_comparison(self) -> Node:
        """Parse ``concat (cmp concat)*`` with ``cmp`` one of ``= <> < > <= >=``.

        Left-associative: ``1<2=TRUE`` is ``Binary("=", Binary("<", 1, 2),
        TRUE)``.  This is also the rule used for a whole expression, for
        parenthesized expressions and for function arguments.
        """
        left = self.parse_concat()
        while self.at_op(*COMPARISON_OPS):
            op = self.advance().value
            left = Binary(op, left, self.parse_concat())
        return left

    def parse_concat(self) -> Node:
        """Parse ``additive ("&" additive)*`` (left-associative)."""
        left = self.parse_additive()
        while self.at_op("&"):
            self.advance()
            left = Binary("&", left, self.parse_additive())
        return left

    def parse_additive(self) -> Node:
        """Parse ``multiplicative (("+" | "-") multiplicative)*`` (left-associative).

        ``1-2-3`` is ``Binary("-", Binary("-", 1, 2), 3)``.
        """
        left = self.parse_multiplicative()
        while self.at_op("+", "-"):
            op = self.advance().value
            left = Binary(op, left, self.parse_multiplicative())
        return left

    def parse_multiplicative(self) -> Node:
        """Parse ``power (("*" | "/") power)*`` (left-associative).

        ``8/4/2`` is ``Binary("/", Binary("/", 8, 4), 2)``.
        """
        left = self.parse_power()
        while self.at_op("*", "/"):
            op = self.advance().value
            left = Binary(op, left, self.parse_power())
        return left

    def parse_power(self) -> Node:
        """Parse ``percent ("^" percent)*`` -- left-associative, unlike maths.

        ``2^3^2`` is ``Binary("^", Binary("^", 2, 3), 2)``, and because the
        operands are parsed with :meth:`parse_percent` (which handles unary
        signs), ``-2^2`` is ``Binary("^", Unary("-", 2), 2)`` and ``2^-1`` is
        ``Binary("^", 2, Unary("-", 1))``.
        """
        left = self.parse_percent()
        while self.at_op("^"):
            self.advance()
            left = Binary("^", left, self.parse_percent())
        return left

    def parse_percent(self) -> Node:
        """Parse ``unary "%"*``: each postfix ``%`` wraps the node in :class:`Percent`.

        ``50%`` is ``Percent(50)``; ``5%%`` is ``Percent(Percent(5))``;
        ``-5%`` is ``Percent(Unary("-", 5))``.
        """
        node = self.parse_unary()
        while self.at_op("%"):
            self.advance()
            node = Percent(node)
        return node

    def parse_unary(self) -> Node:
        """Parse any number of prefix ``+`` / ``-`` signs, then a primary.

        ``--1`` is ``Unary("-", Unary("-", 1))``; ``+A1`` is
        ``Unary("+", Ref(A1))``.
        """
        if self.at_op("+", "-"):
            op = self.advance().value
            return Unary(op, self.parse_unary())
        return self.parse_primary()

    def parse_primary(self) -> Node:
        """Parse a literal, reference, range, name, call or parenthesized expression.

        * NUMBER/STRING/BOOL/ERROR tokens give :class:`Number`, :class:`Text`,
          :class:`Boolean` and :class:`ErrorLiteral` nodes;
        * a REF token gives :class:`Ref`; ``REF ":" REF`` gives :class:`Range`
          (a ``:`` not followed by a REF is an error);
        * a NAME followed by ``(`` is a :class:`Call` (arguments parsed by
          :meth:`parse_arguments`); a NAME alone is a :class:`Name`;
        * ``(`` expression ``)`` gives the inner node (no node for the parens).

        Raises :class:`ParseError` for a reference outside the sheet (e.g.
        ``A0`` or ``ZZZ1``), a missing ``)``, or any other token (the message
        says ``unexpected end of formula`` at ``EOF``).
        """
        tok = self.peek()
        kind = tok.kind
        if kind == lx.NUMBER:
            self.advance()
            return Number(float(tok.value))
        if kind == lx.STRING:
            self.advance()
            return Text(tok.value)
        if kind == lx.BOOL:
            self.advance()
            return Boolean(bool(tok.value))
        if kind == lx.ERROR:
            self.advance()
            return ErrorLiteral(tok.value)
        if kind == lx.REF:
            self.advance()
            start = self._cell(tok)
            if self.peek().kind == lx.COLON:
                self.advance()
                end_tok = self.peek()
                if end_tok.kind != lx.REF:
                    raise self.error("expected a cell reference after ':'")
                self.advance()
                return Range(RangeRef(start, self._cell(end_tok)))
            return Ref(start)
        if kind == lx.NAME:
            self.advance()
            if self.peek().kind == lx.LPAREN:
                return Call(tok.value, self.parse_arguments())
            return Name(tok.value)
        if kind == lx.LPAREN:
            self.advance()
            node = self.parse_comparison()
            if self.peek().kind != lx.RPAREN:
                raise self.error("expected ')'")
            self.advance()
            return node
        raise self.error()

    def parse_arguments(self) -> tuple[Node, ...]:
        """Parse a parenthesized, comma-separated argument list.

        The current token must be ``(``.  ``()`` gives an empty tuple; each
        argument is parsed with :meth:`parse_comparison`.

        Raises :class:`ParseError` if the current token is not ``(``, for an
        empty argument (``SUM(1,)``, ``SUM(,1)``) or when the list is not
        closed by ``)``.
        """
        if self.peek().kind != lx.LPAREN:
            raise self.error("expected '('")
        self.advance()
        if self.peek().kind == lx.RPAREN:
            self.advance()
            return ()
        args = []
        while True:
            args.append(self.parse_comparison())
            tok = self.peek()
            if tok.kind == lx.COMMA:
                self.advance()
                continue
            if tok.kind == lx.RPAREN:
                self.advance()
                return tuple(args)
            raise self.error("expected ',' or ')'")

    def _cell(self, tok: Token):
        try:
            return parse_cell(tok.value)
        except AddressError:
            raise ParseError(f"invalid reference {tok.value!r}", tok.pos) from None


def parse(formula: str) -> Node:
    """Parse formula text into a syntax tree.

    One leading ``=`` is optional and ignored (``"=1+2"`` and ``"1+2"`` give
    the same tree).  The whole text must be one expression.

    Raises :class:`~sheetcalc.errors.LexError` for invalid characters and
    :class:`~sheetcalc.errors.ParseError` for an empty formula, trailing
    tokens (``"1 2"``) or any syntax error; positions refer to ``formula``.
    """
    start = 1 if formula.startswith("=") else 0
    tokens = Lexer(formula, start).tokenize()
    parser = Parser(tokens)
    if parser.peek().kind == lx.EOF:
        raise ParseError("empty formula", parser.peek().pos)
    node = parser.parse_comparison()
    if parser.peek().kind != lx.EOF:
        raise parser.error()
    return node
