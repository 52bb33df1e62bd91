import pytest

from csvql import QueryTypeError, Result, Table, execute, filter_rows, group_rows, parse, plan, sort_rows
from csvql.nodes import ColumnRef, Compare, Literal

ROWS = [
    {"name": "ada", "dept": "eng", "salary": 120},
    {"name": "bob", "dept": "ops", "salary": 80},
    {"name": "cy", "dept": "eng", "salary": None},
    {"name": "dee", "dept": None, "salary": 95},
    {"name": "eve", "dept": "ops", "salary": 80},
]


def people():
    return Table(
        name="people",
        columns=["name", "dept", "salary"],
        types=["str", "str", "int"],
        rows=[tuple(r.values()) for r in ROWS],
    )


def run(query, table=None):
    return execute(plan(parse(query), table or people()))


class TestFilterRows:
    def test_keeps_true_rows_in_order(self):
        out = filter_rows(ROWS, Compare(">", ColumnRef("salary"), Literal(85)))
        assert [r["name"] for r in out] == ["ada", "dee"]

    def test_unknown_is_dropped(self):
        out = filter_rows(ROWS, Compare("!=", ColumnRef("dept"), Literal("eng")))
        assert [r["name"] for r in out] == ["bob", "eve"]

    def test_no_condition_copies(self):
        out = filter_rows(ROWS, None)
        assert out == ROWS and out is not ROWS

    def test_errors_propagate(self):
        with pytest.raises(QueryTypeError):
            filter_rows(ROWS, Compare("=", ColumnRef("salary"), Literal("80")))


class TestGroupRows:
    def test_groups_in_first_appearance_order(self):
        groups = group_rows(ROWS, ["dept"])
        assert [k for k, _ in groups] == [("eng",), ("ops",), (None,)]
        assert [r["name"] for r in groups[0][1]] == ["ada", "cy"]
        assert [r["name"] for r in groups[1][1]] == ["bob", "eve"]

    def test_multiple_keys(self):
        groups = group_rows(ROWS, ["dept", "salary"])
        assert [k for k, _ in groups] == [("eng", 120), ("ops", 80), ("eng", None), (None, 95)]
        assert len(groups[1][1]) == 2

    def test_no_keys_one_group(self):
        assert group_rows(ROWS, []) == [((), ROWS)]
        assert group_rows([], []) == [((), [])]

    def test_keys_and_no_rows(self):
        assert group_rows([], ["dept"]) == []


class TestSortRows:
    def test_ascending_nulls_first(self):
        out = sort_rows(ROWS, [("salary", False)])
        assert [r["name"] for r in out] == ["cy", "bob", "eve", "dee", "ada"]

    def test_descending_nulls_last_and_stable(self):
        out = sort_rows(ROWS, [("salary", True)])
        assert [r["name"] for r in out] == ["ada", "dee", "bob", "eve", "cy"]

    def test_multiple_keys(self):
        out = sort_rows(ROWS, [("dept", True), ("name", True)])
        assert [r["name"] for r in out] == ["eve", "bob", "cy", "ada", "dee"]

    def test_no_keys_copy(self):
        out = sort_rows(ROWS, [])
        assert out == ROWS and out is not ROWS

    def test_input_not_modified(self):
        rows = [dict(r) for r in ROWS]
        sort_rows(rows, [("name", True)])
        assert rows == ROWS

    def test_unorderable(self):
        with pytest.raises(QueryTypeError):
            sort_rows([{"v": 1}, {"v": "a"}], [("v", False)])


class TestExecute:
    def test_projection_and_where(self):
        r = run("SELECT name, salary FROM people WHERE salary >= 95")
        assert isinstance(r, Result)
        assert r.columns == ["name", "salary"]
        assert r.rows == [("ada", 120), ("dee", 95)]

    def test_star(self):
        r = run("SELECT * FROM people LIMIT 1")
        assert r.columns == ["name", "dept", "salary"]
        assert r.rows == [("ada", "eng", 120)]

    def test_order_limit(self):
        r = run("SELECT name FROM people ORDER BY salary DESC, name LIMIT 3")
        assert r.rows == [("ada",), ("dee",), ("bob",)]

    def test_order_by_alias(self):
        r = run("SELECT name AS who FROM people ORDER BY who DESC LIMIT 2")
        assert r.columns == ["who"]
        assert r.rows == [("eve",), ("dee",)]

    def test_order_by_column_not_selected(self):
        r = run("SELECT name FROM people WHERE salary IS NOT NULL ORDER BY salary, name DESC")
        assert r.rows == [("eve",), ("bob",), ("dee",), ("ada",)]

    def test_group_by_with_aggregates(self):
        r = run(
            "SELECT dept, COUNT(*) AS n, COUNT(salary), SUM(salary), AVG(salary), MIN(name), MAX(salary) "
            "FROM people GROUP BY dept"
        )
        assert r.columns == ["dept", "n", "COUNT(salary)", "SUM(salary)", "AVG(salary)", "MIN(name)", "MAX(salary)"]
        assert r.rows == [
            ("eng", 2, 1, 120, 120.0, "ada", 120),
            ("ops", 2, 2, 160, 80.0, "bob", 80),
            (None, 1, 1, 95, 95.0, "dee", 95),
        ]

    def test_group_order_by_aggregate(self):
        r = run("SELECT dept FROM people WHERE dept IS NOT NULL GROUP BY dept ORDER BY SUM(salary) DESC")
        assert r.rows == [("ops",), ("eng",)]

    def test_aggregate_over_whole_table(self):
        r = run("SELECT COUNT(*), SUM(salary) FROM people WHERE salary < 100")
        assert r.rows == [(3, 255)]

    def test_aggregate_over_no_rows(self):
        r = run("SELECT COUNT(*), SUM(salary), MAX(name) FROM people WHERE salary > 1000")
        assert r.rows == [(0, None, None)]

    def test_group_by_over_no_rows(self):
        r = run("SELECT dept, COUNT(*) FROM people WHERE salary > 1000 GROUP BY dept")
        assert r.rows == []

    def test_limit_zero(self):
        assert run("SELECT name FROM people LIMIT 0").rows == []

    def test_as_dicts(self):
        r = run("SELECT name AS n FROM people WHERE salary = 80")
        assert r.as_dicts() == [{"n": "bob"}, {"n": "eve"}]
