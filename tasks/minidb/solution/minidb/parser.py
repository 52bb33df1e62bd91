"""Layer 2: a recursive-descent parser from tokens to the AST in `minidb.syntax`.

Each ``parse_*`` method starts at the current token and consumes exactly the
construct it names, leaving the parser on the first token after it. Statement
methods start *at* the statement's first keyword (``parse_select`` expects the
current token to be SELECT). Errors are `SQLSyntaxError`s whose position is that
of the offending token; most messages read ``"expected X, found Y"``.

Expression precedence, loosest first::

    OR
    AND
    NOT
    comparison: = <> < <= > >=, IS [NOT] NULL, [NOT] IN, [NOT] BETWEEN, [NOT] LIKE
    + - ||          (left-associative)
    * / %           (left-associative)
    unary - and +
    primary: literal, ?, column, function call, CASE, (expr), (SELECT ...), EXISTS
"""

from __future__ import annotations

from minidb.errors import SQLSyntaxError
from minidb.lexer import tokenize
from minidb.syntax import (
    Begin,
    Between,
    BinaryOp,
    Case,
    ColumnDef,
    ColumnRef,
    Commit,
    CreateIndex,
    CreateTable,
    Delete,
    DropIndex,
    DropTable,
    Exists,
    Expr,
    FromClause,
    FunctionCall,
    InList,
    Insert,
    InSubquery,
    IsNull,
    Join,
    Like,
    Literal,
    OrderItem,
    Parameter,
    Rollback,
    ScalarSubquery,
    Select,
    SelectItem,
    Star,
    Statement,
    TableRef,
    UnaryOp,
    Update,
)
from minidb.tokens import Token, TokenType

#: Type names accepted in CREATE TABLE (lower case) and their canonical type.
TYPE_NAMES = {
    "integer": "INTEGER",
    "int": "INTEGER",
    "bigint": "INTEGER",
    "smallint": "INTEGER",
    "real": "REAL",
    "float": "REAL",
    "double": "REAL",
    "text": "TEXT",
    "varchar": "TEXT",
    "char": "TEXT",
    "boolean": "BOOLEAN",
    "bool": "BOOLEAN",
}

#: Type names that accept a length, as in VARCHAR(20).
SIZED_TYPES = frozenset({"varchar", "char"})

COMPARISON_OPS = ("=", "<>", "<", "<=", ">", ">=")


def describe_token(token: Token) -> str:
    """A short human description of a token, used in error messages."""
    if token.type is TokenType.EOF:
        return "end of input"
    if token.type is TokenType.KEYWORD:
        return token.value
    if token.type is TokenType.IDENT:
        return f'identifier "{token.value}"'
    if token.type in (TokenType.INTEGER, TokenType.FLOAT):
        return f"number {token.value!r}"
    if token.type is TokenType.STRING:
        return f"string {token.value!r}"
    if token.type is TokenType.PARAM:
        return "'?'"
    return f"'{token.value}'"


class Parser:
    """A cursor over a token list with one ``parse_*`` method per construct.

    The small helpers (``peek``, ``advance``, ``accept_*``, ``expect_*``,
    ``error``) are the parser's infrastructure; the ``parse_*`` methods are the
    grammar.
    """

    def __init__(self, tokens: list[Token]):
        """Start parsing ``tokens`` (which must end with an EOF token) at the first one."""
        self.tokens = tokens
        self.pos = 0

    # ------------------------------------------------------------ infrastructure

    def peek(self, offset: int = 0) -> Token:
        """The token ``offset`` places ahead of the current one (EOF past the end)."""
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def advance(self) -> Token:
        """Consume and return the current token (never moves past EOF)."""
        tok = self.peek()
        if tok.type is not TokenType.EOF:
            self.pos += 1
        return tok

    def at_end(self) -> bool:
        """True if the current token is EOF."""
        return self.peek().type is TokenType.EOF

    def at_keyword(self, *words: str, offset: int = 0) -> bool:
        """True if the token at ``offset`` is one of the keywords ``words``."""
        tok = self.peek(offset)
        return tok.type is TokenType.KEYWORD and tok.value in words

    def at_op(self, *ops: str, offset: int = 0) -> bool:
        """True if the token at ``offset`` is one of the operators ``ops``."""
        tok = self.peek(offset)
        return tok.type is TokenType.OP and tok.value in ops

    def accept_keyword(self, word: str) -> bool:
        """Consume the current token if it is keyword ``word``; report whether it was."""
        if self.at_keyword(word):
            self.pos += 1
            return True
        return False

    def accept_op(self, op: str) -> bool:
        """Consume the current token if it is operator ``op``; report whether it was."""
        if self.at_op(op):
            self.pos += 1
            return True
        return False

    def expect_keyword(self, word: str) -> Token:
        """Consume keyword ``word`` or raise `SQLSyntaxError` ("expected WORD, found ...")."""
        if not self.at_keyword(word):
            raise self.error(word)
        return self.advance()

    def expect_op(self, op: str) -> Token:
        """Consume operator ``op`` or raise `SQLSyntaxError` ("expected 'op', found ...")."""
        if not self.at_op(op):
            raise self.error(f"'{op}'")
        return self.advance()

    def expect_identifier(self, what: str = "identifier") -> str:
        """Consume an identifier and return its name, or raise `SQLSyntaxError`."""
        tok = self.peek()
        if tok.type is not TokenType.IDENT:
            raise self.error(what)
        self.advance()
        return tok.value

    def identifier_list(self) -> tuple[str, ...]:
        """Parse ``( name [, name ...] )`` and return the names."""
        self.expect_op("(")
        names = [self.expect_identifier("column name")]
        while self.accept_op(","):
            names.append(self.expect_identifier("column name"))
        self.expect_op(")")
        return tuple(names)

    def error(self, expected: str, token: Token | None = None) -> SQLSyntaxError:
        """Build (not raise) ``SQLSyntaxError("expected <expected>, found <token>")``.

        ``token`` defaults to the current token; the error's position is its ``pos``.
        """
        tok = token or self.peek()
        return SQLSyntaxError(f"expected {expected}, found {describe_token(tok)}", tok.pos)

    # --------------------------------------------------------------- expressions

    def parse_primary(self) -> Expr:
        """Parse a primary expression.

        - INTEGER/FLOAT/STRING tokens: ``Literal(value)``; NULL: ``Literal(None)``;
          TRUE/FALSE: ``Literal(True)``/``Literal(False)``;
        - ``?``: ``Parameter(index)``;
        - ``name`` / ``table.name``: ``ColumnRef(name)`` / ``ColumnRef(name, table)``;
        - ``name(``: delegates to `parse_function_call`;
        - CASE: delegates to `parse_case`;
        - ``EXISTS (SELECT ...)``: ``Exists(query)`` (query via `parse_select`);
        - ``(SELECT ...)``: ``ScalarSubquery(query)``;
        - ``( expr )``: the inner expression itself (no node for parentheses).

        Raises:
            SQLSyntaxError: "expected an expression, found ..." for any other token,
                or "expected column name, found ..." after ``table.``.
        """
        tok = self.peek()
        if tok.type in (TokenType.INTEGER, TokenType.FLOAT, TokenType.STRING):
            self.advance()
            return Literal(tok.value)
        if tok.type is TokenType.PARAM:
            self.advance()
            return Parameter(tok.value)
        if tok.type is TokenType.KEYWORD:
            if tok.value == "NULL":
                self.advance()
                return Literal(None)
            if tok.value in ("TRUE", "FALSE"):
                self.advance()
                return Literal(tok.value == "TRUE")
            if tok.value == "CASE":
                return self.parse_case()
            if tok.value == "EXISTS":
                self.advance()
                self.expect_op("(")
                query = self.parse_select()
                self.expect_op(")")
                return Exists(query)
        if tok.type is TokenType.IDENT:
            if self.at_op("(", offset=1):
                return self.parse_function_call()
            self.advance()
            if self.accept_op("."):
                return ColumnRef(self.expect_identifier("column name"), tok.value)
            return ColumnRef(tok.value)
        if self.accept_op("("):
            if self.at_keyword("SELECT"):
                query = self.parse_select()
                self.expect_op(")")
                return ScalarSubquery(query)
            inner = self.parse_expression()
            self.expect_op(")")
            return inner
        raise self.error("an expression")

    def parse_arith(self) -> Expr:
        """Parse arithmetic: ``+ - ||`` over ``* / %`` over unary ``-``/``+`` over primaries.

        Binary operators are left-associative (``a - b - c`` is ``(a - b) - c``)
        and produce `BinaryOp` nodes. Unary ``+`` is dropped. Unary ``-`` applied to
        a numeric `Literal` is folded into the literal (``-5`` is ``Literal(-5)``,
        ``- -5`` is ``Literal(5)``); applied to anything else it gives
        ``UnaryOp('-', operand)``. Operands come from `parse_primary`.
        """

        def unary() -> Expr:
            if self.accept_op("-"):
                operand = unary()
                if isinstance(operand, Literal) and type(operand.value) in (int, float):
                    return Literal(-operand.value)
                return UnaryOp("-", operand)
            if self.accept_op("+"):
                return unary()
            return self.parse_primary()

        def term() -> Expr:
            left = unary()
            while self.at_op("*", "/", "%"):
                op = self.advance().value
                left = BinaryOp(op, left, unary())
            return left

        left = term()
        while self.at_op("+", "-", "||"):
            op = self.advance().value
            left = BinaryOp(op, left, term())
        return left

    def parse_comparison(self) -> Expr:
        """Parse an arithmetic expression followed by at most one comparison suffix.

        Suffixes (operands and list items are parsed with `parse_arith`):

        - ``= <> < <= > >=`` right: ``BinaryOp(op, left, right)``;
        - ``IS NULL`` / ``IS NOT NULL``: ``IsNull(left, negated)``;
        - ``[NOT] IN (a, b, ...)``: ``InList(left, items, negated)``;
        - ``[NOT] IN (SELECT ...)``: ``InSubquery(left, query, negated)``;
        - ``[NOT] BETWEEN low AND high``: ``Between(left, low, high, negated)``;
        - ``[NOT] LIKE pattern``: ``Like(left, pattern, negated)``.

        Without a suffix the arithmetic expression is returned unchanged.
        Comparisons do not chain: ``a = b = c`` leaves the second ``=`` unparsed.

        Raises:
            SQLSyntaxError: "expected NULL, found ..." after IS [NOT];
                "expected IN, BETWEEN or LIKE, found ..." after a NOT that follows
                an operand; "expected an expression" for an empty IN list.
        """
        left = self.parse_arith()
        tok = self.peek()
        if tok.type is TokenType.OP and tok.value in COMPARISON_OPS:
            self.advance()
            return BinaryOp(tok.value, left, self.parse_arith())
        if self.accept_keyword("IS"):
            negated = self.accept_keyword("NOT")
            self.expect_keyword("NULL")
            return IsNull(left, negated)
        negated = False
        if self.at_keyword("NOT"):
            if not self.at_keyword("IN", "BETWEEN", "LIKE", offset=1):
                raise self.error("IN, BETWEEN or LIKE", self.peek(1))
            self.advance()
            negated = True
        if self.accept_keyword("IN"):
            self.expect_op("(")
            if self.at_keyword("SELECT"):
                query = self.parse_select()
                self.expect_op(")")
                return InSubquery(left, query, negated)
            items = [self.parse_arith()]
            while self.accept_op(","):
                items.append(self.parse_arith())
            self.expect_op(")")
            return InList(left, tuple(items), negated)
        if self.accept_keyword("BETWEEN"):
            low = self.parse_arith()
            self.expect_keyword("AND")
            high = self.parse_arith()
            return Between(left, low, high, negated)
        if self.accept_keyword("LIKE"):
            return Like(left, self.parse_arith(), negated)
        return left

    def parse_expression(self) -> Expr:
        """Parse a full boolean expression: ``OR`` over ``AND`` over ``NOT`` over comparisons.

        AND and OR are left-associative and produce ``BinaryOp('AND'|'OR', l, r)``;
        ``NOT x`` produces ``UnaryOp('NOT', x)`` and may be repeated
        (``NOT NOT x``). Operands come from `parse_comparison`.
        """

        def negation() -> Expr:
            if self.accept_keyword("NOT"):
                return UnaryOp("NOT", negation())
            return self.parse_comparison()

        def conjunction() -> Expr:
            left = negation()
            while self.accept_keyword("AND"):
                left = BinaryOp("AND", left, negation())
            return left

        left = conjunction()
        while self.accept_keyword("OR"):
            left = BinaryOp("OR", left, conjunction())
        return left

    def parse_function_call(self) -> FunctionCall:
        """Parse ``name( [DISTINCT] arg, ... )``, ``name()`` or ``count(*)``.

        The current token is the function name (an identifier followed by '(').
        Arguments are full expressions (`parse_expression`). The name is stored in
        lower case (the lexer already lower-cases unquoted identifiers).

        Returns:
            ``FunctionCall(name, args, distinct, star)``; ``count(*)`` gives
            ``FunctionCall('count', (), star=True)``.

        Raises:
            SQLSyntaxError: "'*' is only allowed in count(*)" (at the '*') for
                ``name(*)`` with another name; "expected an expression, found ')'"
                for ``name(DISTINCT)``; "expected ')'" when the list is not closed.
        """
        name_tok = self.advance()
        name = name_tok.value.lower()
        self.expect_op("(")
        star_tok = self.peek()
        if self.accept_op("*"):
            if name != "count":
                raise SQLSyntaxError("'*' is only allowed in count(*)", star_tok.pos)
            self.expect_op(")")
            return FunctionCall(name, (), star=True)
        distinct = self.accept_keyword("DISTINCT")
        args: list[Expr] = []
        if distinct or not self.at_op(")"):
            args.append(self.parse_expression())
            while self.accept_op(","):
                args.append(self.parse_expression())
        self.expect_op(")")
        return FunctionCall(name, tuple(args), distinct=distinct)

    def parse_case(self) -> Case:
        """Parse ``CASE [operand] WHEN x THEN y ... [ELSE z] END``.

        The current token is CASE. With an operand (a simple CASE) it is parsed
        with `parse_expression`, as are every WHEN condition, THEN result and the
        ELSE result.

        Returns:
            ``Case(operand or None, ((when, then), ...), else_ or None)``.

        Raises:
            SQLSyntaxError: "expected WHEN, found ..." when there is no WHEN
                branch, "expected THEN"/"expected END" when those are missing.
        """
        self.expect_keyword("CASE")
        if self.at_keyword("ELSE", "END"):
            raise self.error("WHEN")
        operand = None if self.at_keyword("WHEN") else self.parse_expression()
        whens: list[tuple[Expr, Expr]] = []
        while self.accept_keyword("WHEN"):
            cond = self.parse_expression()
            self.expect_keyword("THEN")
            whens.append((cond, self.parse_expression()))
        if not whens:
            raise self.error("WHEN")
        else_ = self.parse_expression() if self.accept_keyword("ELSE") else None
        self.expect_keyword("END")
        return Case(operand, tuple(whens), else_)

    # ---------------------------------------------------------------------- DDL

    def parse_column_def(self) -> ColumnDef:
        """Parse one column definition: ``name type [(length)] [constraint ...]``.

        Types (case-insensitive identifiers, see `TYPE_NAMES`): INTEGER, INT,
        BIGINT, SMALLINT -> 'INTEGER'; REAL, FLOAT, DOUBLE -> 'REAL'; TEXT,
        VARCHAR, CHAR -> 'TEXT'; BOOLEAN, BOOL -> 'BOOLEAN'. Only VARCHAR and CHAR
        take a length, ``(n)`` with n a positive integer; without it the length
        is None.

        Constraints, in any order: ``NOT NULL``; ``NULL`` (no effect);
        ``PRIMARY KEY``; ``UNIQUE``; ``DEFAULT literal`` where the literal is a
        number with an optional sign, a string, NULL, TRUE or FALSE (stored as a
        `Literal`, a sign folded into the number).

        Raises:
            SQLSyntaxError: "expected column name"; "expected type name" when the
                type is missing; "unknown type 'x'" (at the type) for an unknown
                type; "type 'x' takes no length" (at the '(') for e.g. INTEGER(4);
                "expected a positive length" for VARCHAR(0) or VARCHAR(x);
                "expected a literal default value" for DEFAULT followed by
                anything else.
        """
        name = self.expect_identifier("column name")
        type_tok = self.peek()
        if type_tok.type is not TokenType.IDENT:
            raise self.error("type name")
        self.advance()
        raw = type_tok.value.lower()
        if raw not in TYPE_NAMES:
            raise SQLSyntaxError(f"unknown type '{type_tok.value}'", type_tok.pos)
        length = None
        if self.at_op("("):
            if raw not in SIZED_TYPES:
                raise SQLSyntaxError(f"type '{type_tok.value}' takes no length", self.peek().pos)
            self.advance()
            len_tok = self.peek()
            if len_tok.type is not TokenType.INTEGER or len_tok.value <= 0:
                raise self.error("a positive length")
            self.advance()
            length = len_tok.value
            self.expect_op(")")
        not_null = primary_key = unique = False
        default = None
        while True:
            if self.at_keyword("NOT"):
                self.advance()
                self.expect_keyword("NULL")
                not_null = True
            elif self.accept_keyword("NULL"):
                pass
            elif self.accept_keyword("PRIMARY"):
                self.expect_keyword("KEY")
                primary_key = True
            elif self.accept_keyword("UNIQUE"):
                unique = True
            elif self.accept_keyword("DEFAULT"):
                default = self._default_literal()
            else:
                break
        return ColumnDef(name, TYPE_NAMES[raw], length, not_null, primary_key, unique, default)

    def _default_literal(self) -> Literal:
        sign = 1
        if self.accept_op("-"):
            sign = -1
        elif self.accept_op("+"):
            pass
        tok = self.peek()
        if tok.type in (TokenType.INTEGER, TokenType.FLOAT):
            self.advance()
            return Literal(sign * tok.value)
        if sign == 1 and tok.type is TokenType.STRING:
            self.advance()
            return Literal(tok.value)
        if sign == 1 and self.at_keyword("NULL", "TRUE", "FALSE"):
            self.advance()
            return Literal({"NULL": None, "TRUE": True, "FALSE": False}[tok.value])
        raise self.error("a literal default value")

    def parse_create_table(self) -> CreateTable:
        """Parse ``CREATE TABLE [IF NOT EXISTS] name ( element, ... )``.

        Each element is a column definition (`parse_column_def`) or a table
        constraint ``PRIMARY KEY (col, ...)`` or ``UNIQUE (col, ...)``. Table-level
        constraints go to ``CreateTable.primary_key`` and ``CreateTable.uniques``
        (in order); column-level ones stay on their `ColumnDef`. Semantic checks
        (duplicate columns, unknown constraint columns) belong to the catalog.

        Raises:
            SQLSyntaxError: "multiple PRIMARY KEY clauses" (at the second PRIMARY)
                for two table-level primary keys; "a table needs at least one
                column" (at the closing parenthesis) when only constraints are
                given; "expected ',' or ')'"-style errors from the helpers.
        """
        self.expect_keyword("CREATE")
        self.expect_keyword("TABLE")
        if_not_exists = False
        if self.accept_keyword("IF"):
            self.expect_keyword("NOT")
            self.expect_keyword("EXISTS")
            if_not_exists = True
        name = self.expect_identifier("table name")
        self.expect_op("(")
        columns: list[ColumnDef] = []
        primary_key: tuple[str, ...] = ()
        uniques: list[tuple[str, ...]] = []
        while True:
            tok = self.peek()
            if self.accept_keyword("PRIMARY"):
                self.expect_keyword("KEY")
                if primary_key:
                    raise SQLSyntaxError("multiple PRIMARY KEY clauses", tok.pos)
                primary_key = self.identifier_list()
            elif self.accept_keyword("UNIQUE"):
                uniques.append(self.identifier_list())
            else:
                columns.append(self.parse_column_def())
            if self.accept_op(","):
                continue
            if not self.at_op(")"):
                raise self.error("',' or ')'")
            break
        close = self.advance()
        if not columns:
            raise SQLSyntaxError("a table needs at least one column", close.pos)
        return CreateTable(name, tuple(columns), primary_key, tuple(uniques), if_not_exists)

    def parse_create_index(self) -> CreateIndex:
        """Parse ``CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table (column)``.

        Indexes cover exactly one column.

        Raises:
            SQLSyntaxError: e.g. "expected ON, found ..." or "expected ')', found
                ','" for a multi-column index.
        """
        self.expect_keyword("CREATE")
        unique = self.accept_keyword("UNIQUE")
        self.expect_keyword("INDEX")
        if_not_exists = False
        if self.accept_keyword("IF"):
            self.expect_keyword("NOT")
            self.expect_keyword("EXISTS")
            if_not_exists = True
        name = self.expect_identifier("index name")
        self.expect_keyword("ON")
        table = self.expect_identifier("table name")
        self.expect_op("(")
        column = self.expect_identifier("column name")
        self.expect_op(")")
        return CreateIndex(name, table, column, unique, if_not_exists)

    def parse_drop(self) -> DropTable | DropIndex:
        """Parse ``DROP TABLE [IF EXISTS] name`` or ``DROP INDEX [IF EXISTS] name``.

        Raises:
            SQLSyntaxError: "expected TABLE or INDEX, found ..." after DROP;
                "expected EXISTS" after IF.
        """
        self.expect_keyword("DROP")
        if self.accept_keyword("TABLE"):
            kind = DropTable
        elif self.accept_keyword("INDEX"):
            kind = DropIndex
        else:
            raise self.error("TABLE or INDEX")
        if_exists = False
        if self.accept_keyword("IF"):
            self.expect_keyword("EXISTS")
            if_exists = True
        what = "table name" if kind is DropTable else "index name"
        return kind(self.expect_identifier(what), if_exists)

    # ---------------------------------------------------------------------- DML

    def parse_insert(self) -> Insert:
        """Parse ``INSERT INTO table [(col, ...)] VALUES (expr, ...), ...`` or ``... SELECT ...``.

        Value expressions are parsed with `parse_expression`; a SELECT source with
        `parse_select`. Rows may have different lengths here (the executor checks).

        Returns:
            ``Insert(table, columns or None, rows, None)`` for VALUES, or
            ``Insert(table, columns or None, None, query)`` for SELECT.

        Raises:
            SQLSyntaxError: "expected INTO", "expected VALUES or SELECT, found ...",
                "expected an expression" for an empty row ``()``.
        """
        self.expect_keyword("INSERT")
        self.expect_keyword("INTO")
        table = self.expect_identifier("table name")
        columns = self.identifier_list() if self.at_op("(") else None
        if self.at_keyword("SELECT"):
            return Insert(table, columns, None, self.parse_select())
        if not self.accept_keyword("VALUES"):
            raise self.error("VALUES or SELECT")
        rows: list[tuple[Expr, ...]] = []
        while True:
            self.expect_op("(")
            row = [self.parse_expression()]
            while self.accept_op(","):
                row.append(self.parse_expression())
            self.expect_op(")")
            rows.append(tuple(row))
            if not self.accept_op(","):
                break
        return Insert(table, columns, tuple(rows), None)

    def parse_from(self) -> FromClause:
        """Parse ``FROM table [[AS] alias] [join ...]``.

        Joins, which may be mixed and repeated:

        - ``, t``: ``Join('CROSS', t)``; ``CROSS JOIN t``: same;
        - ``[INNER] JOIN t ON expr``: ``Join('INNER', t, expr)``;
        - ``LEFT [OUTER] JOIN t ON expr``: ``Join('LEFT', t, expr)``.

        A table alias follows the name, with or without AS.

        Raises:
            SQLSyntaxError: "expected ON, found ..." for an INNER/LEFT join without
                ON; "expected JOIN" after CROSS, LEFT [OUTER] or INNER; "expected
                table name".
        """
        self.expect_keyword("FROM")

        def table_ref() -> TableRef:
            name = self.expect_identifier("table name")
            alias = None
            if self.accept_keyword("AS"):
                alias = self.expect_identifier("alias")
            elif self.peek().type is TokenType.IDENT:
                alias = self.advance().value
            return TableRef(name, alias)

        first = table_ref()
        joins: list[Join] = []
        while True:
            if self.accept_op(","):
                joins.append(Join("CROSS", table_ref()))
            elif self.accept_keyword("CROSS"):
                self.expect_keyword("JOIN")
                joins.append(Join("CROSS", table_ref()))
            elif self.at_keyword("INNER", "JOIN"):
                self.accept_keyword("INNER")
                self.expect_keyword("JOIN")
                ref = table_ref()
                self.expect_keyword("ON")
                joins.append(Join("INNER", ref, self.parse_expression()))
            elif self.accept_keyword("LEFT"):
                self.accept_keyword("OUTER")
                self.expect_keyword("JOIN")
                ref = table_ref()
                self.expect_keyword("ON")
                joins.append(Join("LEFT", ref, self.parse_expression()))
            else:
                return FromClause(first, tuple(joins))

    def parse_order_by(self) -> tuple[OrderItem, ...]:
        """Parse ``ORDER BY expr [ASC|DESC] [NULLS FIRST|NULLS LAST], ...``.

        Returns:
            One `OrderItem` per key: ``descending`` is True only for DESC;
            ``nulls_first`` is True/False for NULLS FIRST/LAST and None if absent.

        Raises:
            SQLSyntaxError: "expected BY"; "expected FIRST or LAST, found ..."
                after NULLS.
        """
        self.expect_keyword("ORDER")
        self.expect_keyword("BY")
        items: list[OrderItem] = []
        while True:
            expr = self.parse_expression()
            descending = False
            if self.accept_keyword("DESC"):
                descending = True
            else:
                self.accept_keyword("ASC")
            nulls_first = None
            if self.accept_keyword("NULLS"):
                if self.accept_keyword("FIRST"):
                    nulls_first = True
                elif self.accept_keyword("LAST"):
                    nulls_first = False
                else:
                    raise self.error("FIRST or LAST")
            items.append(OrderItem(expr, descending, nulls_first))
            if not self.accept_op(","):
                return tuple(items)

    def parse_select(self) -> Select:
        """Parse a SELECT statement (the current token is SELECT).

        Grammar, clauses in this order, all optional except the select list::

            SELECT [DISTINCT | ALL] item, ...
            [FROM ...]            -- parse_from
            [WHERE expr]
            [GROUP BY expr, ...]
            [HAVING expr]
            [ORDER BY ...]        -- parse_order_by
            [LIMIT expr] [OFFSET expr]

        A select item is ``*`` (``Star()``), ``table.*`` (``Star(table)``) or an
        expression with an optional alias (``expr AS name`` or ``expr name``).

        Raises:
            SQLSyntaxError: "expected an expression" for an empty select list or a
                dangling comma; "expected BY" after GROUP; "expected alias" after AS.
        """
        self.expect_keyword("SELECT")
        distinct = self.accept_keyword("DISTINCT")
        if not distinct:
            self.accept_keyword("ALL")

        def item() -> SelectItem:
            if self.accept_op("*"):
                return SelectItem(Star())
            tok = self.peek()
            if tok.type is TokenType.IDENT and self.at_op(".", offset=1) and self.at_op("*", offset=2):
                self.pos += 3
                return SelectItem(Star(tok.value))
            expr = self.parse_expression()
            alias = None
            if self.accept_keyword("AS"):
                alias = self.expect_identifier("alias")
            elif self.peek().type is TokenType.IDENT:
                alias = self.advance().value
            return SelectItem(expr, alias)

        items = [item()]
        while self.accept_op(","):
            items.append(item())
        from_ = self.parse_from() if self.at_keyword("FROM") else None
        where = self.parse_expression() if self.accept_keyword("WHERE") else None
        group_by: list[Expr] = []
        if self.accept_keyword("GROUP"):
            self.expect_keyword("BY")
            group_by.append(self.parse_expression())
            while self.accept_op(","):
                group_by.append(self.parse_expression())
        having = self.parse_expression() if self.accept_keyword("HAVING") else None
        order_by = self.parse_order_by() if self.at_keyword("ORDER") else ()
        limit = self.parse_expression() if self.accept_keyword("LIMIT") else None
        offset = self.parse_expression() if self.accept_keyword("OFFSET") else None
        return Select(
            tuple(items), from_, where, tuple(group_by), having, order_by, limit, offset, distinct
        )

    def parse_update(self) -> Update:
        """Parse ``UPDATE table SET col = expr [, col = expr ...] [WHERE expr]``.

        Returns:
            ``Update(table, ((col, expr), ...), where or None)`` with assignments
            in source order.

        Raises:
            SQLSyntaxError: "expected SET", "expected column name", "expected '='".
        """
        self.expect_keyword("UPDATE")
        table = self.expect_identifier("table name")
        self.expect_keyword("SET")
        assignments: list[tuple[str, Expr]] = []
        while True:
            col = self.expect_identifier("column name")
            self.expect_op("=")
            assignments.append((col, self.parse_expression()))
            if not self.accept_op(","):
                break
        where = self.parse_expression() if self.accept_keyword("WHERE") else None
        return Update(table, tuple(assignments), where)

    def parse_delete(self) -> Delete:
        """Parse ``DELETE FROM table [WHERE expr]``.

        Raises:
            SQLSyntaxError: "expected FROM" or "expected table name".
        """
        self.expect_keyword("DELETE")
        self.expect_keyword("FROM")
        table = self.expect_identifier("table name")
        where = self.parse_expression() if self.accept_keyword("WHERE") else None
        return Delete(table, where)

    # ---------------------------------------------------------------- statements

    def parse_statement(self) -> Statement:
        """Parse one statement, dispatching on its first keyword.

        SELECT, INSERT, UPDATE, DELETE, DROP go to their ``parse_*`` method;
        CREATE TABLE to `parse_create_table`; CREATE INDEX and CREATE UNIQUE INDEX
        to `parse_create_index`; ``BEGIN [TRANSACTION]``, ``COMMIT
        [TRANSACTION]`` and ``ROLLBACK [TRANSACTION]`` give `Begin`, `Commit`,
        `Rollback`. The terminating ';' is not consumed.

        Raises:
            SQLSyntaxError: "expected a statement, found ..." for any other first
                token; "expected TABLE or INDEX, found ..." after CREATE.
        """
        tok = self.peek()
        if tok.type is TokenType.KEYWORD:
            word = tok.value
            if word == "SELECT":
                return self.parse_select()
            if word == "INSERT":
                return self.parse_insert()
            if word == "UPDATE":
                return self.parse_update()
            if word == "DELETE":
                return self.parse_delete()
            if word == "DROP":
                return self.parse_drop()
            if word == "CREATE":
                if self.at_keyword("TABLE", offset=1):
                    return self.parse_create_table()
                if self.at_keyword("INDEX", "UNIQUE", offset=1):
                    return self.parse_create_index()
                raise self.error("TABLE or INDEX", self.peek(1))
            if word in ("BEGIN", "COMMIT", "ROLLBACK"):
                self.advance()
                self.accept_keyword("TRANSACTION")
                return {"BEGIN": Begin, "COMMIT": Commit, "ROLLBACK": Rollback}[word]()
        raise self.error("a statement")


def parse_sql(sql: str) -> list[Statement]:
    """Parse SQL text holding zero or more statements separated by ';'.

    Empty statements (``;;``) and a trailing ';' are allowed; text that holds
    only whitespace, comments and semicolons gives ``[]``. After each statement
    the next token must be ';' or the end of the input.

    Raises:
        SQLSyntaxError: from the lexer or `Parser.parse_statement`, or "expected
            ';' or end of input, found ..." when a statement is followed by
            anything else (``SELECT 1 2``).
    """
    parser = Parser(tokenize(sql))
    statements: list[Statement] = []
    while True:
        while parser.accept_op(";"):
            pass
        if parser.at_end():
            return statements
        statements.append(parser.parse_statement())
        if not parser.at_end() and not parser.at_op(";"):
            raise parser.error("';' or end of input")
