"""Layer 4: query execution (minidb.executor.Executor).

The fixture database is built with the storage API (no SQL INSERT), so these
tests need the catalog and tables but not the Database facade.
"""

import pytest

from minidb.errors import CatalogError, ConstraintError, ExecutionError, TypeMismatchError
from minidb.executor import AccessPlan, Executor
from minidb.expressions import Scope
from minidb.lexer import tokenize
from minidb.parser import Parser, parse_sql
from minidb.result import Result
from minidb.storage import Catalog
from minidb.syntax import ColumnRef, SelectItem, Star

USERS = [
    (1, "ann", "paris", 30),
    (2, "bob", "london", None),
    (3, "cy", "paris", 25),
    (4, "dee", None, 41),
]
ORDERS = [
    (10, 1, 9.5, "paid"),
    (11, 1, 20.0, "open"),
    (12, 2, 5.0, "paid"),
    (13, 9, 1.0, "paid"),
    (14, 3, None, "open"),
]


def parser(sql):
    return Parser(tokenize(sql))


def build():
    cat = Catalog()
    users = cat.create_table(
        parser("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, age INT)")
        .parse_create_table()
    )
    orders = cat.create_table(
        parser("CREATE TABLE orders (id INT PRIMARY KEY, user_id INT, total REAL, status TEXT)")
        .parse_create_table()
    )
    for row in USERS:
        users.insert(dict(zip(users.column_names, row, strict=False)))
    for row in ORDERS:
        orders.insert(dict(zip(orders.column_names, row, strict=False)))
    cat.create_index(parser("CREATE INDEX orders_user ON orders (user_id)").parse_create_index())
    return cat


@pytest.fixture
def cat():
    return build()


def select(cat, sql, params=()):
    return Executor(cat, params).execute_select(parser(sql).parse_select())


def rows(cat, sql, params=()):
    return select(cat, sql, params)[1]


def expr(sql):
    return parser(sql).parse_expression()


class TestPlanAccess:
    @pytest.mark.parametrize(
        "table, binding, where, expected",
        [
            ("users", "users", None, AccessPlan("users")),
            ("users", "users", "id = 3", AccessPlan("users", "users_pkey", (3,))),
            ("users", "users", "3 = id", AccessPlan("users", "users_pkey", (3,))),
            ("users", "u", "u.id = 2", AccessPlan("users", "users_pkey", (2,))),
            ("users", "u", "x.id = 2", AccessPlan("users")),
            ("users", "users", "id > 3", AccessPlan("users")),
            ("users", "users", "id = 1 OR id = 2", AccessPlan("users")),
            ("users", "users", "name = 'ann' AND id = 1", AccessPlan("users", "users_pkey", (1,))),
            ("users", "users", "id = '1'", AccessPlan("users")),
            ("users", "users", "id = 1.0", AccessPlan("users", "users_pkey", (1.0,))),
            ("users", "users", "id = NULL", AccessPlan("users")),
            ("users", "users", "id = age", AccessPlan("users")),
            ("users", "users", "NOT id = 1", AccessPlan("users")),
            ("orders", "orders", "user_id = 1", AccessPlan("orders", "orders_user", (1,))),
            ("orders", "orders", "user_id = 1 AND id = 10", AccessPlan("orders", "orders_pkey", (10,))),
        ],
    )
    def test_choice(self, cat, table, binding, where, expected):
        plan = Executor(cat).plan_access(cat.get_table(table), binding, where and expr(where))
        assert plan == expected

    def test_parameters(self, cat):
        t = cat.get_table("users")
        assert Executor(cat, (4,)).plan_access(t, "users", expr("id = ?")) == AccessPlan("users", "users_pkey", (4,))
        assert Executor(cat, ()).plan_access(t, "users", expr("id = ?")) == AccessPlan("users")
        assert Executor(cat, (None,)).plan_access(t, "users", expr("id = ?")) == AccessPlan("users")

    def test_earlier_term_wins_between_non_unique(self, cat):
        cat.create_index(parser("CREATE INDEX orders_status ON orders (status)").parse_create_index())
        t = cat.get_table("orders")
        plan = Executor(cat).plan_access(t, "orders", expr("status = 'paid' AND user_id = 1"))
        assert plan.index == "orders_status"
        plan = Executor(cat).plan_access(t, "orders", expr("user_id = 1 AND status = 'paid'"))
        assert plan.index == "orders_user"


class TestBuildRows:
    def test_no_from(self, cat):
        scope, out = Executor(cat).build_rows(None, None)
        assert scope.sources == [] and out == [()]

    def test_scan_in_rowid_order(self, cat):
        scope, out = Executor(cat).build_rows(parser("FROM users u").parse_from(), None)
        assert scope.sources == [("u", ["id", "name", "city", "age"])]
        assert out == USERS

    def test_where_keeps_only_true(self, cat):
        _, out = Executor(cat).build_rows(parser("FROM users").parse_from(), expr("age > 26"))
        assert [r[1] for r in out] == ["ann", "dee"]

    def test_where_false_for_constant(self, cat):
        _, out = Executor(cat).build_rows(None, expr("1 = 2"))
        assert out == []

    def test_index_lookup_rows(self, cat):
        _, out = Executor(cat).build_rows(parser("FROM orders").parse_from(), expr("user_id = 1"))
        assert [r[0] for r in out] == [10, 11]

    def test_index_lookup_still_filters(self, cat):
        _, out = Executor(cat).build_rows(
            parser("FROM orders").parse_from(), expr("user_id = 1 AND status = 'paid'")
        )
        assert [r[0] for r in out] == [10]

    def test_where_must_be_boolean(self, cat):
        with pytest.raises(TypeMismatchError, match="WHERE clause must be a boolean"):
            Executor(cat).build_rows(parser("FROM users").parse_from(), expr("age"))

    def test_unknown_table(self, cat):
        with pytest.raises(CatalogError, match="no such table: nope"):
            Executor(cat).build_rows(parser("FROM nope").parse_from(), None)

    def test_joins_then_where(self, cat):
        scope, out = Executor(cat).build_rows(
            parser("FROM users u JOIN orders o ON o.user_id = u.id").parse_from(), expr("o.total > 6")
        )
        assert [b for b, _ in scope.sources] == ["u", "o"]
        assert [(r[1], r[4]) for r in out] == [("ann", 10), ("ann", 11)]


def join(cat, from_sql):
    fc = parser(from_sql).parse_from()
    t = cat.get_table(fc.first.name)
    scope = Scope([(fc.first.binding, t.column_names)])
    out = [row for _, row in t.scan()]
    ex = Executor(cat)
    for j in fc.joins:
        scope, out = ex.join_rows(scope, out, j)
    return scope, out


class TestJoinRows:
    def test_inner(self, cat):
        scope, out = join(cat, "FROM users JOIN orders ON orders.user_id = users.id")
        assert [(r[1], r[4]) for r in out] == [("ann", 10), ("ann", 11), ("bob", 12), ("cy", 14)]
        assert scope.width == 8

    def test_left_pads_with_nulls(self, cat):
        _, out = join(cat, "FROM users u LEFT JOIN orders o ON o.user_id = u.id")
        assert [(r[1], r[4]) for r in out] == [("ann", 10), ("ann", 11), ("bob", 12), ("cy", 14), ("dee", None)]
        assert out[-1] == (4, "dee", None, 41, None, None, None, None)

    def test_left_join_without_any_match(self, cat):
        _, out = join(cat, "FROM users u LEFT JOIN orders o ON false")
        assert len(out) == 4 and all(r[4:] == (None,) * 4 for r in out)

    def test_cross(self, cat):
        _, out = join(cat, "FROM users, orders")
        assert len(out) == 20
        assert [(r[0], r[4]) for r in out[:6]] == [(1, 10), (1, 11), (1, 12), (1, 13), (1, 14), (2, 10)]

    def test_scope_sources(self, cat):
        scope, _ = join(cat, "FROM users u CROSS JOIN orders")
        assert scope.sources == [
            ("u", ["id", "name", "city", "age"]),
            ("orders", ["id", "user_id", "total", "status"]),
        ]

    def test_null_never_joins(self, cat):
        _, out = join(cat, "FROM users a JOIN users b ON a.city = b.city")
        assert [(r[1], r[5]) for r in out] == [
            ("ann", "ann"),
            ("ann", "cy"),
            ("bob", "bob"),
            ("cy", "ann"),
            ("cy", "cy"),
        ]

    def test_three_tables(self, cat):
        _, out = join(
            cat, "FROM orders o JOIN users u ON u.id = o.user_id JOIN users v ON v.city = u.city AND v.id <> u.id"
        )
        assert [(r[0], r[9]) for r in out] == [(10, "cy"), (11, "cy"), (14, "ann")]

    def test_on_must_be_boolean(self, cat):
        with pytest.raises(TypeMismatchError):
            join(cat, "FROM users JOIN orders ON orders.total")

    def test_duplicate_binding(self, cat):
        with pytest.raises(ExecutionError, match="specified more than once"):
            join(cat, "FROM users JOIN users ON true")

    def test_unknown_table(self, cat):
        with pytest.raises(CatalogError):
            join(cat, "FROM users JOIN nope ON true")


class TestExpandSelectItems:
    @pytest.fixture
    def scope(self):
        return Scope([("u", ["id", "name"]), ("o", ["id", "total"])])

    def items(self, sql):
        return parser(sql).parse_select().items

    def test_star(self, cat, scope):
        out = Executor(cat).expand_select_items(self.items("SELECT *"), scope)
        assert out == [
            ("id", ColumnRef("id", "u")),
            ("name", ColumnRef("name", "u")),
            ("id", ColumnRef("id", "o")),
            ("total", ColumnRef("total", "o")),
        ]

    def test_qualified_star(self, cat, scope):
        out = Executor(cat).expand_select_items(self.items("SELECT o.*, u.name"), scope)
        assert [n for n, _ in out] == ["id", "total", "name"]
        assert out[0][1] == ColumnRef("id", "o")

    @pytest.mark.parametrize(
        "sql, names",
        [
            ("SELECT name, u.id", ["name", "id"]),
            ("SELECT total AS t, name n", ["t", "n"]),
            ("SELECT count(*), upper(name)", ["count", "upper"]),
            ("SELECT 1, total * 2, -total", ["?column?", "?column?", "?column?"]),
        ],
    )
    def test_names(self, cat, scope, sql, names):
        assert [n for n, _ in Executor(cat).expand_select_items(self.items(sql), scope)] == names

    def test_star_without_from(self, cat):
        with pytest.raises(ExecutionError, match="no tables specified"):
            Executor(cat).expand_select_items((SelectItem(Star()),), Scope([]))

    def test_unknown_qualified_star(self, cat, scope):
        with pytest.raises(CatalogError, match="no such table: x"):
            Executor(cat).expand_select_items(self.items("SELECT x.*"), scope)


class TestExecuteSelect:
    def test_without_from(self, cat):
        assert select(cat, "SELECT 1 + 1, 'x' AS s") == (["?column?", "s"], [(2, "x")])

    def test_star(self, cat):
        assert select(cat, "SELECT * FROM users") == (["id", "name", "city", "age"], USERS)

    @pytest.mark.parametrize(
        "sql, expected",
        [
            ("SELECT name FROM users WHERE city = 'paris'", [("ann",), ("cy",)]),
            ("SELECT name FROM users WHERE city <> 'paris'", [("bob",)]),
            ("SELECT name FROM users WHERE NOT city = 'paris'", [("bob",)]),
            ("SELECT name FROM users WHERE city IS NULL", [("dee",)]),
            ("SELECT name FROM users WHERE age >= 30 OR city = 'london'", [("ann",), ("bob",), ("dee",)]),
            ("SELECT name FROM users WHERE age BETWEEN 25 AND 30", [("ann",), ("cy",)]),
            ("SELECT name FROM users WHERE name LIKE '%e%'", [("dee",)]),
            ("SELECT name FROM users WHERE age IN (25, 41)", [("cy",), ("dee",)]),
            ("SELECT name FROM users WHERE age NOT IN (25, NULL)", []),
            ("SELECT id FROM orders WHERE total > 5", [(10,), (11,)]),
            ("SELECT name || '@' || city FROM users WHERE id < 3", [("ann@paris",), ("bob@london",)]),
            ("SELECT coalesce(city, '?'), age / 10 FROM users WHERE id > 2", [("paris", 2), ("?", 4)]),
            ("SELECT id * 2 AS x FROM orders WHERE total IS NULL", [(28,)]),
            ("SELECT u.name FROM users u WHERE u.id = 2", [("bob",)]),
            ("SELECT name FROM users WHERE id = 99", []),
        ],
    )
    def test_filter_and_project(self, cat, sql, expected):
        assert rows(cat, sql) == expected

    @pytest.mark.parametrize(
        "clause, ids",
        [
            ("LIMIT 2", [1, 2]),
            ("LIMIT 0", []),
            ("OFFSET 3", [4]),
            ("LIMIT 2 OFFSET 1", [2, 3]),
            ("LIMIT 10 OFFSET 3", [4]),
            ("OFFSET 9", []),
            ("LIMIT NULL", [1, 2, 3, 4]),
            ("LIMIT 1 + 1", [1, 2]),
        ],
    )
    def test_limit_offset(self, cat, clause, ids):
        assert rows(cat, f"SELECT id FROM users {clause}") == [(i,) for i in ids]

    def test_limit_parameter(self, cat):
        assert rows(cat, "SELECT id FROM users WHERE age > ? LIMIT ?", (20, 1)) == [(1,)]

    @pytest.mark.parametrize("clause", ["LIMIT -1", "LIMIT 'a'", "OFFSET 1.5", "LIMIT true"])
    def test_bad_limit(self, cat, clause):
        with pytest.raises(ExecutionError, match="must be a non-negative integer"):
            rows(cat, f"SELECT id FROM users {clause}")

    def test_distinct(self, cat):
        assert rows(cat, "SELECT DISTINCT city FROM users") == [("paris",), ("london",), (None,)]
        assert rows(cat, "SELECT DISTINCT status, user_id = 1 FROM orders") == [
            ("paid", True),
            ("open", True),
            ("paid", False),
            ("open", False),
        ]

    def test_distinct_then_limit(self, cat):
        assert rows(cat, "SELECT DISTINCT status FROM orders LIMIT 1 OFFSET 1") == [("open",)]

    def test_empty_table(self, cat):
        cat.create_table(parser("CREATE TABLE e (x INT)").parse_create_table())
        assert select(cat, "SELECT x, x + 1 FROM e") == (["x", "?column?"], [])

    def test_unknown_column(self, cat):
        with pytest.raises(CatalogError, match="no such column: zip"):
            rows(cat, "SELECT zip FROM users")

    def test_aggregate_in_where(self, cat):
        with pytest.raises(ExecutionError, match="misuse of aggregate"):
            rows(cat, "SELECT id FROM users WHERE count(*) > 1")

    def test_runtime_error_propagates(self, cat):
        with pytest.raises(ExecutionError, match="division by zero"):
            rows(cat, "SELECT age / 0 FROM users")


class TestGroupRows:
    @pytest.mark.parametrize(
        "sql, expected",
        [
            ("SELECT count(*) FROM users", [(4,)]),
            ("SELECT count(age), sum(age), avg(age), min(age), max(age) FROM users", [(3, 96, 32.0, 25, 41)]),
            ("SELECT count(*), sum(age), max(name) FROM users WHERE age > 100", [(0, None, None)]),
            ("SELECT city, count(*) FROM users GROUP BY city", [("paris", 2), ("london", 1), (None, 1)]),
            ("SELECT city, count(*) FROM users WHERE age > 100 GROUP BY city", []),
            ("SELECT city FROM users GROUP BY city HAVING count(*) > 1", [("paris",)]),
            ("SELECT status, max(total), count(total) FROM orders GROUP BY status", [("paid", 9.5, 3), ("open", 20.0, 1)]),
            ("SELECT count(DISTINCT status), count(status) FROM orders", [(2, 5)]),
            ("SELECT age > 28, count(*) FROM users GROUP BY age > 28", [(True, 2), (None, 1), (False, 1)]),
            ("SELECT city, name FROM users GROUP BY city", [("paris", "ann"), ("london", "bob"), (None, "dee")]),
            ("SELECT count(*) FROM users HAVING count(*) > 10", []),
            ("SELECT max(age) - min(age) AS spread FROM users", [(16,)]),
            ("SELECT user_id, sum(total) FROM orders GROUP BY user_id HAVING sum(total) IS NULL", [(3, None)]),
            ("SELECT status, user_id > 1, count(*) FROM orders GROUP BY status, user_id > 1",
             [("paid", False, 1), ("open", False, 1), ("paid", True, 2), ("open", True, 1)]),
            ("SELECT sum(age) paris_age FROM users WHERE city = 'paris'", [(55,)]),
        ],
    )
    def test_queries(self, cat, sql, expected):
        assert rows(cat, sql) == expected

    def test_column_names(self, cat):
        assert select(cat, "SELECT city, count(*), sum(age) AS total FROM users GROUP BY city")[0] == [
            "city",
            "count",
            "total",
        ]

    def test_sum_of_text(self, cat):
        with pytest.raises(TypeMismatchError):
            rows(cat, "SELECT sum(name) FROM users")

    def test_wrong_argument_count(self, cat):
        with pytest.raises(ExecutionError, match="wrong number of arguments"):
            rows(cat, "SELECT max(age, id) FROM users")

    def test_nested_aggregates(self, cat):
        with pytest.raises(ExecutionError, match="nested"):
            rows(cat, "SELECT max(count(*)) FROM users")

    def test_having_must_be_boolean(self, cat):
        with pytest.raises(TypeMismatchError):
            rows(cat, "SELECT city FROM users GROUP BY city HAVING count(*)")


class TestApplyOrderBy:
    @pytest.mark.parametrize(
        "sql, expected",
        [
            ("SELECT name FROM users ORDER BY age", ["cy", "ann", "dee", "bob"]),
            ("SELECT name FROM users ORDER BY age DESC", ["bob", "dee", "ann", "cy"]),
            ("SELECT name FROM users ORDER BY age ASC NULLS FIRST", ["bob", "cy", "ann", "dee"]),
            ("SELECT name FROM users ORDER BY age DESC NULLS LAST", ["dee", "ann", "cy", "bob"]),
            ("SELECT name FROM users ORDER BY city, name DESC", ["bob", "cy", "ann", "dee"]),
            ("SELECT name, age FROM users ORDER BY 2", ["cy", "ann", "dee", "bob"]),
            ("SELECT name, age * 2 AS dbl FROM users ORDER BY dbl DESC", ["bob", "dee", "ann", "cy"]),
            ("SELECT name FROM users ORDER BY length(name) DESC, name", ["ann", "bob", "dee", "cy"]),
            ("SELECT name FROM users ORDER BY id DESC LIMIT 2", ["dee", "cy"]),
            ("SELECT name, -age AS age FROM users ORDER BY age", ["dee", "ann", "cy", "bob"]),
            ("SELECT name FROM users u ORDER BY u.age", ["cy", "ann", "dee", "bob"]),
            ("SELECT DISTINCT city FROM users ORDER BY city DESC", [None, "paris", "london"]),
        ],
    )
    def test_orders(self, cat, sql, expected):
        assert [r[0] for r in rows(cat, sql)] == expected

    def test_order_by_aggregate(self, cat):
        out = rows(cat, "SELECT user_id, count(*) FROM orders GROUP BY user_id ORDER BY count(*) DESC, user_id")
        assert out == [(1, 2), (2, 1), (3, 1), (9, 1)]

    def test_order_by_aggregate_not_selected(self, cat):
        out = rows(cat, "SELECT status FROM orders GROUP BY status ORDER BY sum(total)")
        assert out == [("paid",), ("open",)]

    @pytest.mark.parametrize("pos", [0, 3])
    def test_position_out_of_range(self, cat, pos):
        with pytest.raises(ExecutionError, match=f"ORDER BY position {pos} is out of range"):
            rows(cat, f"SELECT name, age FROM users ORDER BY {pos}")

    def test_unknown_order_column(self, cat):
        with pytest.raises(CatalogError):
            rows(cat, "SELECT name FROM users ORDER BY nope")


class TestRunSubquery:
    @pytest.mark.parametrize(
        "sql, expected",
        [
            ("SELECT name FROM users WHERE id IN (SELECT user_id FROM orders)", ["ann", "bob", "cy"]),
            ("SELECT name FROM users WHERE id NOT IN (SELECT user_id FROM orders)", ["dee"]),
            ("SELECT name FROM users WHERE age NOT IN (SELECT age FROM users WHERE city = 'london')", []),
            ("SELECT name FROM users WHERE age IN (SELECT age FROM users WHERE id > 2)", ["cy", "dee"]),
            ("SELECT name FROM users u WHERE EXISTS "
             "(SELECT 1 FROM orders o WHERE o.user_id = u.id AND o.status = 'open')", ["ann", "cy"]),
            ("SELECT name FROM users u WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.user_id = u.id)", ["dee"]),
            ("SELECT name FROM users WHERE id IN (SELECT id FROM orders WHERE total > 10)", []),
            ("SELECT id FROM orders WHERE EXISTS "
             "(SELECT 1 FROM users WHERE users.id = orders.user_id AND city = 'paris')", [10, 11, 14]),
            ("SELECT name FROM users WHERE age = (SELECT max(age) FROM users)", ["dee"]),
            ("SELECT (SELECT name FROM users WHERE id = 99)", [None]),
            ("SELECT NULL IN (SELECT id FROM users WHERE id > 100)", [False]),
            ("SELECT NULL IN (SELECT id FROM users)", [None]),
            ("SELECT 5 NOT IN (SELECT id FROM users WHERE id > 100)", [True]),
            ("SELECT EXISTS (SELECT * FROM users WHERE age > 40)", [True]),
        ],
    )
    def test_queries(self, cat, sql, expected):
        assert [r[0] for r in rows(cat, sql)] == expected

    def test_correlated_scalar_in_select_list(self, cat):
        out = rows(cat, "SELECT name, (SELECT count(*) FROM orders WHERE user_id = users.id) FROM users")
        assert out == [("ann", 2), ("bob", 1), ("cy", 1), ("dee", 0)]

    def test_scalar_more_than_one_row(self, cat):
        with pytest.raises(ExecutionError, match="more than one row"):
            rows(cat, "SELECT (SELECT id FROM users)")

    @pytest.mark.parametrize(
        "sql", ["SELECT (SELECT id, name FROM users WHERE id = 1)", "SELECT 1 IN (SELECT id, name FROM users)"]
    )
    def test_one_column_required(self, cat, sql):
        with pytest.raises(ExecutionError, match="exactly one column"):
            rows(cat, sql)


def stmt(sql):
    return parse_sql(sql)[0]


class TestExecuteInsert:
    def test_all_columns(self, cat):
        assert Executor(cat).execute_insert(stmt("INSERT INTO users VALUES (5, 'eve', 'rome', 22)")) == 1
        assert cat.get_table("users").rows[5] == (5, "eve", "rome", 22)

    def test_column_subset_gets_defaults(self, cat):
        cat.create_table(parser("CREATE TABLE d (a INT, b TEXT DEFAULT 'z', c INT)").parse_create_table())
        Executor(cat).execute_insert(stmt("INSERT INTO d (c, a) VALUES (3, 1)"))
        assert list(cat.get_table("d").rows.values()) == [(1, "z", 3)]

    def test_several_rows_and_expressions(self, cat):
        n = Executor(cat).execute_insert(
            stmt("INSERT INTO users (id, name) VALUES (5, upper('e')), (2 * 3, 'f' || 'g')")
        )
        assert n == 2
        assert [r[:2] for r in cat.get_table("users").rows.values()][-2:] == [(5, "E"), (6, "fg")]

    def test_parameters(self, cat):
        Executor(cat, (7, "gus")).execute_insert(stmt("INSERT INTO users (id, name) VALUES (?, ?)"))
        assert cat.get_table("users").rows[5] == (7, "gus", None, None)

    def test_wrong_value_count_inserts_nothing(self, cat):
        with pytest.raises(ExecutionError, match="expected 2 values, got 1"):
            Executor(cat).execute_insert(stmt("INSERT INTO users (id, name) VALUES (5, 'a'), (6)"))
        assert len(cat.get_table("users").rows) == 4

    def test_values_cannot_reference_columns(self, cat):
        with pytest.raises(CatalogError):
            Executor(cat).execute_insert(stmt("INSERT INTO users (id, name) VALUES (id, 'x')"))

    @pytest.mark.parametrize(
        "sql, message",
        [
            ("INSERT INTO nope VALUES (1)", "no such table"),
            ("INSERT INTO users (id, nick) VALUES (1, 'x')", "no such column"),
            ("INSERT INTO users (id, id) VALUES (1, 2)", "specified more than once"),
        ],
    )
    def test_catalog_errors(self, cat, sql, message):
        with pytest.raises(CatalogError, match=message):
            Executor(cat).execute_insert(stmt(sql))

    def test_insert_select(self, cat):
        cat.create_table(parser("CREATE TABLE names (n TEXT, a INT)").parse_create_table())
        n = Executor(cat).execute_insert(stmt("INSERT INTO names SELECT name, age FROM users WHERE city = 'paris'"))
        assert n == 2
        assert list(cat.get_table("names").rows.values()) == [("ann", 30), ("cy", 25)]

    def test_insert_select_column_mismatch(self, cat):
        with pytest.raises(ExecutionError, match="2 target columns but the SELECT returns 1"):
            Executor(cat).execute_insert(stmt("INSERT INTO users (id, name) SELECT id FROM orders"))

    def test_constraint_error(self, cat):
        with pytest.raises(ConstraintError):
            Executor(cat).execute_insert(stmt("INSERT INTO users VALUES (1, 'dup', NULL, NULL)"))


class TestExecuteUpdate:
    def test_all_rows(self, cat):
        assert Executor(cat).execute_update(stmt("UPDATE users SET city = 'x'")) == 4
        assert {r[2] for r in cat.get_table("users").rows.values()} == {"x"}

    def test_where_and_null_arithmetic(self, cat):
        assert Executor(cat).execute_update(stmt("UPDATE users SET age = age + 1 WHERE id <> 3")) == 3
        assert [r[3] for r in cat.get_table("users").rows.values()] == [31, None, 25, 42]

    def test_assignments_see_old_values(self, cat):
        Executor(cat).execute_update(stmt("UPDATE users SET name = city, city = name WHERE id = 1"))
        assert cat.get_table("users").rows[1] == (1, "paris", "ann", 30)

    def test_no_match(self, cat):
        assert Executor(cat).execute_update(stmt("UPDATE users SET age = 0 WHERE id = 99")) == 0

    def test_primary_key_change_keeps_index_consistent(self, cat):
        Executor(cat).execute_update(stmt("UPDATE users SET id = id + 100 WHERE id = 1"))
        pk = cat.get_table("users").indexes["users_pkey"]
        assert pk.lookup((101,)) == [1] and pk.lookup((1,)) == []
        assert rows(cat, "SELECT name FROM users WHERE id = 101") == [("ann",)]

    def test_parameters(self, cat):
        Executor(cat, ("z", 2)).execute_update(stmt("UPDATE users SET city = ? WHERE id = ?"))
        assert cat.get_table("users").rows[2][2] == "z"

    def test_constraint_violation(self, cat):
        with pytest.raises(ConstraintError):
            Executor(cat).execute_update(stmt("UPDATE users SET name = NULL WHERE id = 2"))

    @pytest.mark.parametrize(
        "sql, message",
        [
            ("UPDATE users SET nick = 'x'", "no such column"),
            ("UPDATE users SET age = 1, age = 2", "assigned more than once"),
            ("UPDATE nope SET a = 1", "no such table"),
        ],
    )
    def test_catalog_errors(self, cat, sql, message):
        with pytest.raises(CatalogError, match=message):
            Executor(cat).execute_update(stmt(sql))

    def test_type_error(self, cat):
        with pytest.raises(TypeMismatchError):
            Executor(cat).execute_update(stmt("UPDATE users SET age = 'old' WHERE id = 1"))


class TestExecuteDelete:
    def test_where(self, cat):
        assert Executor(cat).execute_delete(stmt("DELETE FROM users WHERE city = 'paris'")) == 2
        assert [r[1] for r in cat.get_table("users").rows.values()] == ["bob", "dee"]

    def test_all(self, cat):
        assert Executor(cat).execute_delete(stmt("DELETE FROM orders")) == 5
        assert cat.get_table("orders").rows == {}
        assert cat.get_table("orders").indexes["orders_user"].lookup((1,)) == []

    def test_by_index(self, cat):
        assert Executor(cat).execute_delete(stmt("DELETE FROM orders WHERE user_id = 1")) == 2
        assert sorted(r[0] for r in cat.get_table("orders").rows.values()) == [12, 13, 14]

    def test_condition_evaluated_before_deleting(self, cat):
        n = Executor(cat).execute_delete(stmt("DELETE FROM users WHERE (SELECT count(*) FROM users) > 3"))
        assert n == 4

    def test_null_condition_keeps_row(self, cat):
        assert Executor(cat).execute_delete(stmt("DELETE FROM users WHERE age < 100")) == 3
        assert [r[1] for r in cat.get_table("users").rows.values()] == ["bob"]

    def test_unknown_table(self, cat):
        with pytest.raises(CatalogError):
            Executor(cat).execute_delete(stmt("DELETE FROM nope"))


class TestExecutorExecute:
    def test_select_result(self, cat):
        result = Executor(cat).execute(stmt("SELECT id, name FROM users WHERE id < 3"))
        assert result == Result(["id", "name"], [(1, "ann"), (2, "bob")], 2)

    def test_dml_rowcounts(self, cat):
        ex = Executor(cat)
        assert ex.execute(stmt("INSERT INTO users (id, name) VALUES (8, 'h'), (9, 'i')")) == Result([], [], 2)
        assert ex.execute(stmt("UPDATE users SET age = 1 WHERE id > 7")).rowcount == 2
        assert ex.execute(stmt("DELETE FROM users WHERE age = 1")).rowcount == 2

    def test_create_and_drop_table(self, cat):
        ex = Executor(cat)
        assert ex.execute(stmt("CREATE TABLE t (a INT)")) == Result()
        assert "t" in cat.tables
        ex.execute(stmt("CREATE TABLE IF NOT EXISTS t (b INT)"))
        assert ex.execute(stmt("DROP TABLE t")) == Result()
        assert "t" not in cat.tables
        ex.execute(stmt("DROP TABLE IF EXISTS t"))

    def test_create_and_drop_index(self, cat):
        ex = Executor(cat)
        ex.execute(stmt("CREATE UNIQUE INDEX users_name ON users (name)"))
        assert cat.indexes["users_name"].unique
        ex.execute(stmt("DROP INDEX users_name"))
        assert "users_name" not in cat.indexes
        ex.execute(stmt("DROP INDEX IF EXISTS users_name"))

    def test_errors_propagate(self, cat):
        with pytest.raises(CatalogError):
            Executor(cat).execute(stmt("DROP TABLE nope"))

    @pytest.mark.parametrize("sql", ["BEGIN", "COMMIT", "ROLLBACK"])
    def test_transaction_statements_rejected(self, cat, sql):
        with pytest.raises(ExecutionError, match="handled by Database"):
            Executor(cat).execute(stmt(sql))
