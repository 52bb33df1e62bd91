import pytest

from csvql import QueryError, QueryTypeError, Table, UnknownColumnError, parse, plan
from csvql.nodes import Aggregate, ColumnRef


def table():
    return Table(
        name="t",
        columns=["name", "dept", "salary", "rate"],
        types=["str", "str", "int", "float"],
        rows=[],
    )


def make(query):
    return plan(parse(query), table())


class TestPlan:
    def test_star_expands(self):
        p = make("SELECT * FROM t")
        assert p.outputs == [(c, ColumnRef(c)) for c in ["name", "dept", "salary", "rate"]]
        assert not p.grouped

    def test_outputs_with_alias(self):
        p = make("SELECT name AS who, salary FROM t")
        assert p.outputs == [("who", ColumnRef("name")), ("salary", ColumnRef("salary"))]

    def test_where_and_limit_are_carried(self):
        sel = parse("SELECT name FROM t WHERE salary > 3 LIMIT 2")
        p = plan(sel, table())
        assert p.where == sel.where
        assert p.limit == 2

    def test_aggregate_makes_query_grouped(self):
        p = make("SELECT COUNT(*), AVG(salary) FROM t")
        assert p.grouped and p.group_by == []
        assert p.aggregates == [Aggregate("COUNT", None), Aggregate("AVG", ColumnRef("salary"))]

    def test_group_by_without_aggregates_is_grouped(self):
        p = make("SELECT dept FROM t GROUP BY dept")
        assert p.grouped and p.group_by == ["dept"]

    def test_duplicate_aggregates_computed_once(self):
        p = make("SELECT dept, SUM(salary), SUM(salary) AS s FROM t GROUP BY dept ORDER BY SUM(salary)")
        assert p.aggregates == [Aggregate("SUM", ColumnRef("salary"))]
        assert p.order_by == [("SUM(salary)", False)]

    def test_order_by_aggregate_not_in_select_is_added(self):
        p = make("SELECT dept FROM t GROUP BY dept ORDER BY MAX(rate) DESC")
        assert p.aggregates == [Aggregate("MAX", ColumnRef("rate"))]
        assert p.order_by == [("MAX(rate)", True)]

    def test_order_by_alias_and_table_column(self):
        p = make("SELECT name AS who FROM t ORDER BY who DESC, salary")
        assert p.order_by == [("who", True), ("salary", False)]

    @pytest.mark.parametrize(
        "query, column",
        [
            ("SELECT nope FROM t", "nope"),
            ("SELECT SUM(nope) FROM t", "nope"),
            ("SELECT name FROM t WHERE nope = 1", "nope"),
            ("SELECT name FROM t WHERE NOT (salary > 1 OR nope IS NULL)", "nope"),
            ("SELECT COUNT(*) FROM t GROUP BY nope", "nope"),
            ("SELECT name FROM t ORDER BY nope", "nope"),
            ("SELECT Name FROM t", "Name"),
        ],
    )
    def test_unknown_columns(self, query, column):
        with pytest.raises(UnknownColumnError) as info:
            make(query)
        assert info.value.column == column

    def test_aggregate_in_where(self):
        with pytest.raises(QueryError, match="WHERE"):
            make("SELECT name FROM t WHERE COUNT(*) > 1")

    def test_star_with_group_by(self):
        with pytest.raises(QueryError):
            make("SELECT * FROM t GROUP BY dept")

    def test_ungrouped_column_with_aggregate(self):
        with pytest.raises(QueryError):
            make("SELECT name, COUNT(*) FROM t")
        with pytest.raises(QueryError):
            make("SELECT name, dept FROM t GROUP BY dept")

    def test_order_by_non_group_column(self):
        with pytest.raises(QueryError):
            make("SELECT dept, COUNT(*) FROM t GROUP BY dept ORDER BY salary")

    def test_order_by_aggregate_without_grouping(self):
        with pytest.raises(QueryError):
            make("SELECT name FROM t ORDER BY COUNT(*)")

    @pytest.mark.parametrize("func", ["SUM", "AVG"])
    def test_numeric_aggregates_need_numeric_columns(self, func):
        with pytest.raises(QueryTypeError):
            make(f"SELECT {func}(name) FROM t")

    def test_min_max_count_accept_text(self):
        p = make("SELECT MIN(name), MAX(name), COUNT(name) FROM t")
        assert len(p.aggregates) == 3

    def test_error_order_select_before_where(self):
        with pytest.raises(UnknownColumnError) as info:
            make("SELECT a1 FROM t WHERE a2 = 1")
        assert info.value.column == "a1"
