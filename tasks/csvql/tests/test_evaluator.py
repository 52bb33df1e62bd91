import pytest

from csvql import QueryTypeError, UnknownColumnError, evaluate
from csvql.nodes import Aggregate, And, ColumnRef, Compare, IsNull, Literal, Not, Or

T, F, U = Literal(True), Literal(False), Literal(None)
TRUE_CMP = Compare("=", Literal(1), Literal(1))
FALSE_CMP = Compare("=", Literal(1), Literal(2))
NULL_CMP = Compare("=", Literal(None), Literal(1))


class TestEvaluate:
    def test_column_and_literal(self):
        env = {"a": 5}
        assert evaluate(ColumnRef("a"), env) == 5
        assert evaluate(Literal("x"), env) == "x"

    def test_unknown_column(self):
        with pytest.raises(UnknownColumnError) as info:
            evaluate(ColumnRef("zz"), {"a": 1})
        assert info.value.column == "zz"

    def test_aggregate_reads_label(self):
        assert evaluate(Aggregate("COUNT", None), {"COUNT(*)": 3}) == 3
        with pytest.raises(UnknownColumnError):
            evaluate(Aggregate("SUM", ColumnRef("x")), {"x": 1})

    @pytest.mark.parametrize(
        "op, left, right, expected",
        [
            ("=", 3, 3.0, True),
            ("!=", 3, 4, True),
            ("<", 2, 10, True),
            ("<=", 2, 2, True),
            (">", "b", "a", True),
            (">=", "B", "a", False),
            ("<", False, True, True),
            ("=", "x", "x", True),
        ],
    )
    def test_comparisons(self, op, left, right, expected):
        assert evaluate(Compare(op, Literal(left), Literal(right)), {}) is expected

    def test_null_comparison_is_unknown(self):
        assert evaluate(Compare("=", ColumnRef("a"), Literal(1)), {"a": None}) is None
        assert evaluate(Compare("!=", Literal(None), Literal(None)), {}) is None

    @pytest.mark.parametrize("left, right", [(3, "3"), (1, True), ("true", True)])
    def test_type_mismatch(self, left, right):
        with pytest.raises(QueryTypeError):
            evaluate(Compare("=", Literal(left), Literal(right)), {})

    def test_is_null(self):
        assert evaluate(IsNull(ColumnRef("a")), {"a": None}) is True
        assert evaluate(IsNull(ColumnRef("a"), negated=True), {"a": None}) is False
        assert evaluate(IsNull(ColumnRef("a"), negated=True), {"a": 0}) is True

    @pytest.mark.parametrize(
        "left, right, expected",
        [(TRUE_CMP, TRUE_CMP, True), (TRUE_CMP, FALSE_CMP, False), (NULL_CMP, FALSE_CMP, False),
         (NULL_CMP, TRUE_CMP, None), (NULL_CMP, NULL_CMP, None)],
    )
    def test_and_three_valued(self, left, right, expected):
        assert evaluate(And(left, right), {}) is expected

    @pytest.mark.parametrize(
        "left, right, expected",
        [(FALSE_CMP, FALSE_CMP, False), (FALSE_CMP, TRUE_CMP, True), (NULL_CMP, TRUE_CMP, True),
         (NULL_CMP, FALSE_CMP, None), (NULL_CMP, NULL_CMP, None)],
    )
    def test_or_three_valued(self, left, right, expected):
        assert evaluate(Or(left, right), {}) is expected

    def test_not(self):
        assert evaluate(Not(TRUE_CMP), {}) is False
        assert evaluate(Not(FALSE_CMP), {}) is True
        assert evaluate(Not(NULL_CMP), {}) is None

    def test_no_short_circuit(self):
        bad = Compare("=", Literal(1), Literal("1"))
        with pytest.raises(QueryTypeError):
            evaluate(And(FALSE_CMP, bad), {})
        with pytest.raises(QueryTypeError):
            evaluate(Or(TRUE_CMP, bad), {})

    def test_non_boolean_operand(self):
        with pytest.raises(QueryTypeError):
            evaluate(Not(Literal(3)), {})
        with pytest.raises(QueryTypeError):
            evaluate(And(ColumnRef("a"), TRUE_CMP), {"a": "yes"})

    def test_not_an_expression(self):
        with pytest.raises(TypeError):
            evaluate("a = 1", {})
