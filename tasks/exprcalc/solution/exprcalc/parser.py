"""A layered recursive-descent parser: tokens -> AST (:mod:`exprcalc.nodes`).

Grammar, one method per level (loosest first)::

    statement  := NAME "=" expression
                | NAME "(" [NAME ("," NAME)*] ")" "=" expression
                | expression
    expression := term (("+" | "-") term)*                 left associative
    term       := unary (("*" | "/" | "%") unary)*         left associative
    unary      := ("-" | "+") unary | power
    power      := primary ["^" ("-" | "+")* power]         right associative
    primary    := NUMBER | NAME | NAME "(" [expression ("," expression)*] ")"
                | "(" expression ")"

So ``-2 ^ 2`` is ``-(2 ^ 2)``, ``2 ^ 3 ^ 2`` is ``2 ^ (3 ^ 2)`` and ``2 ^ -1`` is
allowed.
"""

from __future__ import annotations

from exprcalc.errors import ParseError
from exprcalc.nodes import Assign, BinOp, Call, FuncDef, Name, Node, Number, UnaryOp
from exprcalc.tokens import Token, TokenType, tokenize


class Parser:
    """Parse a token list (as produced by :func:`~exprcalc.tokens.tokenize`).

    ``tokens`` must end with an ``EOF`` token; ``index`` is the position of the
    current token.  Every ``parse_*`` method parses one grammar level starting at
    the current token and leaves the parser on the first token after it; none of
    them requires the input to end there.

    Unless stated otherwise, a token that cannot continue the grammar is reported
    as :class:`~exprcalc.errors.ParseError` ``"Unexpected token '<text>'"`` at the
    token's position, or ``"Unexpected end of input"`` (at the ``EOF`` position)
    when the input ended.
    """

    def __init__(self, tokens: list[Token]):
        if not tokens or tokens[-1].type is not TokenType.EOF:
            raise ValueError("the token list must end with an EOF token")
        self.tokens = tokens
        self.index = 0

    # -- helpers (not units) -------------------------------------------------------
    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def peek(self, offset: int = 1) -> Token:
        """The token ``offset`` places after the current one (``EOF`` past the end)."""
        return self.tokens[min(self.index + offset, len(self.tokens) - 1)]

    def advance(self) -> Token:
        """Return the current token and move past it (never past ``EOF``)."""
        tok = self.current
        if tok.type is not TokenType.EOF:
            self.index += 1
        return tok

    def at_op(self, ops: str) -> bool:
        """True if the current token is an operator among the characters of ``ops``."""
        return self.current.type is TokenType.OP and self.current.value in ops

    def unexpected(self, tok: Token | None = None) -> ParseError:
        """The standard error for ``tok`` (default: the current token)."""
        tok = tok or self.current
        if tok.type is TokenType.EOF:
            return ParseError("Unexpected end of input", tok.pos)
        return ParseError(f"Unexpected token '{tok.text}'", tok.pos)

    # -- grammar -------------------------------------------------------------------
    def parse_primary(self) -> Node:
        """Parse a primary: a number, a name, a function call or a parenthesised group.

        * ``NUMBER`` -> ``Number(value)``;
        * ``NAME`` not followed by ``(`` -> ``Name(id)``;
        * ``NAME ( args )`` -> ``Call(name, args)``: zero or more comma-separated
          arguments, each parsed with :meth:`parse_expression`;
        * ``( expression )`` -> the inner expression itself (no extra node).

        Raises ``ParseError``: ``"Expected ')'"`` at the current token when a
        parenthesised group is not closed; ``"Expected ',' or ')'"`` at the current
        token after a call argument followed by anything else; the standard
        unexpected-token/end-of-input error when no primary starts here (e.g. at
        ``)``, ``*`` or ``,``).
        """
        tok = self.current
        if tok.type is TokenType.NUMBER:
            self.advance()
            return Number(tok.value)
        if tok.type is TokenType.NAME:
            self.advance()
            if self.current.type is not TokenType.LPAREN:
                return Name(tok.value)
            self.advance()
            args: list[Node] = []
            if self.current.type is TokenType.RPAREN:
                self.advance()
                return Call(tok.value, ())
            while True:
                args.append(self.parse_expression())
                if self.current.type is TokenType.COMMA:
                    self.advance()
                    continue
                if self.current.type is TokenType.RPAREN:
                    self.advance()
                    return Call(tok.value, tuple(args))
                raise ParseError("Expected ',' or ')'", self.current.pos)
        if tok.type is TokenType.LPAREN:
            self.advance()
            inner = self.parse_expression()
            if self.current.type is not TokenType.RPAREN:
                raise ParseError("Expected ')'", self.current.pos)
            self.advance()
            return inner
        raise self.unexpected(tok)

    def parse_power(self) -> Node:
        """Parse ``primary ["^" ("-" | "+")* power]``.

        Without ``^`` the primary is returned unchanged.  Otherwise the exponent is
        parsed recursively (making ``^`` right associative: ``2^3^2`` ->
        ``BinOp("^", 2, BinOp("^", 3, 2))``), and any sign operators between ``^``
        and it are wrapped around it as ``UnaryOp`` nodes, the first sign outermost
        (``2^-x`` -> ``BinOp("^", 2, UnaryOp("-", x))``; ``2^-+x`` ->
        ``BinOp("^", 2, UnaryOp("-", UnaryOp("+", x)))``).
        """
        base = self.parse_primary()
        if not self.at_op("^"):
            return base
        self.advance()
        signs: list[str] = []
        while self.at_op("-+"):
            signs.append(self.advance().value)
        exponent = self.parse_power()
        for sign in reversed(signs):
            exponent = UnaryOp(sign, exponent)
        return BinOp("^", base, exponent)

    def parse_unary(self) -> Node:
        """Parse ``("-" | "+") unary | power``.

        A leading sign produces ``UnaryOp(sign, operand)`` (signs nest: ``--x`` ->
        ``UnaryOp("-", UnaryOp("-", x))``); the operand is a power, so
        ``-2^2`` -> ``UnaryOp("-", BinOp("^", 2, 2))``.  Signs are never folded
        into numbers: ``-3`` is ``UnaryOp("-", Number(3))``.
        """
        if self.at_op("-+"):
            op = self.advance().value
            return UnaryOp(op, self.parse_unary())
        return self.parse_power()

    def parse_term(self) -> Node:
        """Parse ``unary (("*" | "/" | "%") unary)*``, left associative.

        ``a / b * c`` -> ``BinOp("*", BinOp("/", a, b), c)``.  A missing operand
        raises the standard error (``"2 *"`` -> ``"Unexpected end of input"``).
        """
        left = self.parse_unary()
        while self.at_op("*/%"):
            op = self.advance().value
            left = BinOp(op, left, self.parse_unary())
        return left

    def parse_expression(self) -> Node:
        """Parse ``term (("+" | "-") term)*``, left associative.

        ``1 - 2 + 3`` -> ``BinOp("+", BinOp("-", 1, 2), 3)`` and
        ``1 + 2 * 3`` -> ``BinOp("+", 1, BinOp("*", 2, 3))``.
        """
        left = self.parse_term()
        while self.at_op("+-"):
            op = self.advance().value
            left = BinOp(op, left, self.parse_term())
        return left

    def parse_statement(self) -> Node:
        """Parse an assignment, a function definition or a bare expression.

        * ``NAME = expression`` -> ``Assign(name, value)``;
        * ``NAME ( p1, p2, ... ) = expression`` where every parameter is a bare
          name -> ``FuncDef(name, (p1, p2, ...), body)`` (zero parameters allowed);
        * anything else is parsed with :meth:`parse_expression`; a call such as
          ``f(x + 1)`` that is not followed by ``=`` is an ordinary expression.

        Raises ``ParseError``: ``"Duplicate parameter '<name>'"`` at the second
        occurrence in a definition; ``"Invalid assignment target"`` at the ``=`` if
        an expression is followed by ``=`` (``"2 = x"``, ``"f(1) = 2"``,
        ``"(x) = 1"``); plus the errors of :meth:`parse_expression`.  Tokens after
        a complete statement are left for the caller.
        """
        tok = self.current
        if tok.type is TokenType.NAME and self.peek().type is TokenType.ASSIGN:
            self.advance()
            self.advance()
            return Assign(tok.value, self.parse_expression())
        if tok.type is TokenType.NAME and self.peek().type is TokenType.LPAREN:
            # Look ahead for "NAME ( [NAME (, NAME)*] ) =" without consuming anything.
            i = self.index + 2
            params: list[Token] | None = []
            if self.tokens[i].type is TokenType.RPAREN:
                i += 1
            else:
                while self.tokens[i].type is TokenType.NAME:
                    params.append(self.tokens[i])
                    i += 1
                    if self.tokens[i].type is TokenType.COMMA:
                        i += 1
                        continue
                    if self.tokens[i].type is TokenType.RPAREN:
                        i += 1
                        break
                    params = None
                    break
                else:
                    params = None
            if params is not None and self.tokens[i].type is TokenType.ASSIGN:
                seen: set[str] = set()
                for p in params:
                    if p.value in seen:
                        raise ParseError(f"Duplicate parameter '{p.value}'", p.pos)
                    seen.add(p.value)
                self.index = i + 1
                return FuncDef(tok.value, tuple(p.value for p in params), self.parse_expression())
        expr = self.parse_expression()
        if self.current.type is TokenType.ASSIGN:
            raise ParseError("Invalid assignment target", self.current.pos)
        return expr


def parse(source: str) -> Node:
    """Tokenize and parse one complete statement (see :meth:`Parser.parse_statement`).

    The whole input must be consumed: anything left over raises
    :class:`~exprcalc.errors.ParseError` ``"Unexpected token '<text>'"`` at its
    position (``"1 2"`` -> at 2, ``"(1))"`` -> at 3).  Empty input raises
    ``"Unexpected end of input"`` at 0.  Tokenizer errors propagate.
    """
    parser = Parser(tokenize(source))
    node = parser.parse_statement()
    if parser.current.type is not TokenType.EOF:
        raise parser.unexpected()
    return node
