"""Layer 3: expression evaluation and three-valued logic (minidb.expressions)."""

import pytest

from minidb.errors import CatalogError, ExecutionError, TypeMismatchError
from minidb.expressions import (
    Evaluator,
    RowEnv,
    Scope,
    apply_arithmetic,
    apply_comparison,
    apply_logical,
    call_scalar_function,
    find_aggregates,
    like_match,
)
from minidb.lexer import tokenize
from minidb.parser import Parser
from minidb.syntax import ColumnRef, FunctionCall

T, F, U = True, False, None  # U: UNKNOWN (NULL)


def expr(sql):
    return Parser(tokenize(sql)).parse_expression()


def row_env(**cols):
    return RowEnv(Scope([("t", list(cols))]), tuple(cols.values()))


def ev(sql, params=(), **cols):
    return Evaluator(params).evaluate(expr(sql), row_env(**cols))


class TestApplyLogical:
    @pytest.mark.parametrize(
        "left, right, expected",
        [
            (T, T, T), (T, F, F), (T, U, U),
            (F, T, F), (F, F, F), (F, U, F),
            (U, T, U), (U, F, F), (U, U, U),
        ],
    )  # fmt: skip
    def test_and(self, left, right, expected):
        assert apply_logical("AND", left, right) is expected

    @pytest.mark.parametrize(
        "left, right, expected",
        [
            (T, T, T), (T, F, T), (T, U, T),
            (F, T, T), (F, F, F), (F, U, U),
            (U, T, T), (U, F, U), (U, U, U),
        ],
    )  # fmt: skip
    def test_or(self, left, right, expected):
        assert apply_logical("OR", left, right) is expected

    @pytest.mark.parametrize("value, expected", [(T, F), (F, T), (U, U)])
    def test_not(self, value, expected):
        assert apply_logical("NOT", value) is expected

    @pytest.mark.parametrize("op, left, right", [("AND", 1, True), ("OR", False, "x"), ("NOT", 0, None)])
    def test_non_boolean_operands(self, op, left, right):
        with pytest.raises(TypeMismatchError):
            apply_logical(op, left, right)

    def test_unknown_operator(self):
        with pytest.raises(ValueError):
            apply_logical("XOR", True, False)


class TestApplyComparison:
    @pytest.mark.parametrize(
        "op, left, right, expected",
        [
            ("=", 1, 1.0, T),
            ("=", "a", "A", F),
            ("<>", 1, 2, T),
            ("<", "apple", "banana", T),
            ("<=", 3, 3, T),
            (">", 2.5, 3, F),
            (">=", False, True, F),
            ("=", None, 1, U),
            ("<>", "x", None, U),
            ("=", None, None, U),
        ],
    )
    def test_results(self, op, left, right, expected):
        assert apply_comparison(op, left, right) is expected

    def test_incomparable(self):
        with pytest.raises(TypeMismatchError):
            apply_comparison("<", 1, "1")

    def test_null_beats_type_check(self):
        assert apply_comparison("=", None, "x") is None


class TestApplyArithmetic:
    @pytest.mark.parametrize(
        "op, left, right, expected",
        [
            ("+", 2, 3, 5),
            ("-", 2, 3.5, -1.5),
            ("*", 4, 2.5, 10.0),
            ("/", 7, 2, 3),
            ("/", -7, 2, -3),
            ("/", 7, -2, -3),
            ("/", 7.0, 2, 3.5),
            ("/", 1, 4.0, 0.25),
            ("%", 7, 3, 1),
            ("%", -7, 3, -1),
            ("%", 7, -3, 1),
            ("%", 7.5, 2, 1.5),
            ("||", "ab", "cd", "abcd"),
            ("||", "n=", 5, "n=5"),
            ("||", 1.5, True, "1.5true"),
        ],
    )
    def test_results(self, op, left, right, expected):
        result = apply_arithmetic(op, left, right)
        assert result == expected and type(result) is type(expected)

    @pytest.mark.parametrize("op", ["+", "-", "*", "/", "%", "||"])
    def test_null_propagates(self, op):
        assert apply_arithmetic(op, None, 1) is None
        assert apply_arithmetic(op, "a" if op == "||" else 1, None) is None

    @pytest.mark.parametrize("op, right", [("/", 0), ("%", 0), ("/", 0.0)])
    def test_division_by_zero(self, op, right):
        with pytest.raises(ExecutionError, match="division by zero"):
            apply_arithmetic(op, 5, right)

    @pytest.mark.parametrize("op, left, right", [("+", "a", 1), ("*", 2, "3"), ("-", True, 1)])
    def test_non_numbers(self, op, left, right):
        with pytest.raises(TypeMismatchError):
            apply_arithmetic(op, left, right)


class TestLikeMatch:
    @pytest.mark.parametrize(
        "value, pattern, expected",
        [
            ("hello", "hello", T),
            ("hello", "h%", T),
            ("hello", "%llo", T),
            ("hello", "%ell%", T),
            ("hello", "h_llo", T),
            ("hello", "h_lo", F),
            ("hello", "Hello", F),
            ("", "%", T),
            ("", "_", F),
            ("abc", "a%c%", T),
            ("100%", "100\\%", T),
            ("1000", "100\\%", F),
            ("a_b", "a\\_b", T),
            ("axb", "a\\_b", F),
            ("a.c", "a.c", T),
            ("abc", "a.c", F),
            ("line1\nline2", "line1%", T),
        ],
    )
    def test_patterns(self, value, pattern, expected):
        assert like_match(value, pattern) is expected

    def test_non_strings(self):
        with pytest.raises(TypeMismatchError):
            like_match(12, "1%")


class TestCallScalarFunction:
    @pytest.mark.parametrize(
        "name, args, expected",
        [
            ("upper", ["abC"], "ABC"),
            ("lower", ["AbC"], "abc"),
            ("trim", ["  a b \n"], "a b"),
            ("length", ["héllo"], 5),
            ("abs", [-3], 3),
            ("abs", [-2.5], 2.5),
            ("round", [2.5], 3.0),
            ("round", [-2.5], -3.0),
            ("round", [2.345, 2], 2.35),
            ("round", [2.4], 2.0),
            ("round", [7], 7),
            ("substr", ["hello", 2], "ello"),
            ("substr", ["hello", 2, 3], "ell"),
            ("substr", ["hello", 0, 2], "he"),
            ("substr", ["hello", 4, -1], ""),
            ("coalesce", [None, None, 3, 4], 3),
            ("coalesce", [None], None),
            ("nullif", [1, 1], None),
            ("nullif", [1, 2], 1),
            ("nullif", [None, 2], None),
            ("typeof", [None], "null"),
            ("typeof", [1], "integer"),
            ("typeof", [1.0], "real"),
            ("typeof", ["1"], "text"),
            ("typeof", [True], "boolean"),
        ],
    )
    def test_functions(self, name, args, expected):
        result = call_scalar_function(name, args)
        assert result == expected and type(result) is type(expected)

    @pytest.mark.parametrize("name, args", [("upper", [None]), ("abs", [None]), ("substr", ["x", None])])
    def test_null_in_null_out(self, name, args):
        assert call_scalar_function(name, args) is None

    def test_unknown_function(self):
        with pytest.raises(ExecutionError, match="no such function: frob"):
            call_scalar_function("frob", [1])

    @pytest.mark.parametrize("name, args", [("upper", []), ("upper", ["a", "b"]), ("coalesce", []), ("nullif", [1])])
    def test_wrong_argument_count(self, name, args):
        with pytest.raises(ExecutionError, match="wrong number of arguments"):
            call_scalar_function(name, args)

    def test_aggregate_is_misuse(self):
        with pytest.raises(ExecutionError, match=r"misuse of aggregate function sum\(\)"):
            call_scalar_function("sum", [1])

    @pytest.mark.parametrize("name, args", [("upper", [1]), ("abs", ["x"]), ("length", [True]), ("substr", ["x", "1"])])
    def test_wrong_argument_type(self, name, args):
        with pytest.raises(TypeMismatchError):
            call_scalar_function(name, args)

    def test_round_digits_must_be_non_negative(self):
        with pytest.raises(ExecutionError, match="non-negative"):
            call_scalar_function("round", [1.5, -1])


class TestFindAggregates:
    def test_collects_in_order_without_duplicates(self):
        found = find_aggregates([expr("sum(a) + count(*)"), expr("count(*) > 1 AND max(b) < 3")])
        assert [f.name for f in found] == ["sum", "count", "max"]

    def test_skips_none_and_plain_functions(self):
        assert find_aggregates([None, expr("upper(a) || 'x'"), expr("1")]) == []

    def test_distinct_is_a_different_call(self):
        found = find_aggregates([expr("count(a)"), expr("count(DISTINCT a)")])
        assert found == [FunctionCall("count", (ColumnRef("a"),)), FunctionCall("count", (ColumnRef("a"),), True)]

    def test_finds_inside_case_between_in_like(self):
        found = find_aggregates(
            [
                expr("CASE WHEN min(a) > 0 THEN avg(a) ELSE 0 END"),
                expr("sum(b) BETWEEN 1 AND max(b)"),
                expr("count(c) IN (1, 2)"),
                expr("upper(max(d)) LIKE 'A%'"),
            ]
        )
        assert [f.name for f in found] == ["min", "avg", "sum", "max", "count", "max"]

    def test_does_not_enter_subqueries(self):
        found = find_aggregates([expr("a IN (SELECT max(x) FROM s) AND EXISTS (SELECT count(*) FROM s)")])
        assert found == []

    def test_operand_of_in_subquery_is_searched(self):
        assert [f.name for f in find_aggregates([expr("sum(a) IN (SELECT x FROM s)")])] == ["sum"]

    def test_nested_aggregates(self):
        with pytest.raises(ExecutionError, match="cannot be nested"):
            find_aggregates([expr("sum(count(*))")])


class TestScopeResolve:
    @pytest.fixture
    def scope(self):
        return Scope([("u", ["id", "name"]), ("o", ["id", "user_id", "total"])])

    @pytest.mark.parametrize(
        "name, table, pos",
        [("name", None, 1), ("total", None, 4), ("id", "u", 0), ("id", "o", 2), ("user_id", "o", 3)],
    )
    def test_positions(self, scope, name, table, pos):
        assert scope.resolve(name, table) == pos

    def test_ambiguous(self, scope):
        with pytest.raises(ExecutionError, match="ambiguous column name: id"):
            scope.resolve("id")

    def test_not_here(self, scope):
        assert scope.resolve("zip") is None
        assert scope.resolve("id", "x") is None

    def test_bound_table_without_column(self, scope):
        with pytest.raises(CatalogError, match="no such column: u.total"):
            scope.resolve("total", "u")

    def test_duplicate_binding(self):
        with pytest.raises(ExecutionError, match="ambiguous table name"):
            Scope([("t", ["a"]), ("t", ["a"])]).resolve("a", "t")

    def test_empty_scope(self):
        assert Scope([]).resolve("a") is None and Scope([]).width == 0


class TestEvaluate:
    def test_literals_and_columns(self):
        assert ev("a", a=5) == 5
        assert ev("t.a", a="x") == "x"
        assert ev("'lit'") == "lit"

    def test_arithmetic_precedence(self):
        assert ev("a + b * 2", a=1, b=3) == 7
        assert ev("(a + b) * 2", a=1, b=3) == 8

    def test_unary_minus(self):
        assert ev("-a", a=4) == -4
        assert ev("-a", a=None) is None
        with pytest.raises(TypeMismatchError):
            ev("-a", a="x")

    def test_comparison_and_logic(self):
        assert ev("a > 1 AND b = 'x'", a=2, b="x") is True
        assert ev("a > 1 OR b = 'x'", a=None, b="y") is None
        assert ev("NOT (a = 1)", a=None) is None

    def test_and_short_circuits(self):
        assert ev("a <> 0 AND 1 / a > 0", a=0) is False
        assert ev("a = 0 OR 1 / a > 0", a=0) is True

    def test_short_circuit_still_needs_booleans(self):
        with pytest.raises(TypeMismatchError):
            ev("a AND true", a=1)

    def test_no_short_circuit_on_unknown(self):
        with pytest.raises(ExecutionError, match="division by zero"):
            ev("a AND 1 / 0 = 1", a=None)

    def test_parameters(self):
        assert ev("? + ?", params=(2, 3)) == 5
        with pytest.raises(ExecutionError, match="missing value for parameter 2"):
            ev("? + ?", params=(2,))

    def test_scalar_functions(self):
        assert ev("upper(a) || lower('X')", a="b") == "Bx"
        assert ev("coalesce(a, b, 0) + 1", a=None, b=None) == 1

    def test_unknown_column(self):
        with pytest.raises(CatalogError, match="no such column: zz"):
            ev("zz + 1", a=1)

    def test_outer_scope_lookup(self):
        outer = RowEnv(Scope([("o", ["x"])]), (10,))
        inner = RowEnv(Scope([("i", ["y", "x"])]), (1, 2), outer)
        ev_ = Evaluator().evaluate
        assert ev_(expr("y + o.x"), inner) == 11
        assert ev_(expr("x"), inner) == 2

    def test_none_env_is_empty(self):
        assert Evaluator().evaluate(expr("1 + 2")) == 3

    def test_aggregate_outside_group(self):
        with pytest.raises(ExecutionError, match="misuse of aggregate function count"):
            ev("count(*) + 1", a=1)

    def test_aggregate_value_from_env(self):
        call = FunctionCall("sum", (ColumnRef("a"),))
        env = RowEnv(Scope([("t", ["a"])]), (1,), None, {call: 42})
        assert Evaluator().evaluate(expr("sum(a) + a"), env) == 43

    def test_distinct_outside_aggregate(self):
        with pytest.raises(ExecutionError, match="DISTINCT"):
            ev("upper(DISTINCT a)", a="x")

    def test_subquery_needs_runner(self):
        with pytest.raises(ExecutionError, match="subqueries are not supported"):
            ev("EXISTS (SELECT 1)")

    def test_subquery_runner_called_with_env(self):
        seen = []

        def runner(node, env):
            seen.append((type(node).__name__, env.row))
            return 7

        env = row_env(a=1)
        assert Evaluator((), runner).evaluate(expr("(SELECT 1) + a"), env) == 8
        assert seen == [("ScalarSubquery", (1,))]


class TestEvalPredicate:
    @pytest.mark.parametrize(
        "sql, a, expected",
        [
            ("a IS NULL", None, T),
            ("a IS NULL", 0, F),
            ("a IS NOT NULL", None, F),
            ("a IS NOT NULL", "", T),
            ("a IN (1, 2, 3)", 2, T),
            ("a IN (1, 2, 3)", 5, F),
            ("a IN (1, NULL)", 1, T),
            ("a IN (1, NULL)", 5, U),
            ("a IN (1, 2)", None, U),
            ("a NOT IN (1, 2)", 5, T),
            ("a NOT IN (1, 2)", 1, F),
            ("a NOT IN (1, NULL)", 5, U),
            ("a BETWEEN 1 AND 3", 1, T),
            ("a BETWEEN 1 AND 3", 4, F),
            ("a BETWEEN NULL AND 3", 5, F),
            ("a BETWEEN NULL AND 3", 2, U),
            ("a NOT BETWEEN 1 AND 3", 0, T),
            ("a BETWEEN 'a' AND 'c'", "b", T),
            ("a LIKE 'x%'", "xyz", T),
            ("a LIKE 'x%'", None, U),
            ("a NOT LIKE 'x%'", "abc", T),
            ("a LIKE NULL", "abc", U),
        ],
    )
    def test_three_valued(self, sql, a, expected):
        assert ev(sql, a=a) is expected

    def test_in_stops_at_first_match(self):
        assert ev("a IN (1, 1 / 0)", a=1) is True

    def test_in_type_mismatch(self):
        with pytest.raises(TypeMismatchError):
            ev("a IN ('x')", a=1)

    def test_like_type_mismatch(self):
        with pytest.raises(TypeMismatchError):
            ev("a LIKE 'x'", a=5)


class TestEvalCase:
    def test_searched(self):
        sql = "CASE WHEN a > 10 THEN 'big' WHEN a > 5 THEN 'mid' ELSE 'small' END"
        assert [ev(sql, a=v) for v in (11, 6, 1, None)] == ["big", "mid", "small", "small"]

    def test_simple(self):
        sql = "CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END"
        assert [ev(sql, a=v) for v in (1, 2, 3)] == ["one", "two", None]

    def test_null_operand_never_matches(self):
        assert ev("CASE a WHEN NULL THEN 'null' ELSE 'other' END", a=None) == "other"

    def test_only_chosen_branch_is_evaluated(self):
        assert ev("CASE WHEN a = 0 THEN 0 ELSE 10 / a END", a=0) == 0

    def test_first_true_wins(self):
        assert ev("CASE WHEN true THEN 1 WHEN true THEN 2 END") == 1

    def test_condition_must_be_boolean(self):
        with pytest.raises(TypeMismatchError):
            ev("CASE WHEN a THEN 1 END", a=3)

    def test_result_can_be_expression(self):
        assert ev("CASE WHEN a IS NULL THEN b * 2 ELSE a END", a=None, b=4) == 8
