"""Layer 5: the Database facade, transactions, scripts, EXPLAIN and Result.format."""

import pytest

from minidb import (
    CatalogError,
    ConstraintError,
    Database,
    ExecutionError,
    MiniDBError,
    Result,
    SQLSyntaxError,
    TransactionError,
    TypeMismatchError,
)
from minidb.parser import parse_sql

SCHEMA = """
CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, balance REAL DEFAULT 0);
CREATE UNIQUE INDEX accounts_owner ON accounts (owner);
INSERT INTO accounts VALUES (1, 'ann', 100), (2, 'bob', 50);
"""


def run(db, sql, params=()):
    """Run one statement through Database.run_statement (without Database.execute)."""
    return db.run_statement(parse_sql(sql)[0], params)


@pytest.fixture
def db():
    d = Database()
    for stmt in parse_sql(SCHEMA):
        d.run_statement(stmt)
    return d


def balances(db):
    return run(db, "SELECT owner, balance FROM accounts").rows


class TestDatabaseExecute:
    def test_round_trip(self):
        d = Database()
        assert d.execute("CREATE TABLE t (a INT, b TEXT)") == Result()
        assert d.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y')").rowcount == 2
        result = d.execute("SELECT b, a FROM t WHERE a > 1")
        assert (result.columns, result.rows, result.rowcount) == (["b", "a"], [("y", 2)], 1)
        assert d.table_names() == ["t"]

    def test_parameters(self, db):
        assert db.execute("SELECT ? + 1, ?", (5, "x")).rows == [(6, "x")]

    def test_parameters_are_values_not_sql(self, db):
        db.execute("INSERT INTO accounts (id, owner) VALUES (?, ?)", (3, "o'brien'); DROP TABLE accounts; --"))
        assert db.execute("SELECT owner FROM accounts WHERE id = ?", [3]).scalar() == "o'brien'); DROP TABLE accounts; --"

    @pytest.mark.parametrize("params", [(), (1, 2)])
    def test_parameter_count(self, db, params):
        with pytest.raises(ExecutionError, match=f"expected 1 parameters, got {len(params)}"):
            db.execute("SELECT * FROM accounts WHERE id = ?", params)

    @pytest.mark.parametrize("sql", ["SELECT 1; SELECT 2", "", "  ; -- nothing"])
    def test_exactly_one_statement(self, db, sql):
        with pytest.raises(ExecutionError, match="exactly one statement"):
            db.execute(sql)

    def test_trailing_semicolon(self, db):
        assert db.execute("SELECT 1;").rows == [(1,)]

    def test_syntax_error(self, db):
        with pytest.raises(SQLSyntaxError) as info:
            db.execute("SELECT * FORM accounts")
        assert info.value.position == 9

    @pytest.mark.parametrize(
        "sql, error",
        [
            ("SELECT * FROM nope", CatalogError),
            ("INSERT INTO accounts (id, owner) VALUES (1, 'zed')", ConstraintError),
            ("INSERT INTO accounts (id, owner) VALUES ('x', 'zed')", TypeMismatchError),
            ("SELECT 1 / 0", ExecutionError),
        ],
    )
    def test_error_types(self, db, sql, error):
        with pytest.raises(error) as info:
            db.execute(sql)
        assert isinstance(info.value, MiniDBError)

    def test_transaction_statements(self, db):
        assert db.execute("BEGIN TRANSACTION") == Result()
        assert db.in_transaction
        db.execute("DELETE FROM accounts")
        assert db.execute("ROLLBACK") == Result()
        assert not db.in_transaction and len(balances(db)) == 2
        db.execute("BEGIN")
        db.execute("DELETE FROM accounts WHERE id = 1")
        assert db.execute("COMMIT") == Result()
        assert balances(db) == [("bob", 50.0)]

    def test_transaction_errors(self, db):
        with pytest.raises(TransactionError):
            db.execute("COMMIT")
        db.execute("BEGIN")
        with pytest.raises(TransactionError):
            db.execute("BEGIN")

    def test_update_and_delete(self, db):
        assert db.execute("UPDATE accounts SET balance = balance * 2").rowcount == 2
        assert db.execute("DELETE FROM accounts WHERE balance > 150").rowcount == 1
        assert balances(db) == [("bob", 100.0)]


class TestRunStatement:
    def test_failed_insert_is_undone_entirely(self, db):
        with pytest.raises(ConstraintError):
            run(db, "INSERT INTO accounts (id, owner) VALUES (3, 'cy'), (4, 'dee'), (1, 'eve')")
        assert run(db, "SELECT count(*) FROM accounts").scalar() == 2

    def test_failed_update_is_undone_entirely(self, db):
        run(db, "INSERT INTO accounts (id, owner) VALUES (3, 'cy')")
        with pytest.raises(ConstraintError):
            run(db, "UPDATE accounts SET owner = 'same' WHERE id > 1")
        assert [r[0] for r in balances(db)] == ["ann", "bob", "cy"]

    def test_indexes_restored_after_failure(self, db):
        with pytest.raises(ConstraintError):
            run(db, "INSERT INTO accounts (id, owner) VALUES (3, 'cy'), (3, 'cy2')")
        run(db, "INSERT INTO accounts (id, owner) VALUES (3, 'cy')")
        assert run(db, "SELECT owner FROM accounts WHERE id = 3").rows == [("cy",)]

    def test_earlier_statements_unaffected(self, db):
        run(db, "DELETE FROM accounts WHERE id = 2")
        with pytest.raises(CatalogError):
            run(db, "UPDATE accounts SET nope = 1")
        assert balances(db) == [("ann", 100.0)]

    def test_select_runs_with_params(self, db):
        result = db.run_statement(parse_sql("SELECT owner FROM accounts WHERE id = ?")[0], (2,))
        assert result.rows == [("bob",)]


class TestBegin:
    def test_starts_transaction(self, db):
        assert not db.in_transaction
        db.begin()
        assert db.in_transaction

    def test_snapshot_is_independent_of_later_changes(self, db):
        db.begin()
        run(db, "UPDATE accounts SET balance = 0")
        assert balances(db) == [("ann", 0.0), ("bob", 0.0)]
        assert db.in_transaction

    def test_nested_begin(self, db):
        db.begin()
        with pytest.raises(TransactionError, match="already active"):
            db.begin()
        assert db.in_transaction


class TestCommit:
    def test_keeps_changes(self, db):
        db.begin()
        run(db, "UPDATE accounts SET balance = 0 WHERE owner = 'ann'")
        db.commit()
        assert not db.in_transaction
        assert balances(db) == [("ann", 0.0), ("bob", 50.0)]

    def test_without_transaction(self, db):
        with pytest.raises(TransactionError, match="no transaction is active"):
            db.commit()

    def test_twice(self, db):
        db.begin()
        db.commit()
        with pytest.raises(TransactionError):
            db.commit()

    def test_later_rollback_keeps_committed_work(self, db):
        db.begin()
        run(db, "DELETE FROM accounts WHERE id = 2")
        db.commit()
        db.begin()
        run(db, "DELETE FROM accounts")
        db.rollback()
        assert balances(db) == [("ann", 100.0)]


class TestRollback:
    def test_restores_rows(self, db):
        db.begin()
        run(db, "INSERT INTO accounts (id, owner) VALUES (3, 'cy')")
        run(db, "UPDATE accounts SET balance = -1 WHERE id = 1")
        run(db, "DELETE FROM accounts WHERE id = 2")
        db.rollback()
        assert not db.in_transaction
        assert balances(db) == [("ann", 100.0), ("bob", 50.0)]

    def test_restores_schema(self, db):
        db.begin()
        run(db, "CREATE TABLE tmp (x INT)")
        run(db, "DROP TABLE accounts")
        db.rollback()
        assert db.table_names() == ["accounts"]
        assert run(db, "SELECT count(*) FROM accounts").scalar() == 2

    def test_restores_indexes(self, db):
        db.begin()
        run(db, "DROP INDEX accounts_owner")
        run(db, "CREATE INDEX by_balance ON accounts (balance)")
        db.rollback()
        assert sorted(db.catalog.indexes) == ["accounts_owner"]
        with pytest.raises(ConstraintError):
            run(db, "INSERT INTO accounts (id, owner) VALUES (3, 'ann')")

    def test_restored_index_entries_are_consistent(self, db):
        db.begin()
        run(db, "UPDATE accounts SET owner = 'zed' WHERE id = 1")
        db.rollback()
        run(db, "INSERT INTO accounts (id, owner) VALUES (3, 'zed')")
        assert run(db, "SELECT id FROM accounts WHERE owner = 'ann'").rows == [(1,)]

    def test_without_transaction(self, db):
        with pytest.raises(TransactionError, match="no transaction is active"):
            db.rollback()

    def test_failed_statement_keeps_transaction_open(self, db):
        db.begin()
        run(db, "UPDATE accounts SET balance = 1 WHERE id = 1")
        with pytest.raises(ConstraintError):
            run(db, "INSERT INTO accounts (id, owner) VALUES (2, 'dup')")
        assert db.in_transaction
        assert balances(db)[0] == ("ann", 1.0)
        db.rollback()
        assert balances(db)[0] == ("ann", 100.0)

    def test_autocommit_after_rollback(self, db):
        db.begin()
        db.rollback()
        run(db, "DELETE FROM accounts WHERE id = 1")
        with pytest.raises(TransactionError):
            db.rollback()
        assert len(balances(db)) == 1


class TestExecuteScript:
    def test_results_per_statement(self):
        results = Database().execute_script(
            "CREATE TABLE t (a INT); INSERT INTO t VALUES (1), (2); SELECT sum(a) FROM t;"
        )
        assert [r.rowcount for r in results] == [0, 2, 1]
        assert results[2].rows == [(3,)]

    def test_empty(self):
        assert Database().execute_script("-- nothing here") == []

    def test_stops_at_first_error(self, db):
        with pytest.raises(ConstraintError):
            db.execute_script(
                "INSERT INTO accounts (id, owner) VALUES (3, 'cy');"
                "INSERT INTO accounts (id, owner) VALUES (3, 'dup');"
                "INSERT INTO accounts (id, owner) VALUES (4, 'dee');"
            )
        assert [r[0] for r in balances(db)] == ["ann", "bob", "cy"]

    def test_syntax_error_runs_nothing(self, db):
        with pytest.raises(SQLSyntaxError):
            db.execute_script("DELETE FROM accounts; SELECT FROM;")
        assert len(balances(db)) == 2

    def test_transactions_in_script(self, db):
        db.execute_script("BEGIN; DELETE FROM accounts; ROLLBACK; BEGIN; DELETE FROM accounts WHERE id = 1; COMMIT")
        assert balances(db) == [("bob", 50.0)] and not db.in_transaction

    def test_placeholders_unsupported(self, db):
        with pytest.raises(ExecutionError, match="missing value for parameter 1"):
            db.execute_script("SELECT ?")


LIBRARY = """
CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, born INT);
CREATE TABLE books (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    author_id INT,
    year INT,
    price REAL DEFAULT 10.0
);
CREATE INDEX books_author ON books (author_id);
INSERT INTO authors VALUES (1, 'Austen', 1775), (2, 'Borges', 1899), (3, 'Calvino', 1923), (4, 'Dickens', 1812);
INSERT INTO authors (id, name, born) VALUES (5, 'Eliot', 1780);
INSERT INTO books (id, title, author_id, year, price) VALUES
    (1, 'Emma', 1, 1815, 8.5),
    (2, 'Persuasion', 1, 1817, 7.0),
    (3, 'Ficciones', 2, 1944, 12.0),
    (4, 'Invisible Cities', 3, 1972, 11.0),
    (5, 'The Aleph', 2, 1949, NULL),
    (6, 'Anonymous Pamphlet', NULL, 1900, 2.0);
INSERT INTO books (id, title, author_id, year) VALUES (7, 'Cosmicomics', 3, 1965);
UPDATE books SET price = price + 1 WHERE author_id = 3;
DELETE FROM authors WHERE born < 1800 AND id NOT IN (SELECT author_id FROM books WHERE author_id IS NOT NULL);
"""


@pytest.fixture(scope="module")
def lib():
    d = Database()
    d.execute_script(LIBRARY)
    return d


class TestEndToEnd:
    @pytest.mark.parametrize(
        "sql, expected",
        [
            ("SELECT count(*) FROM authors", [(4,)]),
            ("SELECT title, price FROM books WHERE author_id = 3 ORDER BY year",
             [("Cosmicomics", 11.0), ("Invisible Cities", 12.0)]),
            ("SELECT a.name, count(b.id) AS n FROM authors a LEFT JOIN books b ON b.author_id = a.id "
             "GROUP BY a.name ORDER BY n DESC, a.name",
             [("Austen", 2), ("Borges", 2), ("Calvino", 2), ("Dickens", 0)]),
            ("SELECT a.name, b.title FROM books b JOIN authors a ON a.id = b.author_id "
             "WHERE b.year > 1940 ORDER BY b.year DESC LIMIT 2",
             [("Calvino", "Invisible Cities"), ("Calvino", "Cosmicomics")]),
            ("SELECT title FROM books WHERE author_id IS NULL OR price IS NULL ORDER BY title",
             [("Anonymous Pamphlet",), ("The Aleph",)]),
            ("SELECT name FROM authors WHERE NOT EXISTS (SELECT 1 FROM books WHERE author_id = authors.id)",
             [("Dickens",)]),
            ("SELECT author_id, round(avg(price), 2) FROM books WHERE author_id IS NOT NULL "
             "GROUP BY author_id HAVING count(price) > 1 ORDER BY 1",
             [(1, 7.75), (3, 11.5)]),
            ("SELECT title FROM books WHERE price > (SELECT avg(price) FROM books) ORDER BY price DESC, title",
             [("Ficciones",), ("Invisible Cities",), ("Cosmicomics",)]),
            ("SELECT DISTINCT year / 100 * 100 AS century FROM books ORDER BY century",
             [(1800,), (1900,)]),
            ("SELECT upper(substr(name, 1, 3)) FROM authors WHERE name LIKE '%s' ORDER BY name",
             [("BOR",), ("DIC",)]),
            ("SELECT CASE WHEN year < 1900 THEN 'old' ELSE 'new' END AS age, count(*) FROM books "
             "GROUP BY CASE WHEN year < 1900 THEN 'old' ELSE 'new' END ORDER BY age",
             [("new", 5), ("old", 2)]),
            ("SELECT b.title FROM books b, authors a WHERE a.id = b.author_id AND a.born = "
             "(SELECT max(born) FROM authors) ORDER BY b.id",
             [("Invisible Cities",), ("Cosmicomics",)]),
        ],
    )
    def test_queries(self, lib, sql, expected):
        assert lib.execute(sql).rows == expected

    def test_format_of_a_join(self, lib):
        text = lib.execute(
            "SELECT a.name, b.year, b.price FROM authors a JOIN books b ON b.author_id = a.id "
            "WHERE a.id = 2 ORDER BY b.year"
        ).format()
        assert text == (
            "name   | year | price\n"
            "-------+------+------\n"
            "Borges | 1944 |  12.0\n"
            "Borges | 1949 | NULL\n"
            "(2 rows)"
        )


class TestExplain:
    def test_scan_and_lookup(self, db):
        assert db.explain("SELECT * FROM accounts") == "SCAN accounts"
        assert db.explain("SELECT * FROM accounts WHERE id = 2") == "INDEX LOOKUP accounts USING accounts_pkey"
        assert db.explain("SELECT * FROM accounts a WHERE a.owner = 'bob'") == (
            "INDEX LOOKUP accounts USING accounts_owner"
        )

    def test_parameters(self, db):
        assert db.explain("SELECT * FROM accounts WHERE id = ?", (1,)).startswith("INDEX LOOKUP")
        assert db.explain("SELECT * FROM accounts WHERE id = ?") == "SCAN accounts"

    def test_join_scans_every_table(self, db):
        assert db.explain("SELECT * FROM accounts a JOIN accounts b ON a.id = b.id WHERE a.id = 1") == (
            "SCAN accounts\nSCAN accounts"
        )

    def test_no_from(self, db):
        assert db.explain("SELECT 1") == "CONSTANT ROW"

    def test_update_and_delete_not_executed(self, db):
        assert db.explain("DELETE FROM accounts WHERE id = 1") == "INDEX LOOKUP accounts USING accounts_pkey"
        assert db.explain("UPDATE accounts SET balance = 0 WHERE balance > 1") == "SCAN accounts"
        assert len(balances(db)) == 2 and balances(db)[0][1] == 100.0

    def test_unsupported_statement(self, db):
        with pytest.raises(ExecutionError, match="EXPLAIN supports"):
            db.explain("INSERT INTO accounts (id, owner) VALUES (9, 'x')")

    def test_unknown_table(self, db):
        with pytest.raises(CatalogError):
            db.explain("SELECT * FROM nope WHERE id = 1")


class TestResultFormat:
    def test_example(self):
        result = Result(["id", "name"], [(1, "ann"), (2, None)], 2)
        assert result.format() == "id | name\n---+-----\n 1 | ann\n 2 | NULL\n(2 rows)"

    def test_single_row(self):
        assert Result(["x"], [(10,)], 1).format() == "x\n--\n10\n(1 row)"

    def test_no_rows(self):
        assert Result(["a", "bb"], [], 0).format() == "a | bb\n--+---\n(0 rows)"

    def test_alignment_and_rendering(self):
        result = Result(["flag", "n", "f"], [(True, 1.5, "x"), (False, -20, "yz")], 2)
        assert result.format() == (
            "flag  | n   | f\n"
            "------+-----+---\n"
            "true  | 1.5 | x\n"
            "false | -20 | yz\n"
            "(2 rows)"
        )

    @pytest.mark.parametrize("count, text", [(0, "(0 rows affected)"), (1, "(1 row affected)"), (3, "(3 rows affected)")])
    def test_statements_without_columns(self, count, text):
        assert Result(rowcount=count).format() == text
