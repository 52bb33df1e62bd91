"""A recursive-descent parser from tokens to a :class:`~csvql.nodes.Select` tree.

Grammar (keywords are case-insensitive; ``ident`` is an ``IDENT`` token)::

    query       := SELECT select_list FROM ident
                   [WHERE condition]
                   [GROUP BY ident {"," ident}]
                   [ORDER BY order_item {"," order_item}]
                   [LIMIT NUMBER]
                   EOF
    select_list := "*" | select_item {"," select_item}
    select_item := (aggregate | ident) [AS ident]
    aggregate   := ident "(" ("*" | ident) ")"    -- ident is COUNT/SUM/AVG/MIN/MAX
    condition   := and_expr {OR and_expr}
    and_expr    := not_expr {AND not_expr}
    not_expr    := NOT not_expr | predicate
    predicate   := "(" condition ")"
                 | operand OP operand
                 | operand IS [NOT] NULL
    operand     := aggregate | ident | NUMBER | STRING | TRUE | FALSE | NULL
    order_item  := (aggregate | ident) [ASC | DESC]
"""

from __future__ import annotations

from csvql.errors import QuerySyntaxError
from csvql.nodes import (
    AGGREGATE_FUNCTIONS,
    Aggregate,
    And,
    ColumnRef,
    Compare,
    IsNull,
    Literal,
    Not,
    Or,
    OrderItem,
    Select,
    SelectItem,
    Star,
)
from csvql.tokenizer import Token, tokenize


class Parser:
    """Parses one token list (as returned by :func:`~csvql.tokenizer.tokenize`).

    ``self.tokens`` is the list and ``self.i`` the index of the current token.
    Every ``parse_*`` method starts at the current token and leaves ``self.i`` on
    the first token it did not consume. Errors are
    :class:`~csvql.errors.QuerySyntaxError` with ``pos`` set to the ``pos`` of the
    unexpected token.
    """

    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.i = 0

    # -- small helpers ---------------------------------------------------------------

    @property
    def current(self) -> Token:
        """The current token."""
        return self.tokens[self.i]

    def peek(self, offset: int = 1) -> Token:
        """The token ``offset`` places after the current one (clamped to EOF)."""
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def at(self, kind: str, value: object = None) -> bool:
        """True if the current token has this kind (and this value, if given)."""
        tok = self.current
        return tok.kind == kind and (value is None or tok.value == value)

    def accept(self, kind: str, value: object = None) -> Token | None:
        """Consume and return the current token if :meth:`at` matches, else ``None``."""
        if self.at(kind, value):
            tok = self.current
            self.i += 1
            return tok
        return None

    def expect(self, kind: str, value: object = None) -> Token:
        """Consume the current token if it matches, else raise ``QuerySyntaxError``."""
        tok = self.accept(kind, value)
        if tok is None:
            want = value if value is not None else kind
            raise self.error(f"expected {want}")
        return tok

    def error(self, message: str) -> QuerySyntaxError:
        """A ``QuerySyntaxError`` at the current token, describing what was found."""
        tok = self.current
        found = "end of query" if tok.kind == "EOF" else repr(tok.value)
        return QuerySyntaxError(f"{message}, found {found}", tok.pos)

    def at_aggregate(self) -> bool:
        """True if the current tokens start an aggregate call: ``IDENT`` + ``(``."""
        return self.at("IDENT") and self.peek().kind == "LPAREN"

    def parse_aggregate(self) -> Aggregate:
        """Parse ``name ( * | ident )`` into an :class:`Aggregate` (``func`` upper case).

        Raises ``QuerySyntaxError`` for an unknown function name (at the name) and
        for ``*`` with any function but ``COUNT`` (at the ``*``).
        """
        name_tok = self.expect("IDENT")
        func = str(name_tok.value).upper()
        if func not in AGGREGATE_FUNCTIONS:
            raise QuerySyntaxError(f"unknown function {name_tok.value!r}", name_tok.pos)
        self.expect("LPAREN")
        if self.at("STAR"):
            if func != "COUNT":
                raise self.error(f"{func} does not accept *")
            self.i += 1
            arg = None
        else:
            arg = ColumnRef(str(self.expect("IDENT").value))
        self.expect("RPAREN")
        return Aggregate(func, arg)

    # -- the grammar ----------------------------------------------------------------

    def parse_query(self) -> Select:
        """Parse a whole ``query`` (see the module grammar) and return a :class:`Select`.

        Clauses must come in the grammar's order. ``group_by`` becomes a tuple of
        column names, ``order_by`` the tuple returned by :meth:`parse_order_by`,
        ``items`` the tuple returned by :meth:`parse_select_list`. ``LIMIT`` takes
        a non-negative ``int`` NUMBER token (a float or a negative number raises
        ``QuerySyntaxError`` at that token). Any token left before ``EOF`` raises
        ``QuerySyntaxError`` at that token.
        """
        self.expect("KEYWORD", "SELECT")
        items = self.parse_select_list()
        self.expect("KEYWORD", "FROM")
        table = str(self.expect("IDENT").value)
        where = None
        if self.accept("KEYWORD", "WHERE"):
            where = self.parse_condition()
        group_by: list[str] = []
        if self.accept("KEYWORD", "GROUP"):
            self.expect("KEYWORD", "BY")
            group_by.append(str(self.expect("IDENT").value))
            while self.accept("COMMA"):
                group_by.append(str(self.expect("IDENT").value))
        order_by: tuple = ()
        if self.at("KEYWORD", "ORDER"):
            order_by = self.parse_order_by()
        limit = None
        if self.accept("KEYWORD", "LIMIT"):
            tok = self.current
            if tok.kind != "NUMBER" or not isinstance(tok.value, int) or tok.value < 0:
                raise self.error("expected a non-negative integer")
            self.i += 1
            limit = tok.value
        if not self.at("EOF"):
            raise self.error("unexpected token")
        return Select(
            items=items,
            table=table,
            where=where,
            group_by=tuple(group_by),
            order_by=order_by,
            limit=limit,
        )

    def parse_select_list(self) -> tuple:
        """Parse ``select_list``; return ``(Star(),)`` or a tuple of :class:`SelectItem`.

        Each item is an aggregate (when an ``IDENT`` is followed by ``(``) or a
        :class:`ColumnRef`, with ``alias`` set from ``AS ident``. ``*`` may only
        appear alone: ``SELECT *, a`` raises ``QuerySyntaxError`` at the comma.
        Anything else where an item is expected (a keyword such as ``FROM``, a
        number, a trailing comma) raises ``QuerySyntaxError`` at that token.
        """
        if self.accept("STAR"):
            if self.at("COMMA"):
                raise self.error("'*' must be the only select item")
            return (Star(),)

        def item() -> SelectItem:
            if self.at_aggregate():
                expr: ColumnRef | Aggregate = self.parse_aggregate()
            elif self.at("IDENT"):
                expr = ColumnRef(str(self.current.value))
                self.i += 1
            else:
                raise self.error("expected a column or an aggregate")
            alias = None
            if self.accept("KEYWORD", "AS"):
                alias = str(self.expect("IDENT").value)
            return SelectItem(expr, alias)

        items = [item()]
        while self.accept("COMMA"):
            items.append(item())
        return tuple(items)

    def parse_condition(self) -> object:
        """Parse ``condition``: ``OR`` of ``AND`` of optionally ``NOT``-ed predicates.

        Precedence, loosest first: ``OR``, ``AND``, ``NOT``. ``AND`` and ``OR`` are
        left-associative: ``a OR b OR c`` is ``Or(Or(a, b), c)``. ``NOT NOT p`` is
        ``Not(Not(p))``. Predicates are parsed by :meth:`parse_predicate`.
        """

        def and_expr() -> object:
            left = not_expr()
            while self.accept("KEYWORD", "AND"):
                left = And(left, not_expr())
            return left

        def not_expr() -> object:
            if self.accept("KEYWORD", "NOT"):
                return Not(not_expr())
            return self.parse_predicate()

        left = and_expr()
        while self.accept("KEYWORD", "OR"):
            left = Or(left, and_expr())
        return left

    def parse_predicate(self) -> object:
        """Parse ``predicate``: a parenthesised condition, a comparison or a NULL test.

        - ``( condition )`` returns the inner condition (via :meth:`parse_condition`);
        - ``operand OP operand`` returns ``Compare(op, left, right)``;
        - ``operand IS NULL`` / ``operand IS NOT NULL`` returns
          ``IsNull(operand, negated)``.

        Operands: an aggregate (``IDENT`` followed by ``(``) gives an
        :class:`Aggregate`, another ``IDENT`` a :class:`ColumnRef`, ``NUMBER`` and
        ``STRING`` a :class:`Literal` of their value, ``TRUE``/``FALSE``/``NULL``
        ``Literal(True)``/``Literal(False)``/``Literal(None)``.

        Raises ``QuerySyntaxError`` at the offending token when an operand is
        missing, when the operand is followed by neither an ``OP`` nor ``IS``, when
        ``IS [NOT]`` is not followed by ``NULL``, or when ``)`` is missing.
        """
        if self.accept("LPAREN"):
            inner = self.parse_condition()
            self.expect("RPAREN")
            return inner

        def operand() -> object:
            tok = self.current
            if self.at_aggregate():
                return self.parse_aggregate()
            if tok.kind == "IDENT":
                self.i += 1
                return ColumnRef(str(tok.value))
            if tok.kind in ("NUMBER", "STRING"):
                self.i += 1
                return Literal(tok.value)
            if tok.kind == "KEYWORD" and tok.value in ("TRUE", "FALSE", "NULL"):
                self.i += 1
                return Literal({"TRUE": True, "FALSE": False, "NULL": None}[tok.value])
            raise self.error("expected a value")

        left = operand()
        if self.accept("KEYWORD", "IS"):
            negated = self.accept("KEYWORD", "NOT") is not None
            self.expect("KEYWORD", "NULL")
            return IsNull(left, negated)
        if self.at("OP"):
            op = str(self.current.value)
            self.i += 1
            return Compare(op, left, operand())
        raise self.error("expected a comparison operator or IS")

    def parse_order_by(self) -> tuple:
        """Parse ``ORDER BY order_item {, order_item}`` (starting at ``ORDER``).

        Returns a tuple of :class:`OrderItem`; each key is an aggregate (``IDENT``
        followed by ``(``) or a :class:`ColumnRef`; ``DESC`` sets ``descending``,
        ``ASC`` or nothing leaves it ``False``. Raises ``QuerySyntaxError`` when
        ``BY`` or a key is missing.
        """
        self.expect("KEYWORD", "ORDER")
        self.expect("KEYWORD", "BY")

        def item() -> OrderItem:
            if self.at_aggregate():
                expr: ColumnRef | Aggregate = self.parse_aggregate()
            elif self.at("IDENT"):
                expr = ColumnRef(str(self.current.value))
                self.i += 1
            else:
                raise self.error("expected an ORDER BY key")
            descending = False
            if self.accept("KEYWORD", "DESC"):
                descending = True
            else:
                self.accept("KEYWORD", "ASC")
            return OrderItem(expr, descending)

        items = [item()]
        while self.accept("COMMA"):
            items.append(item())
        return tuple(items)


def parse(query: str) -> Select:
    """Tokenize and parse ``query``; shorthand for ``Parser(tokenize(query)).parse_query()``."""
    return Parser(tokenize(query)).parse_query()
