import pytest

from csvql import QuerySyntaxError, parse
from csvql.nodes import (
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
from csvql.parser import Parser
from csvql.tokenizer import tokenize


def parser(text):
    return Parser(tokenize(text))


def call(method, text):
    """Run one Parser method on ``text``; check it consumed everything."""
    p = parser(text)
    result = getattr(p, method)()
    assert p.current.kind == "EOF", f"stopped at {p.current}"
    return result


def call_error_pos(method, text):
    with pytest.raises(QuerySyntaxError) as info:
        getattr(parser(text), method)()
    return info.value.pos


def where(cond):
    return call("parse_condition", cond)


def predicate(text):
    return call("parse_predicate", text)


def syntax_error_pos(query):
    with pytest.raises(QuerySyntaxError) as info:
        parse(query)
    return info.value.pos


class TestAggregateSyntax:
    def test_count_star(self):
        assert call("parse_aggregate", "count(*)") == Aggregate("COUNT", None)

    def test_function_name_upper_cased(self):
        assert call("parse_aggregate", "Sum(price)") == Aggregate("SUM", ColumnRef("price"))

    def test_label(self):
        assert call("parse_aggregate", "avg( x )").label == "AVG(x)"

    def test_unknown_function(self):
        assert call_error_pos("parse_aggregate", "median(x)") == 0

    def test_star_only_for_count(self):
        assert call_error_pos("parse_aggregate", "SUM(*)") == 4

    def test_missing_paren(self):
        assert call_error_pos("parse_aggregate", "MAX(x") == 5


class TestSelectList:
    def test_star(self):
        assert call("parse_select_list", "*") == (Star(),)

    def test_columns_and_aliases(self):
        items = call("parse_select_list", 'a, b AS bee, "c d"')
        assert items == (SelectItem(ColumnRef("a")), SelectItem(ColumnRef("b"), "bee"), SelectItem(ColumnRef("c d")))

    def test_aggregates(self):
        items = call("parse_select_list", "COUNT(*), max(x) AS top")
        assert items == (SelectItem(Aggregate("COUNT", None)), SelectItem(Aggregate("MAX", ColumnRef("x")), "top"))

    def test_output_names(self):
        items = call("parse_select_list", "a, b AS bee, avg(c)")
        assert [i.output_name for i in items] == ["a", "bee", "AVG(c)"]

    def test_stops_before_from(self):
        p = parser("a, b FROM t")
        assert len(p.parse_select_list()) == 2
        assert p.current.value == "FROM"

    def test_star_must_be_alone(self):
        assert call_error_pos("parse_select_list", "*, a") == 1

    def test_missing_item(self):
        assert call_error_pos("parse_select_list", "FROM t") == 0

    def test_trailing_comma(self):
        assert call_error_pos("parse_select_list", "a, FROM t") == 3

    def test_number_is_not_an_item(self):
        assert call_error_pos("parse_select_list", "1") == 0

    def test_alias_needs_identifier(self):
        assert call_error_pos("parse_select_list", "a AS 'x'") == 5


class TestPredicate:
    @pytest.mark.parametrize("op", ["=", "!=", "<", "<=", ">", ">="])
    def test_comparisons(self, op):
        assert predicate(f"x {op} 3") == Compare(op, ColumnRef("x"), Literal(3))

    def test_literals(self):
        assert predicate("'a' = name") == Compare("=", Literal("a"), ColumnRef("name"))
        assert predicate("ok = TRUE") == Compare("=", ColumnRef("ok"), Literal(True))
        assert predicate("ok != false") == Compare("!=", ColumnRef("ok"), Literal(False))
        assert predicate("x = NULL") == Compare("=", ColumnRef("x"), Literal(None))
        assert predicate("x > -2.5") == Compare(">", ColumnRef("x"), Literal(-2.5))

    def test_column_to_column(self):
        assert predicate("a < b") == Compare("<", ColumnRef("a"), ColumnRef("b"))

    def test_is_null(self):
        assert predicate("x IS NULL") == IsNull(ColumnRef("x"), False)
        assert predicate("x is not null") == IsNull(ColumnRef("x"), True)

    def test_aggregate_operand(self):
        assert predicate("COUNT(*) > 1") == Compare(">", Aggregate("COUNT", None), Literal(1))

    def test_stops_after_predicate(self):
        p = parser("x = 1 AND y = 2")
        assert p.parse_predicate() == Compare("=", ColumnRef("x"), Literal(1))
        assert p.current.value == "AND"

    def test_missing_operator(self):
        assert call_error_pos("parse_predicate", "x 3") == 2

    def test_missing_right_operand(self):
        assert call_error_pos("parse_predicate", "x =") == 3

    def test_missing_left_operand(self):
        assert call_error_pos("parse_predicate", "= 3") == 0

    def test_is_without_null(self):
        assert call_error_pos("parse_predicate", "x IS 3") == 5


class TestCondition:
    def test_and_binds_tighter_than_or(self):
        a, b, c = (Compare("=", ColumnRef(n), Literal(1)) for n in "abc")
        assert where("a = 1 OR b = 1 AND c = 1") == Or(a, And(b, c))

    def test_left_associative(self):
        a, b, c = (Compare("=", ColumnRef(n), Literal(1)) for n in "abc")
        assert where("a = 1 OR b = 1 OR c = 1") == Or(Or(a, b), c)
        assert where("a = 1 AND b = 1 AND c = 1") == And(And(a, b), c)

    def test_parentheses(self):
        a, b, c = (Compare("=", ColumnRef(n), Literal(1)) for n in "abc")
        assert where("(a = 1 OR b = 1) AND c = 1") == And(Or(a, b), c)

    def test_not_binds_tighter_than_and(self):
        a, b = (Compare("=", ColumnRef(n), Literal(1)) for n in "ab")
        assert where("NOT a = 1 AND b = 1") == And(Not(a), b)

    def test_double_not(self):
        a = Compare("=", ColumnRef("a"), Literal(1))
        assert where("NOT NOT a = 1") == Not(Not(a))

    def test_not_parenthesised(self):
        a, b = (Compare("=", ColumnRef(n), Literal(1)) for n in "ab")
        assert where("NOT (a = 1 OR b = 1)") == Not(Or(a, b))

    def test_nested_parentheses(self):
        a = Compare("=", ColumnRef("a"), Literal(1))
        assert where("((a = 1))") == a

    def test_dangling_and(self):
        assert call_error_pos("parse_condition", "a = 1 AND") == 9

    def test_unclosed_paren(self):
        assert call_error_pos("parse_condition", "(x = 1") == 6


class TestOrderBy:
    def test_directions(self):
        assert call("parse_order_by", "ORDER BY a DESC, b, c ASC") == (OrderItem(ColumnRef("a"), True), OrderItem(ColumnRef("b"), False), OrderItem(ColumnRef("c"), False))

    def test_aggregate_key(self):
        assert call("parse_order_by", "order by COUNT(*) DESC") == (OrderItem(Aggregate("COUNT", None), True),)

    def test_stops_before_limit(self):
        p = parser("ORDER BY x desc LIMIT 3")
        assert p.parse_order_by() == (OrderItem(ColumnRef("x"), True),)
        assert p.current.value == "LIMIT"

    def test_missing_by(self):
        assert call_error_pos("parse_order_by", "ORDER a") == 6

    def test_missing_key(self):
        assert call_error_pos("parse_order_by", "ORDER BY LIMIT 3") == 9


class TestQuery:
    def test_full_query(self):
        sel = parse("SELECT a, b FROM t WHERE x > 3 AND y = 'z' ORDER BY a DESC LIMIT 5")
        assert sel == Select(
            items=(SelectItem(ColumnRef("a")), SelectItem(ColumnRef("b"))),
            table="t",
            where=And(Compare(">", ColumnRef("x"), Literal(3)), Compare("=", ColumnRef("y"), Literal("z"))),
            group_by=(),
            order_by=(OrderItem(ColumnRef("a"), True),),
            limit=5,
        )

    def test_minimal_query_defaults(self):
        sel = parse("select a from t")
        assert sel.table == "t"
        assert sel.where is None and sel.group_by == () and sel.order_by == () and sel.limit is None

    def test_group_by(self):
        sel = parse("SELECT a, b, COUNT(*) FROM t GROUP BY a, b")
        assert sel.group_by == ("a", "b")

    def test_limit_zero(self):
        assert parse("SELECT a FROM t LIMIT 0").limit == 0

    @pytest.mark.parametrize("limit, pos", [("2.5", 22), ("-1", 22), ("x", 22), ("", 21)])
    def test_bad_limit(self, limit, pos):
        assert syntax_error_pos(f"SELECT a FROM t LIMIT {limit}".rstrip()) == pos

    def test_missing_from(self):
        assert syntax_error_pos("SELECT a t") == 9

    def test_missing_table(self):
        assert syntax_error_pos("SELECT a FROM WHERE") == 14

    def test_clauses_out_of_order(self):
        assert syntax_error_pos("SELECT a FROM t LIMIT 1 WHERE a = 1") == 24

    def test_trailing_tokens(self):
        assert syntax_error_pos("SELECT a FROM t u") == 16

    def test_must_start_with_select(self):
        assert syntax_error_pos("FROM t SELECT a") == 0

    def test_where_clause_in_query(self):
        sel = parse("SELECT a FROM t WHERE a = 1 OR NOT b IS NULL")
        assert sel.where == Or(Compare("=", ColumnRef("a"), Literal(1)), Not(IsNull(ColumnRef("b"))))

    def test_order_by_clause_in_query(self):
        sel = parse("SELECT g, COUNT(*) FROM t GROUP BY g ORDER BY COUNT(*) DESC, g")
        assert sel.order_by == (OrderItem(Aggregate("COUNT", None), True), OrderItem(ColumnRef("g"), False))
