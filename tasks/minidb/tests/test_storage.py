"""Layer 3: hash indexes, tables and the catalog (minidb.storage)."""

import pytest

from minidb.errors import CatalogError, ConstraintError, ExecutionError, TypeMismatchError
from minidb.lexer import tokenize
from minidb.parser import Parser
from minidb.storage import Catalog, HashIndex


def create(catalog, sql):
    return catalog.create_table(Parser(tokenize(sql)).parse_create_table())


def create_index(catalog, sql):
    return catalog.create_index(Parser(tokenize(sql)).parse_create_index())


def make_index(unique=False):
    return HashIndex("ix", "t", ("c",), (0,), unique)


@pytest.fixture
def users():
    catalog = Catalog()
    create(
        catalog,
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "email VARCHAR(10) UNIQUE, age INT DEFAULT 18, active BOOLEAN)",
    )
    return catalog


class TestHashIndexInsert:
    def test_groups_rowids_by_key(self):
        ix = make_index()
        ix.insert((5,), 1)
        ix.insert((5,), 2)
        ix.insert((6,), 3)
        assert sorted(map(sorted, ix.entries.values())) == [[1, 2], [3]]

    def test_null_keys_are_not_stored(self):
        ix = make_index(unique=True)
        ix.insert((None,), 1)
        ix.insert((None,), 2)
        assert ix.entries == {}

    def test_unique_rejects_second_rowid(self):
        ix = make_index(unique=True)
        ix.insert(("a",), 1)
        with pytest.raises(ConstraintError, match="UNIQUE constraint failed: t.c"):
            ix.insert(("a",), 2)
        assert list(ix.entries.values()) == [{1}]

    def test_unique_allows_same_rowid_again(self):
        ix = make_index(unique=True)
        ix.insert(("a",), 1)
        ix.insert(("a",), 1)
        assert list(ix.entries.values()) == [{1}]

    def test_integer_and_float_are_one_key(self):
        ix = make_index(unique=True)
        ix.insert((1,), 1)
        with pytest.raises(ConstraintError):
            ix.insert((1.0,), 2)

    def test_true_and_one_are_different_keys(self):
        ix = make_index(unique=True)
        ix.insert((1,), 1)
        ix.insert((True,), 2)
        assert len(ix.entries) == 2

    def test_primary_key_message(self):
        ix = HashIndex("t_pkey", "t", ("a", "b"), (0, 1), True, "PRIMARY KEY")
        ix.insert((1, 2), 1)
        with pytest.raises(ConstraintError, match=r"PRIMARY KEY constraint failed: t.a, t.b"):
            ix.insert((1, 2), 2)


class TestHashIndexLookup:
    def test_finds_sorted_rowids(self):
        ix = make_index()
        for rowid in (7, 3, 5):
            ix.insert(("k",), rowid)
        assert ix.lookup(("k",)) == [3, 5, 7]

    def test_missing_key(self):
        ix = make_index()
        ix.insert(("k",), 1)
        assert ix.lookup(("other",)) == []

    def test_null_key_finds_nothing(self):
        ix = make_index()
        ix.insert((None,), 1)
        assert ix.lookup((None,)) == []

    def test_numeric_keys_match_across_int_and_float(self):
        ix = make_index()
        ix.insert((2,), 1)
        assert ix.lookup((2.0,)) == [1]

    def test_strings_are_case_sensitive(self):
        ix = make_index()
        ix.insert(("Ann",), 1)
        assert ix.lookup(("ann",)) == []


class TestHashIndexRemove:
    def test_removes_one_rowid(self):
        ix = make_index()
        ix.insert(("k",), 1)
        ix.insert(("k",), 2)
        ix.remove(("k",), 1)
        assert ix.lookup(("k",)) == [2]

    def test_empty_key_disappears(self):
        ix = make_index()
        ix.insert(("k",), 1)
        ix.remove(("k",), 1)
        assert ix.entries == {}

    def test_absent_pairs_are_ignored(self):
        ix = make_index()
        ix.insert(("k",), 1)
        ix.remove(("k",), 9)
        ix.remove(("x",), 1)
        ix.remove((None,), 1)
        assert ix.lookup(("k",)) == [1]

    def test_freed_unique_key_can_be_reused(self):
        ix = make_index(unique=True)
        ix.insert(("k",), 1)
        ix.remove(("k",), 1)
        ix.insert(("k",), 2)
        assert ix.lookup(("k",)) == [2]


class TestCatalogCreateTable:
    def test_columns(self, users):
        t = users.get_table("users")
        assert t.column_names == ["id", "name", "email", "age", "active"]
        assert [c.type_name for c in t.columns] == ["INTEGER", "TEXT", "TEXT", "INTEGER", "BOOLEAN"]
        assert t.columns[2].length == 10

    def test_primary_key_is_not_null(self, users):
        t = users.get_table("users")
        assert t.primary_key == ("id",)
        assert [c.not_null for c in t.columns] == [True, True, False, False, False]

    def test_constraint_indexes(self, users):
        t = users.get_table("users")
        assert list(t.indexes) == ["users_pkey", "users_email_key"]
        pk = t.indexes["users_pkey"]
        assert pk.unique and pk.constraint == "PRIMARY KEY" and pk.positions == (0,)
        assert t.indexes["users_email_key"].constraint == "UNIQUE"

    def test_table_level_constraints(self):
        cat = Catalog()
        t = create(cat, "CREATE TABLE m (a INT, b INT, c TEXT UNIQUE, PRIMARY KEY (a, b), UNIQUE (b, c))")
        assert t.primary_key == ("a", "b")
        assert list(t.indexes) == ["m_pkey", "m_c_key", "m_b_c_key"]
        assert t.indexes["m_b_c_key"].positions == (1, 2)

    def test_defaults_are_coerced(self):
        t = create(Catalog(), "CREATE TABLE d (x REAL DEFAULT 1, y TEXT DEFAULT 5, z INT)")
        assert [c.default for c in t.columns] == [1.0, "5", None]
        assert type(t.columns[0].default) is float

    def test_bad_default(self):
        cat = Catalog()
        with pytest.raises(TypeMismatchError):
            create(cat, "CREATE TABLE d (x INT DEFAULT 'abc')")
        assert "d" not in cat.tables

    def test_duplicate_table(self, users):
        with pytest.raises(CatalogError, match="already exists"):
            create(users, "CREATE TABLE users (x INT)")

    def test_if_not_exists_returns_existing(self, users):
        t = create(users, "CREATE TABLE IF NOT EXISTS users (x INT)")
        assert t is users.get_table("users") and "x" not in t.column_names

    def test_duplicate_column(self):
        with pytest.raises(CatalogError, match="duplicate column name: a"):
            create(Catalog(), "CREATE TABLE t (a INT, b INT, a TEXT)")

    @pytest.mark.parametrize(
        "sql",
        [
            "CREATE TABLE t (a INT PRIMARY KEY, b INT PRIMARY KEY)",
            "CREATE TABLE t (a INT PRIMARY KEY, b INT, PRIMARY KEY (b))",
        ],
    )
    def test_more_than_one_primary_key(self, sql):
        with pytest.raises(CatalogError, match="more than one primary key"):
            create(Catalog(), sql)

    @pytest.mark.parametrize(
        "sql", ["CREATE TABLE t (a INT, PRIMARY KEY (z))", "CREATE TABLE t (a INT, UNIQUE (a, z))"]
    )
    def test_constraint_on_unknown_column(self, sql):
        cat = Catalog()
        with pytest.raises(CatalogError, match="no such column: z"):
            create(cat, sql)
        assert cat.tables == {}

    def test_registered_in_catalog(self):
        cat = Catalog()
        t = create(cat, "CREATE TABLE x (a INT)")
        assert cat.get_table("x") is t and t.rows == {} and t.next_rowid == 1
        with pytest.raises(CatalogError, match="no such table: nope"):
            cat.get_table("nope")


class TestTableBuildRow:
    def test_defaults_fill_missing_columns(self, users):
        t = users.get_table("users")
        assert t.build_row({"id": 1, "name": "ann"}) == (1, "ann", None, 18, None)

    def test_values_are_coerced(self, users):
        t = users.get_table("users")
        assert t.build_row({"id": "2", "name": 7, "age": 3.0, "active": 1}) == (2, "7", None, 3, True)

    def test_explicit_null_overrides_default(self, users):
        assert users.get_table("users").build_row({"id": 1, "name": "a", "age": None})[3] is None

    def test_not_null(self, users):
        with pytest.raises(ConstraintError, match="NOT NULL constraint failed: users.name"):
            users.get_table("users").build_row({"id": 1})

    def test_primary_key_not_null(self, users):
        with pytest.raises(ConstraintError, match="NOT NULL constraint failed: users.id"):
            users.get_table("users").build_row({"name": "x"})

    def test_type_error_names_column(self, users):
        with pytest.raises(TypeMismatchError, match="^users.age: "):
            users.get_table("users").build_row({"id": 1, "name": "x", "age": "old"})

    def test_varchar_length(self, users):
        with pytest.raises(ConstraintError):
            users.get_table("users").build_row({"id": 1, "name": "x", "email": "a" * 11})

    def test_unknown_column(self, users):
        with pytest.raises(CatalogError, match="no such column: users.nick"):
            users.get_table("users").build_row({"id": 1, "name": "x", "nick": "y"})

    def test_base_row_for_updates(self, users):
        t = users.get_table("users")
        base = (1, "ann", "a@x", 30, True)
        assert t.build_row({"age": 31}, base=base) == (1, "ann", "a@x", 31, True)

    def test_base_row_still_checks_not_null(self, users):
        with pytest.raises(ConstraintError):
            users.get_table("users").build_row({"name": None}, base=(1, "ann", None, 1, None))

    def test_stores_nothing(self, users):
        t = users.get_table("users")
        t.build_row({"id": 1, "name": "a"})
        assert t.rows == {} and t.next_rowid == 1


class TestTableInsert:
    def test_returns_increasing_rowids(self, users):
        t = users.get_table("users")
        assert [t.insert({"id": i, "name": "n"}) for i in (10, 20, 30)] == [1, 2, 3]
        assert t.rows[2] == (20, "n", None, 18, None)

    def test_updates_indexes(self, users):
        t = users.get_table("users")
        t.insert({"id": 5, "name": "a", "email": "a@x"})
        assert t.indexes["users_pkey"].lookup((5,)) == [1]
        assert t.indexes["users_email_key"].lookup(("a@x",)) == [1]

    def test_duplicate_primary_key(self, users):
        t = users.get_table("users")
        t.insert({"id": 1, "name": "a"})
        with pytest.raises(ConstraintError, match="PRIMARY KEY constraint failed: users.id"):
            t.insert({"id": 1, "name": "b"})

    def test_failed_insert_changes_nothing(self, users):
        t = users.get_table("users")
        t.insert({"id": 1, "name": "a", "email": "e"})
        with pytest.raises(ConstraintError, match="UNIQUE constraint failed: users.email"):
            t.insert({"id": 2, "name": "b", "email": "e"})
        assert list(t.rows) == [1] and t.next_rowid == 2
        assert t.indexes["users_pkey"].lookup((2,)) == []

    def test_unique_allows_many_nulls(self, users):
        t = users.get_table("users")
        t.insert({"id": 1, "name": "a"})
        t.insert({"id": 2, "name": "b"})
        assert len(t.rows) == 2

    def test_composite_key(self):
        cat = Catalog()
        t = create(cat, "CREATE TABLE m (a INT, b INT, PRIMARY KEY (a, b))")
        t.insert({"a": 1, "b": 1})
        t.insert({"a": 1, "b": 2})
        with pytest.raises(ConstraintError):
            t.insert({"a": 1, "b": 2.0})

    def test_validation_errors_propagate(self, users):
        t = users.get_table("users")
        with pytest.raises(ConstraintError):
            t.insert({"id": 1})
        with pytest.raises(TypeMismatchError):
            t.insert({"id": "x", "name": "a"})
        assert t.rows == {}


class TestTableUpdate:
    @pytest.fixture
    def table(self, users):
        t = users.get_table("users")
        t.insert({"id": 1, "name": "ann", "email": "a"})
        t.insert({"id": 2, "name": "bob", "email": "b"})
        return t

    def test_changes_columns_and_keeps_rowid(self, table):
        assert table.update(2, {"name": "rob", "age": "40"}) == (2, "rob", "b", 40, None)
        assert table.rows[2] == (2, "rob", "b", 40, None)
        assert list(table.rows) == [1, 2]

    def test_moves_index_entries(self, table):
        table.update(1, {"id": 100, "email": "z"})
        assert table.indexes["users_pkey"].lookup((1,)) == []
        assert table.indexes["users_pkey"].lookup((100,)) == [1]
        assert table.indexes["users_email_key"].lookup(("z",)) == [1]

    def test_keeping_own_key_is_fine(self, table):
        table.update(1, {"id": 1, "email": "a"})
        assert table.rows[1][0] == 1

    def test_conflict_leaves_row_unchanged(self, table):
        with pytest.raises(ConstraintError, match="users.email"):
            table.update(1, {"name": "x", "email": "b"})
        assert table.rows[1] == (1, "ann", "a", 18, None)
        assert table.indexes["users_email_key"].lookup(("a",)) == [1]

    def test_not_null(self, table):
        with pytest.raises(ConstraintError):
            table.update(1, {"name": None})

    def test_unknown_rowid(self, table):
        with pytest.raises(ExecutionError, match="no row with rowid 9"):
            table.update(9, {"name": "x"})

    def test_null_unique_value_leaves_index(self, table):
        table.update(1, {"email": None})
        assert table.indexes["users_email_key"].lookup(("a",)) == []
        table.update(2, {"email": "a"})


class TestTableDelete:
    @pytest.fixture
    def table(self, users):
        t = users.get_table("users")
        for i in (1, 2, 3):
            t.insert({"id": i, "name": f"n{i}"})
        return t

    def test_removes_row(self, table):
        assert table.delete(2) == (2, "n2", None, 18, None)
        assert list(table.rows) == [1, 3]

    def test_removes_index_entries(self, table):
        table.delete(1)
        assert table.indexes["users_pkey"].lookup((1,)) == []
        table.insert({"id": 1, "name": "again"})

    def test_rowids_are_not_reused(self, table):
        table.delete(3)
        assert table.insert({"id": 9, "name": "x"}) == 4

    def test_unknown_rowid(self, table):
        with pytest.raises(ExecutionError):
            table.delete(42)

    def test_double_delete(self, table):
        table.delete(1)
        with pytest.raises(ExecutionError):
            table.delete(1)


class TestCatalogDropTable:
    def test_drop(self, users):
        assert users.drop_table("users") is True
        assert users.tables == {}

    def test_unknown(self, users):
        with pytest.raises(CatalogError, match="no such table: nope"):
            users.drop_table("nope")

    def test_if_exists(self, users):
        assert users.drop_table("nope", if_exists=True) is False
        assert "users" in users.tables

    def test_drops_its_user_indexes_only(self, users):
        create(users, "CREATE TABLE other (x INT)")
        create_index(users, "CREATE INDEX by_name ON users (name)")
        create_index(users, "CREATE INDEX by_x ON other (x)")
        users.drop_table("users")
        assert list(users.indexes) == ["by_x"]

    def test_recreate_after_drop(self, users):
        users.drop_table("users")
        t = create(users, "CREATE TABLE users (z TEXT)")
        assert t.column_names == ["z"]


class TestCatalogCreateIndex:
    def test_indexes_existing_rows(self, users):
        t = users.get_table("users")
        t.insert({"id": 1, "name": "ann"})
        t.insert({"id": 2, "name": "bob"})
        t.insert({"id": 3, "name": "ann"})
        ix = create_index(users, "CREATE INDEX by_name ON users (name)")
        assert ix.lookup(("ann",)) == [1, 3]
        assert users.indexes["by_name"] is ix and t.indexes["by_name"] is ix
        assert not ix.unique and ix.constraint is None

    def test_maintained_by_later_writes(self, users):
        ix = create_index(users, "CREATE INDEX by_age ON users (age)")
        t = users.get_table("users")
        t.insert({"id": 1, "name": "a"})
        t.insert({"id": 2, "name": "b", "age": 30})
        assert ix.lookup((18,)) == [1]
        t.update(1, {"age": 30})
        assert ix.lookup((30,)) == [1, 2]

    def test_unique_index_enforces(self, users):
        create_index(users, "CREATE UNIQUE INDEX u_name ON users (name)")
        t = users.get_table("users")
        t.insert({"id": 1, "name": "a"})
        with pytest.raises(ConstraintError, match="UNIQUE constraint failed: users.name"):
            t.insert({"id": 2, "name": "a"})

    def test_unique_over_duplicates_fails(self, users):
        t = users.get_table("users")
        t.insert({"id": 1, "name": "a"})
        t.insert({"id": 2, "name": "a"})
        with pytest.raises(ConstraintError):
            create_index(users, "CREATE UNIQUE INDEX u_name ON users (name)")
        assert "u_name" not in users.indexes and "u_name" not in t.indexes

    def test_unknown_table_and_column(self, users):
        with pytest.raises(CatalogError, match="no such table"):
            create_index(users, "CREATE INDEX i ON nope (a)")
        with pytest.raises(CatalogError, match="no such column: users.zip"):
            create_index(users, "CREATE INDEX i ON users (zip)")

    def test_duplicate_name(self, users):
        first = create_index(users, "CREATE INDEX i ON users (name)")
        with pytest.raises(CatalogError, match="index i already exists"):
            create_index(users, "CREATE INDEX i ON users (age)")
        assert create_index(users, "CREATE INDEX IF NOT EXISTS i ON users (age)") is first


class TestCatalogDropIndex:
    def test_drop(self, users):
        create_index(users, "CREATE INDEX i ON users (name)")
        assert users.drop_index("i") is True
        assert "i" not in users.indexes and "i" not in users.get_table("users").indexes

    def test_unknown(self, users):
        with pytest.raises(CatalogError, match="no such index: i"):
            users.drop_index("i")
        assert users.drop_index("i", if_exists=True) is False

    def test_constraint_indexes_are_not_droppable(self, users):
        with pytest.raises(CatalogError):
            users.drop_index("users_pkey")
        assert "users_pkey" in users.get_table("users").indexes

    def test_dropped_unique_index_stops_enforcing(self, users):
        create_index(users, "CREATE UNIQUE INDEX u ON users (name)")
        users.drop_index("u")
        t = users.get_table("users")
        t.insert({"id": 1, "name": "a"})
        t.insert({"id": 2, "name": "a"})
        assert len(t.rows) == 2
