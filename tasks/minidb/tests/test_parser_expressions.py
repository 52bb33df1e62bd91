"""Layer 2: expression parsing (Parser.parse_primary ... parse_case)."""

import pytest

from minidb.errors import SQLSyntaxError
from minidb.lexer import tokenize
from minidb.parser import Parser
from minidb.syntax import (
    Between,
    BinaryOp,
    Case,
    ColumnRef,
    FunctionCall,
    InList,
    IsNull,
    Like,
    Literal,
    Parameter,
    UnaryOp,
)
from minidb.tokens import TokenType

a, b, c = ColumnRef("a"), ColumnRef("b"), ColumnRef("c")


def L(v):
    return Literal(v)


def run(method, sql):
    """Parse ``sql`` with one Parser method and check that all input was consumed."""
    p = Parser(tokenize(sql))
    node = getattr(p, method)()
    assert p.peek().type is TokenType.EOF, f"left over: {p.peek()}"
    return node


def fails(method, sql):
    with pytest.raises(SQLSyntaxError) as info:
        getattr(Parser(tokenize(sql)), method)()
    return info.value


class TestParsePrimary:
    @pytest.mark.parametrize(
        "sql, node",
        [
            ("42", L(42)),
            ("2.5", L(2.5)),
            ("'hi'", L("hi")),
            ("NULL", L(None)),
            ("true", L(True)),
            ("FALSE", L(False)),
            ("price", ColumnRef("price")),
            ("Orders.Total", ColumnRef("total", "orders")),
            ('"T"."Weird Col"', ColumnRef("Weird Col", "T")),
        ],
    )
    def test_atoms(self, sql, node):
        assert run("parse_primary", sql) == node

    def test_parameters_keep_their_index(self):
        p = Parser(tokenize("? ?"))
        assert [p.parse_primary(), p.parse_primary()] == [Parameter(0), Parameter(1)]

    def test_stops_after_one_primary(self):
        p = Parser(tokenize("a + b"))
        assert p.parse_primary() == a
        assert p.peek().value == "+"

    def test_not_an_expression(self):
        err = fails("parse_primary", "FROM t")
        assert err.position == 0 and "expected an expression" in err.message

    def test_qualified_name_needs_column(self):
        err = fails("parse_primary", "t.'x'")
        assert "expected column name" in err.message and err.position == 2

    def test_end_of_input(self):
        err = fails("parse_primary", "")
        assert "end of input" in err.message


class TestParseArith:
    @pytest.mark.parametrize(
        "sql, node",
        [
            ("a + b", BinaryOp("+", a, b)),
            ("a + b * c", BinaryOp("+", a, BinaryOp("*", b, c))),
            ("a * b + c", BinaryOp("+", BinaryOp("*", a, b), c)),
            ("a - b - c", BinaryOp("-", BinaryOp("-", a, b), c)),
            ("a / b % c", BinaryOp("%", BinaryOp("/", a, b), c)),
            ("a || 'x' || b", BinaryOp("||", BinaryOp("||", a, L("x")), b)),
            ("a + b || c", BinaryOp("||", BinaryOp("+", a, b), c)),
            ("-5", L(-5)),
            ("-2.5", L(-2.5)),
            ("- -5", L(5)),
            ("-a", UnaryOp("-", a)),
            ("+a", a),
            ("-a * b", BinaryOp("*", UnaryOp("-", a), b)),
            ("a - -1", BinaryOp("-", a, L(-1))),
        ],
    )
    def test_precedence_and_associativity(self, sql, node):
        assert run("parse_arith", sql) == node

    def test_stops_at_comparison(self):
        p = Parser(tokenize("a + 1 = b"))
        assert p.parse_arith() == BinaryOp("+", a, L(1))
        assert p.peek().value == "="

    def test_dangling_operator(self):
        err = fails("parse_arith", "a +")
        assert "expected an expression" in err.message and err.position == 3


class TestParseComparison:
    @pytest.mark.parametrize("op", ["=", "<>", "<", "<=", ">", ">="])
    def test_operators(self, op):
        assert run("parse_comparison", f"a {op} b + 1") == BinaryOp(op, a, BinaryOp("+", b, L(1)))

    def test_bang_equal(self):
        assert run("parse_comparison", "a != 1") == BinaryOp("<>", a, L(1))

    @pytest.mark.parametrize(
        "sql, node",
        [
            ("a IS NULL", IsNull(a)),
            ("a IS NOT NULL", IsNull(a, True)),
            ("a IN (1, 2, b)", InList(a, (L(1), L(2), b))),
            ("a NOT IN ('x')", InList(a, (L("x"),), True)),
            ("a BETWEEN 1 AND b + 1", Between(a, L(1), BinaryOp("+", b, L(1)))),
            ("a NOT BETWEEN 1 AND 2", Between(a, L(1), L(2), True)),
            ("a LIKE 'x%'", Like(a, L("x%"))),
            ("a NOT LIKE b", Like(a, b, True)),
            ("a + 1", BinaryOp("+", a, L(1))),
        ],
    )
    def test_suffixes(self, sql, node):
        assert run("parse_comparison", sql) == node

    def test_comparisons_do_not_chain(self):
        p = Parser(tokenize("a = b = c"))
        assert p.parse_comparison() == BinaryOp("=", a, b)
        assert p.peek().value == "="

    def test_is_requires_null(self):
        err = fails("parse_comparison", "a IS 5")
        assert "expected NULL" in err.message and err.position == 5

    def test_not_must_introduce_in_between_like(self):
        err = fails("parse_comparison", "a NOT b")
        assert "expected IN, BETWEEN or LIKE" in err.message and err.position == 6

    def test_empty_in_list(self):
        err = fails("parse_comparison", "a IN ()")
        assert "expected an expression" in err.message

    def test_between_requires_and(self):
        err = fails("parse_comparison", "a BETWEEN 1 OR 2")
        assert "expected AND" in err.message


class TestParseExpression:
    @pytest.mark.parametrize(
        "sql, node",
        [
            ("a AND b", BinaryOp("AND", a, b)),
            ("a OR b AND c", BinaryOp("OR", a, BinaryOp("AND", b, c))),
            ("a AND b OR c", BinaryOp("OR", BinaryOp("AND", a, b), c)),
            ("a OR b OR c", BinaryOp("OR", BinaryOp("OR", a, b), c)),
            ("NOT a", UnaryOp("NOT", a)),
            ("NOT NOT a", UnaryOp("NOT", UnaryOp("NOT", a))),
            ("NOT a = 1", UnaryOp("NOT", BinaryOp("=", a, L(1)))),
            ("NOT a AND b", BinaryOp("AND", UnaryOp("NOT", a), b)),
            ("(a OR b) AND c", BinaryOp("AND", BinaryOp("OR", a, b), c)),
            ("(a + b) * c", BinaryOp("*", BinaryOp("+", a, b), c)),
        ],
    )
    def test_boolean_structure(self, sql, node):
        assert run("parse_expression", sql) == node

    def test_between_and_is_not_a_conjunction(self):
        node = run("parse_expression", "a BETWEEN 1 AND 2 AND b")
        assert node == BinaryOp("AND", Between(a, L(1), L(2)), b)

    def test_comparisons_inside_logic(self):
        node = run("parse_expression", "a > 1 AND b IS NULL OR c LIKE 'x'")
        assert node == BinaryOp(
            "OR", BinaryOp("AND", BinaryOp(">", a, L(1)), IsNull(b)), Like(c, L("x"))
        )

    def test_missing_close_paren(self):
        err = fails("parse_expression", "(a OR b")
        assert "expected ')'" in err.message and err.position == 7

    def test_dangling_and(self):
        err = fails("parse_expression", "a AND")
        assert "expected an expression" in err.message


class TestParseFunctionCall:
    @pytest.mark.parametrize(
        "sql, node",
        [
            ("count(*)", FunctionCall("count", (), star=True)),
            ("COUNT(*)", FunctionCall("count", (), star=True)),
            ("upper(a)", FunctionCall("upper", (a,))),
            ("coalesce(a, b, 0)", FunctionCall("coalesce", (a, b, L(0)))),
            ("count(DISTINCT a)", FunctionCall("count", (a,), distinct=True)),
            ("now()", FunctionCall("now", ())),
            ("sum(a * 2)", FunctionCall("sum", (BinaryOp("*", a, L(2)),))),
        ],
    )
    def test_calls(self, sql, node):
        assert run("parse_expression", sql) == node

    def test_nested_calls_and_boolean_args(self):
        node = run("parse_expression", "lower(trim(a)) = coalesce(b = 1, false)")
        inner = FunctionCall("lower", (FunctionCall("trim", (a,)),))
        assert node == BinaryOp("=", inner, FunctionCall("coalesce", (BinaryOp("=", b, L(1)), L(False))))

    def test_star_only_for_count(self):
        err = fails("parse_expression", "sum(*)")
        assert "only allowed in count(*)" in err.message and err.position == 4

    def test_distinct_needs_argument(self):
        err = fails("parse_expression", "count(DISTINCT)")
        assert "expected an expression" in err.message

    def test_unclosed(self):
        err = fails("parse_expression", "f(a, b")
        assert "expected ')'" in err.message


class TestParseCase:
    def test_searched(self):
        node = run("parse_expression", "CASE WHEN a > 1 THEN 'big' WHEN a IS NULL THEN 'none' ELSE 'small' END")
        assert node == Case(
            None,
            ((BinaryOp(">", a, L(1)), L("big")), (IsNull(a), L("none"))),
            L("small"),
        )

    def test_simple_without_else(self):
        node = run("parse_expression", "CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END")
        assert node == Case(a, ((L(1), L("one")), (L(2), L("two"))), None)

    def test_case_inside_arithmetic(self):
        node = run("parse_expression", "1 + CASE WHEN b THEN 1 ELSE 0 END")
        assert node == BinaryOp("+", L(1), Case(None, ((b, L(1)),), L(0)))

    def test_requires_when(self):
        err = fails("parse_expression", "CASE ELSE 1 END")
        assert "expected WHEN" in err.message and err.position == 5

    def test_requires_then(self):
        err = fails("parse_expression", "CASE WHEN a 1 END")
        assert "expected THEN" in err.message

    def test_requires_end(self):
        err = fails("parse_expression", "CASE WHEN a THEN 1")
        assert "expected END" in err.message
