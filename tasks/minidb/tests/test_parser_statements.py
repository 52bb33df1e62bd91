"""Layer 2: statement parsing (Parser.parse_column_def ... parse_sql)."""

import pytest

from minidb.errors import SQLSyntaxError
from minidb.lexer import tokenize
from minidb.parser import Parser, parse_sql
from minidb.syntax import (
    Begin,
    BinaryOp,
    ColumnDef,
    ColumnRef,
    Commit,
    CreateIndex,
    CreateTable,
    Delete,
    DropIndex,
    DropTable,
    Exists,
    FromClause,
    FunctionCall,
    InSubquery,
    Insert,
    Join,
    Literal,
    OrderItem,
    Parameter,
    Rollback,
    ScalarSubquery,
    Select,
    SelectItem,
    Star,
    TableRef,
    UnaryOp,
    Update,
)
from minidb.tokens import TokenType

a, b = ColumnRef("a"), ColumnRef("b")


def L(v):
    return Literal(v)


def run(method, sql):
    p = Parser(tokenize(sql))
    node = getattr(p, method)()
    assert p.peek().type is TokenType.EOF, f"left over: {p.peek()}"
    return node


def fails(method, sql):
    with pytest.raises(SQLSyntaxError) as info:
        getattr(Parser(tokenize(sql)), method)()
    return info.value


class TestParseColumnDef:
    @pytest.mark.parametrize(
        "sql, type_name",
        [
            ("x INTEGER", "INTEGER"),
            ("x int", "INTEGER"),
            ("x BIGINT", "INTEGER"),
            ("x SMALLINT", "INTEGER"),
            ("x real", "REAL"),
            ("x FLOAT", "REAL"),
            ("x DOUBLE", "REAL"),
            ("x TEXT", "TEXT"),
            ("x Boolean", "BOOLEAN"),
            ("x BOOL", "BOOLEAN"),
        ],
    )
    def test_type_names(self, sql, type_name):
        assert run("parse_column_def", sql) == ColumnDef("x", type_name)

    def test_varchar_length(self):
        assert run("parse_column_def", "name VARCHAR(20)") == ColumnDef("name", "TEXT", 20)

    def test_char_without_length(self):
        assert run("parse_column_def", "code CHAR") == ColumnDef("code", "TEXT", None)

    def test_all_constraints(self):
        col = run("parse_column_def", "id INT NOT NULL PRIMARY KEY UNIQUE DEFAULT 7")
        assert col == ColumnDef("id", "INTEGER", None, True, True, True, L(7))

    def test_explicit_null_is_no_constraint(self):
        assert run("parse_column_def", "x TEXT NULL") == ColumnDef("x", "TEXT")

    @pytest.mark.parametrize(
        "default, value",
        [("-3", -3), ("+2.5", 2.5), ("'n/a'", "n/a"), ("NULL", None), ("TRUE", True), ("false", False)],
    )
    def test_default_literals(self, default, value):
        assert run("parse_column_def", f"x TEXT DEFAULT {default}").default == L(value)

    def test_stops_at_comma(self):
        p = Parser(tokenize("a INT, b TEXT"))
        assert p.parse_column_def() == ColumnDef("a", "INTEGER")
        assert p.peek().value == ","

    def test_unknown_type(self):
        err = fails("parse_column_def", "x BLOB")
        assert "unknown type 'blob'" in err.message and err.position == 2

    def test_missing_type(self):
        err = fails("parse_column_def", "x NOT NULL")
        assert "expected type name" in err.message

    def test_length_on_integer(self):
        err = fails("parse_column_def", "x INTEGER(4)")
        assert "takes no length" in err.message and err.position == 9

    @pytest.mark.parametrize("length", ["0", "n", "-1"])
    def test_bad_length(self, length):
        assert "expected a positive length" in fails("parse_column_def", f"x VARCHAR({length})").message

    def test_default_needs_literal(self):
        assert "expected a literal default value" in fails("parse_column_def", "x INT DEFAULT a").message

    def test_not_without_null(self):
        assert "expected NULL" in fails("parse_column_def", "x INT NOT UNIQUE").message


class TestParseCreateTable:
    def test_basic(self):
        stmt = run("parse_create_table", "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        assert stmt == CreateTable(
            "t",
            (ColumnDef("id", "INTEGER", primary_key=True), ColumnDef("name", "TEXT", not_null=True)),
        )

    def test_if_not_exists(self):
        stmt = run("parse_create_table", "CREATE TABLE IF NOT EXISTS t (x INT)")
        assert stmt.if_not_exists and stmt.name == "t"

    def test_table_constraints(self):
        stmt = run(
            "parse_create_table",
            "CREATE TABLE m (a INT, b INT, c TEXT, PRIMARY KEY (a, b), UNIQUE (c), UNIQUE (b, c))",
        )
        assert stmt.primary_key == ("a", "b")
        assert stmt.uniques == (("c",), ("b", "c"))
        assert [c.name for c in stmt.columns] == ["a", "b", "c"]

    def test_constraint_before_columns(self):
        stmt = run("parse_create_table", "CREATE TABLE t (PRIMARY KEY (x), x INT)")
        assert stmt.primary_key == ("x",) and stmt.columns == (ColumnDef("x", "INTEGER"),)

    def test_quoted_names(self):
        stmt = run("parse_create_table", 'CREATE TABLE "Order" ("select" TEXT)')
        assert stmt.name == "Order" and stmt.columns[0].name == "select"

    def test_two_table_primary_keys(self):
        err = fails("parse_create_table", "CREATE TABLE t (a INT, PRIMARY KEY (a), PRIMARY KEY (a))")
        assert "multiple PRIMARY KEY clauses" in err.message and err.position == 40

    def test_needs_a_column(self):
        err = fails("parse_create_table", "CREATE TABLE t (UNIQUE (a))")
        assert "at least one column" in err.message and err.position == 26

    def test_trailing_comma(self):
        assert "expected column name" in fails("parse_create_table", "CREATE TABLE t (a INT,)").message

    def test_missing_separator(self):
        err = fails("parse_create_table", "CREATE TABLE t (a INT b INT)")
        assert "expected ',' or ')'" in err.message and err.position == 22

    def test_missing_table_name(self):
        assert "expected table name" in fails("parse_create_table", "CREATE TABLE (a INT)").message


class TestParseCreateIndex:
    def test_basic(self):
        assert run("parse_create_index", "CREATE INDEX i ON t (c)") == CreateIndex("i", "t", "c")

    def test_unique(self):
        assert run("parse_create_index", "CREATE UNIQUE INDEX i ON t (c)") == CreateIndex("i", "t", "c", True)

    def test_if_not_exists(self):
        stmt = run("parse_create_index", "create index if not exists i on t(c)")
        assert stmt == CreateIndex("i", "t", "c", False, True)

    def test_single_column_only(self):
        err = fails("parse_create_index", "CREATE INDEX i ON t (a, b)")
        assert "expected ')'" in err.message and err.position == 22

    def test_requires_on(self):
        assert "expected ON" in fails("parse_create_index", "CREATE INDEX i t (a)").message

    def test_requires_name(self):
        assert "expected index name" in fails("parse_create_index", "CREATE INDEX ON t (a)").message


class TestParseDrop:
    @pytest.mark.parametrize(
        "sql, node",
        [
            ("DROP TABLE t", DropTable("t")),
            ("DROP TABLE IF EXISTS t", DropTable("t", True)),
            ("DROP INDEX i", DropIndex("i")),
            ("drop index if exists i", DropIndex("i", True)),
        ],
    )
    def test_forms(self, sql, node):
        assert run("parse_drop", sql) == node

    def test_unknown_object(self):
        err = fails("parse_drop", "DROP VIEW v")
        assert "expected TABLE or INDEX" in err.message and err.position == 5

    def test_if_needs_exists(self):
        assert "expected EXISTS" in fails("parse_drop", "DROP TABLE IF t").message

    def test_needs_name(self):
        assert "expected table name" in fails("parse_drop", "DROP TABLE").message


class TestParseInsert:
    def test_values_without_columns(self):
        stmt = run("parse_insert", "INSERT INTO t VALUES (1, 'x')")
        assert stmt == Insert("t", None, ((L(1), L("x")),), None)

    def test_columns_and_several_rows(self):
        stmt = run("parse_insert", "INSERT INTO t (a, b) VALUES (1, 2), (3, NULL), (-4, ?)")
        assert stmt.columns == ("a", "b")
        assert stmt.rows == ((L(1), L(2)), (L(3), L(None)), (L(-4), Parameter(0)))

    def test_expressions_in_values(self):
        stmt = run("parse_insert", "INSERT INTO t VALUES (1 + 2, upper('x'))")
        assert stmt.rows == ((BinaryOp("+", L(1), L(2)), FunctionCall("upper", (L("x"),))),)

    def test_rows_may_differ_in_length(self):
        assert len(run("parse_insert", "INSERT INTO t VALUES (1), (2, 3)").rows[1]) == 2

    def test_insert_select(self):
        stmt = run("parse_insert", "INSERT INTO t (a) SELECT x FROM s")
        assert stmt.rows is None and stmt.columns == ("a",)
        assert stmt.query == Select((SelectItem(ColumnRef("x")),), FromClause(TableRef("s")))

    def test_requires_into(self):
        assert "expected INTO" in fails("parse_insert", "INSERT t VALUES (1)").message

    def test_requires_values(self):
        err = fails("parse_insert", "INSERT INTO t (a) (1)")
        assert "expected VALUES or SELECT" in err.message and err.position == 18

    def test_empty_row(self):
        assert "expected an expression" in fails("parse_insert", "INSERT INTO t VALUES ()").message


class TestParseFrom:
    def test_single_table(self):
        assert run("parse_from", "FROM users") == FromClause(TableRef("users"))

    @pytest.mark.parametrize("sql", ["FROM users u", "FROM users AS u"])
    def test_alias(self, sql):
        assert run("parse_from", sql) == FromClause(TableRef("users", "u"))

    def test_comma_is_cross_join(self):
        node = run("parse_from", "FROM a, b x")
        assert node == FromClause(TableRef("a"), (Join("CROSS", TableRef("b", "x")),))

    def test_cross_join(self):
        assert run("parse_from", "FROM a CROSS JOIN b").joins == (Join("CROSS", TableRef("b")),)

    @pytest.mark.parametrize("kw", ["JOIN", "INNER JOIN"])
    def test_inner_join(self, kw):
        node = run("parse_from", f"FROM a {kw} b ON a.id = b.a_id")
        on = BinaryOp("=", ColumnRef("id", "a"), ColumnRef("a_id", "b"))
        assert node.joins == (Join("INNER", TableRef("b"), on),)

    @pytest.mark.parametrize("kw", ["LEFT JOIN", "LEFT OUTER JOIN"])
    def test_left_join(self, kw):
        node = run("parse_from", f"FROM a {kw} b bb ON x AND y")
        assert node.joins == (Join("LEFT", TableRef("b", "bb"), BinaryOp("AND", ColumnRef("x"), ColumnRef("y"))),)

    def test_join_chain(self):
        node = run("parse_from", "FROM a JOIN b ON p LEFT JOIN c ON q, d")
        assert [j.kind for j in node.joins] == ["INNER", "LEFT", "CROSS"]
        assert [j.table.name for j in node.joins] == ["b", "c", "d"]

    def test_join_needs_on(self):
        err = fails("parse_from", "FROM a JOIN b WHERE x")
        assert "expected ON" in err.message and err.position == 14

    def test_left_needs_join(self):
        assert "expected JOIN" in fails("parse_from", "FROM a LEFT b ON x").message


class TestParseOrderBy:
    def test_single_default(self):
        assert run("parse_order_by", "ORDER BY a") == (OrderItem(a),)

    def test_directions(self):
        assert run("parse_order_by", "ORDER BY a DESC, b ASC") == (OrderItem(a, True), OrderItem(b, False))

    def test_nulls(self):
        items = run("parse_order_by", "ORDER BY a NULLS FIRST, b DESC NULLS LAST")
        assert items == (OrderItem(a, False, True), OrderItem(b, True, False))

    def test_expressions_and_positions(self):
        items = run("parse_order_by", "ORDER BY 2, a + b DESC")
        assert items == (OrderItem(L(2)), OrderItem(BinaryOp("+", a, b), True))

    def test_requires_by(self):
        assert "expected BY" in fails("parse_order_by", "ORDER a").message

    def test_nulls_needs_first_or_last(self):
        err = fails("parse_order_by", "ORDER BY a NULLS")
        assert "expected FIRST or LAST" in err.message and err.position == 16

    def test_stops_before_limit(self):
        p = Parser(tokenize("ORDER BY a LIMIT 1"))
        assert p.parse_order_by() == (OrderItem(a),)
        assert p.peek().value == "LIMIT"


class TestParseSelect:
    def test_minimal(self):
        assert run("parse_select", "SELECT 1") == Select((SelectItem(L(1)),))

    def test_star_and_qualified_star(self):
        stmt = run("parse_select", "SELECT *, t.* FROM t")
        assert stmt.items == (SelectItem(Star()), SelectItem(Star("t")))

    def test_aliases(self):
        stmt = run("parse_select", "SELECT a AS x, b y, a + 1 FROM t")
        assert stmt.items == (
            SelectItem(a, "x"),
            SelectItem(b, "y"),
            SelectItem(BinaryOp("+", a, L(1))),
        )

    def test_distinct_and_all(self):
        assert run("parse_select", "SELECT DISTINCT a FROM t").distinct
        assert not run("parse_select", "SELECT ALL a FROM t").distinct

    def test_full_statement(self):
        stmt = run(
            "parse_select",
            "SELECT a, count(*) FROM t WHERE b > 1 GROUP BY a, b HAVING count(*) > 2 "
            "ORDER BY a DESC LIMIT 10 OFFSET 5",
        )
        assert stmt.from_ == FromClause(TableRef("t"))
        assert stmt.where == BinaryOp(">", b, L(1))
        assert stmt.group_by == (a, b)
        assert stmt.having == BinaryOp(">", FunctionCall("count", (), star=True), L(2))
        assert stmt.order_by == (OrderItem(a, True),)
        assert stmt.limit == L(10) and stmt.offset == L(5)

    def test_offset_without_limit(self):
        stmt = run("parse_select", "SELECT a FROM t OFFSET 3")
        assert stmt.limit is None and stmt.offset == L(3)

    def test_limit_parameter(self):
        assert run("parse_select", "SELECT a FROM t LIMIT ?").limit == Parameter(0)

    def test_empty_select_list(self):
        assert "expected an expression" in fails("parse_select", "SELECT FROM t").message

    def test_dangling_comma(self):
        assert "expected an expression" in fails("parse_select", "SELECT a, FROM t").message

    def test_group_requires_by(self):
        assert "expected BY" in fails("parse_select", "SELECT a FROM t GROUP a").message

    def test_alias_after_as(self):
        assert "expected alias" in fails("parse_select", "SELECT a AS FROM t").message


class TestParseSubqueries:
    def test_in_subquery(self):
        node = run("parse_expression", "a IN (SELECT x FROM s)")
        assert node == InSubquery(a, Select((SelectItem(ColumnRef("x")),), FromClause(TableRef("s"))))

    def test_not_in_subquery(self):
        assert run("parse_expression", "a NOT IN (SELECT 1)").negated

    def test_exists_and_not_exists(self):
        q = Select((SelectItem(L(1)),))
        assert run("parse_expression", "EXISTS (SELECT 1)") == Exists(q)
        assert run("parse_expression", "NOT EXISTS (SELECT 1)") == UnaryOp("NOT", Exists(q))

    def test_scalar_subquery_in_arithmetic(self):
        node = run("parse_expression", "(SELECT max(x) FROM s) + 1")
        q = Select((SelectItem(FunctionCall("max", (ColumnRef("x"),))),), FromClause(TableRef("s")))
        assert node == BinaryOp("+", ScalarSubquery(q), L(1))

    def test_subquery_in_where_of_select(self):
        stmt = run("parse_select", "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM s WHERE s.id = t.id)")
        assert isinstance(stmt.where, Exists)
        assert stmt.where.query.where == BinaryOp("=", ColumnRef("id", "s"), ColumnRef("id", "t"))


class TestParseUpdate:
    def test_single_assignment(self):
        assert run("parse_update", "UPDATE t SET a = 1") == Update("t", (("a", L(1)),))

    def test_several_assignments_and_where(self):
        stmt = run("parse_update", "UPDATE t SET a = a + 1, b = 'x' WHERE a > 2")
        assert stmt.assignments == (("a", BinaryOp("+", a, L(1))), ("b", L("x")))
        assert stmt.where == BinaryOp(">", a, L(2))

    def test_requires_set(self):
        assert "expected SET" in fails("parse_update", "UPDATE t a = 1").message

    def test_requires_equals(self):
        err = fails("parse_update", "UPDATE t SET a 1")
        assert "expected '='" in err.message and err.position == 15

    def test_qualified_target_rejected(self):
        assert "expected '='" in fails("parse_update", "UPDATE t SET t.a = 1").message


class TestParseDelete:
    def test_without_where(self):
        assert run("parse_delete", "DELETE FROM t") == Delete("t")

    def test_with_where(self):
        assert run("parse_delete", "DELETE FROM t WHERE a IS NULL").where is not None

    def test_requires_from(self):
        assert "expected FROM" in fails("parse_delete", "DELETE t").message

    def test_requires_table(self):
        assert "expected table name" in fails("parse_delete", "DELETE FROM WHERE").message


class TestParseStatement:
    @pytest.mark.parametrize(
        "sql, kind",
        [
            ("SELECT 1", Select),
            ("INSERT INTO t VALUES (1)", Insert),
            ("UPDATE t SET a = 1", Update),
            ("DELETE FROM t", Delete),
            ("CREATE TABLE t (a INT)", CreateTable),
            ("CREATE INDEX i ON t (a)", CreateIndex),
            ("CREATE UNIQUE INDEX i ON t (a)", CreateIndex),
            ("DROP TABLE t", DropTable),
            ("DROP INDEX i", DropIndex),
        ],
    )
    def test_dispatch(self, sql, kind):
        assert isinstance(run("parse_statement", sql), kind)

    @pytest.mark.parametrize(
        "sql, node",
        [
            ("BEGIN", Begin()),
            ("begin transaction", Begin()),
            ("COMMIT", Commit()),
            ("COMMIT TRANSACTION", Commit()),
            ("ROLLBACK", Rollback()),
        ],
    )
    def test_transaction_statements(self, sql, node):
        assert run("parse_statement", sql) == node

    def test_does_not_consume_semicolon(self):
        p = Parser(tokenize("SELECT 1;"))
        p.parse_statement()
        assert p.peek().value == ";"

    def test_unknown_statement(self):
        err = fails("parse_statement", "EXPLAIN SELECT 1")
        assert "expected a statement" in err.message and err.position == 0

    def test_create_what(self):
        err = fails("parse_statement", "CREATE VIEW v")
        assert "expected TABLE or INDEX" in err.message and err.position == 7


class TestParseSql:
    def test_empty(self):
        assert parse_sql("") == []
        assert parse_sql(" ;; -- nothing\n") == []

    def test_single_with_and_without_semicolon(self):
        assert parse_sql("SELECT 1") == parse_sql("SELECT 1;") == [Select((SelectItem(L(1)),))]

    def test_several_statements(self):
        stmts = parse_sql("BEGIN; INSERT INTO t VALUES (1);; COMMIT")
        assert [type(s) for s in stmts] == [Begin, Insert, Commit]

    def test_trailing_garbage(self):
        with pytest.raises(SQLSyntaxError, match="expected ';' or end of input") as info:
            parse_sql("SELECT 1 2")
        assert info.value.position == 9

    def test_missing_semicolon_between_statements(self):
        with pytest.raises(SQLSyntaxError) as info:
            parse_sql("SELECT 1 SELECT 2")
        assert info.value.position == 9

    def test_lexer_errors_propagate(self):
        with pytest.raises(SQLSyntaxError, match="unterminated string"):
            parse_sql("SELECT 'x")

    def test_error_in_second_statement(self):
        with pytest.raises(SQLSyntaxError) as info:
            parse_sql("SELECT 1; SELEC 2")
        assert info.value.position == 10
