"""Layer 3: tables, hash indexes and the catalog.

A `Table` keeps its rows in a dict ``rowid -> tuple`` (rowids start at 1, are
never reused, and iteration follows rowid order). Constraints are enforced
on every write: types (via `minidb.values.coerce_value`), NOT NULL, and
PRIMARY KEY / UNIQUE through unique `HashIndex`es that the catalog creates for
those constraints. User indexes (CREATE INDEX) are hash indexes too and are
kept up to date by every insert, update and delete.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from minidb.errors import CatalogError, ConstraintError, ExecutionError, TypeMismatchError
from minidb.syntax import CreateIndex, CreateTable
from minidb.values import coerce_value, value_key


@dataclass
class ColumnSchema:
    """A column of a table: its name, type, optional VARCHAR length, nullability, default."""

    name: str
    type_name: str
    length: int | None = None
    not_null: bool = False
    default: Any = None


class HashIndex:
    """An index mapping the values of some columns to the rowids holding them.

    Keys are tuples of column values. A key containing NULL is never stored
    (NULLs are not indexed, so a UNIQUE column may hold many NULLs), and
    lookups of such a key find nothing. Equal SQL values map to the same entry
    (``1`` and ``1.0`` do; ``1`` and ``True`` do not).

    Attributes:
        name: the index name.
        table: the name of the indexed table.
        columns: the indexed column names.
        positions: the positions of those columns in the table's rows.
        unique: whether two rows may share a key.
        constraint: 'PRIMARY KEY' or 'UNIQUE' for indexes that enforce a
            constraint (including CREATE UNIQUE INDEX), None otherwise.
        entries: normalised key -> set of rowids.
    """

    def __init__(
        self,
        name: str,
        table: str,
        columns: tuple[str, ...],
        positions: tuple[int, ...],
        unique: bool = False,
        constraint: str | None = None,
    ):
        """Create an empty index."""
        self.name = name
        self.table = table
        self.columns = tuple(columns)
        self.positions = tuple(positions)
        self.unique = unique
        self.constraint = constraint or ("UNIQUE" if unique else None)
        self.entries: dict[tuple, set[int]] = {}

    def key_of(self, row: tuple) -> tuple:
        """The key of a table row: its values at ``positions``."""
        return tuple(row[p] for p in self.positions)

    def conflict(self) -> ConstraintError:
        """The error for a duplicate key, e.g. "UNIQUE constraint failed: users.email"."""
        cols = ", ".join(f"{self.table}.{c}" for c in self.columns)
        return ConstraintError(f"{self.constraint or 'UNIQUE'} constraint failed: {cols}")

    @staticmethod
    def _norm(key: tuple) -> tuple | None:
        if any(v is None for v in key):
            return None
        return tuple(value_key(v) for v in key)

    def insert(self, key: tuple, rowid: int) -> None:
        """Record that row ``rowid`` has ``key``.

        A key containing None is ignored. Adding the same (key, rowid) twice is a
        no-op.

        Raises:
            ConstraintError: the index is unique and another rowid already has an
                equal key (message from `conflict`); the index is left unchanged.
        """
        norm = self._norm(key)
        if norm is None:
            return
        holders = self.entries.get(norm)
        if holders is None:
            self.entries[norm] = {rowid}
            return
        if self.unique and holders - {rowid}:
            raise self.conflict()
        holders.add(rowid)

    def remove(self, key: tuple, rowid: int) -> None:
        """Forget that row ``rowid`` has ``key``.

        A key containing None, or a (key, rowid) pair that is not present, is
        ignored. A key left with no rowids disappears from ``entries``.
        """
        norm = self._norm(key)
        if norm is None:
            return
        holders = self.entries.get(norm)
        if holders is None:
            return
        holders.discard(rowid)
        if not holders:
            del self.entries[norm]

    def lookup(self, key: tuple) -> list[int]:
        """The rowids whose key equals ``key``, in ascending order.

        A key containing None finds nothing (``[]``).
        """
        norm = self._norm(key)
        if norm is None:
            return []
        return sorted(self.entries.get(norm, ()))


class Table:
    """A table: schema, rows and indexes.

    Attributes:
        name: table name.
        columns: the `ColumnSchema`s, in declaration order.
        primary_key: the primary-key column names (``()`` if none).
        rows: rowid -> row tuple (values in column order), in rowid order.
        next_rowid: the rowid the next insert gets.
        indexes: index name -> `HashIndex` (constraint indexes and user indexes).
    """

    def __init__(self, name: str, columns: list[ColumnSchema], primary_key: tuple[str, ...] = ()):
        """Create an empty table (the catalog adds the constraint indexes)."""
        self.name = name
        self.columns = list(columns)
        self.primary_key = tuple(primary_key)
        self.rows: dict[int, tuple] = {}
        self.next_rowid = 1
        self.indexes: dict[str, HashIndex] = {}

    @property
    def column_names(self) -> list[str]:
        """The column names in declaration order."""
        return [c.name for c in self.columns]

    def position(self, column: str) -> int:
        """The position of ``column`` in a row; `CatalogError` "no such column: t.c" if absent."""
        for i, c in enumerate(self.columns):
            if c.name == column:
                return i
        raise CatalogError(f"no such column: {self.name}.{column}")

    def scan(self) -> list[tuple[int, tuple]]:
        """All (rowid, row) pairs in rowid order."""
        return list(self.rows.items())

    def build_row(self, values: dict[str, Any], base: tuple | None = None) -> tuple:
        """Build a validated row tuple from column values.

        For each column, in order: if its name is in ``values`` the value is
        converted with `coerce_value` (column type and length); otherwise it is
        taken from ``base`` when given (an existing row, for updates), else the
        column's default (None when there is none). Every resulting value of a
        NOT NULL column (primary-key columns are NOT NULL) must not be None.
        Nothing is stored; uniqueness is not checked here.

        Raises:
            CatalogError: a key of ``values`` is not a column ("no such column: t.x").
            TypeMismatchError: a value cannot be converted; the message starts
                with "t.col: ".
            ConstraintError: a NOT NULL column would be NULL
                ("NOT NULL constraint failed: t.col"), or a VARCHAR length is exceeded.
        """
        names = {c.name for c in self.columns}
        for key in values:
            if key not in names:
                raise CatalogError(f"no such column: {self.name}.{key}")
        out = []
        for i, col in enumerate(self.columns):
            if col.name in values:
                try:
                    value = coerce_value(values[col.name], col.type_name, col.length)
                except TypeMismatchError as e:
                    raise TypeMismatchError(f"{self.name}.{col.name}: {e}") from None
            elif base is not None:
                value = base[i]
            else:
                value = col.default
            if value is None and col.not_null:
                raise ConstraintError(f"NOT NULL constraint failed: {self.name}.{col.name}")
            out.append(value)
        return tuple(out)

    def insert(self, values: dict[str, Any]) -> int:
        """Insert a row given as {column: value} and return its new rowid.

        The row is built with `build_row` (missing columns get their defaults).
        Before anything is stored, every unique index is checked: if a row with
        an equal non-NULL key exists, `ConstraintError` is raised (e.g. "PRIMARY
        KEY constraint failed: users.id") and neither the table nor any index
        changes. Then the row is stored under ``next_rowid`` (which advances by
        one) and added to every index.

        Raises:
            CatalogError, TypeMismatchError, ConstraintError: see `build_row`,
                and ConstraintError for a uniqueness violation.
        """
        row = self.build_row(values)
        for index in self.indexes.values():
            if index.unique and index.lookup(index.key_of(row)):
                raise index.conflict()
        rowid = self.next_rowid
        self.next_rowid += 1
        self.rows[rowid] = row
        for index in self.indexes.values():
            index.insert(index.key_of(row), rowid)
        return rowid

    def update(self, rowid: int, changes: dict[str, Any]) -> tuple:
        """Change some columns of row ``rowid`` and return the new row tuple.

        The new row is `build_row(changes, base=old_row)`. Every unique index is
        checked against rows *other than* ``rowid`` (keeping a row's own key is
        fine) before anything changes. Then the old key is removed from and the
        new key added to every index, and the row is replaced (its rowid stays).

        Raises:
            ExecutionError: no row has this rowid ("no row with rowid N in t").
            CatalogError, TypeMismatchError, ConstraintError: as for `insert`;
                on error the table and its indexes are unchanged.
        """
        if rowid not in self.rows:
            raise ExecutionError(f"no row with rowid {rowid} in {self.name}")
        old = self.rows[rowid]
        new = self.build_row(changes, base=old)
        for index in self.indexes.values():
            if index.unique and [r for r in index.lookup(index.key_of(new)) if r != rowid]:
                raise index.conflict()
        for index in self.indexes.values():
            index.remove(index.key_of(old), rowid)
            index.insert(index.key_of(new), rowid)
        self.rows[rowid] = new
        return new

    def delete(self, rowid: int) -> tuple:
        """Delete row ``rowid``, removing it from every index; return the deleted row.

        Rowids are never reused: a later insert still gets ``next_rowid``.

        Raises:
            ExecutionError: no row has this rowid ("no row with rowid N in t").
        """
        if rowid not in self.rows:
            raise ExecutionError(f"no row with rowid {rowid} in {self.name}")
        row = self.rows.pop(rowid)
        for index in self.indexes.values():
            index.remove(index.key_of(row), rowid)
        return row


class Catalog:
    """All tables and user-created indexes of a database.

    Attributes:
        tables: table name -> `Table`.
        indexes: user index name -> `HashIndex` (constraint indexes live only in
            their table's ``indexes``).
    """

    def __init__(self):
        """Create an empty catalog."""
        self.tables: dict[str, Table] = {}
        self.indexes: dict[str, HashIndex] = {}

    def get_table(self, name: str) -> Table:
        """The table called ``name``; `CatalogError` "no such table: name" if absent."""
        try:
            return self.tables[name]
        except KeyError:
            raise CatalogError(f"no such table: {name}") from None

    def create_table(self, stmt: CreateTable) -> Table:
        """Create a table from a parsed CREATE TABLE and return it.

        - If the table exists: with IF NOT EXISTS the existing table is returned
          unchanged; otherwise `CatalogError` "table t already exists".
        - Column names must be distinct ("duplicate column name: c").
        - At most one primary key: marking two columns PRIMARY KEY, or a column
          and a table-level PRIMARY KEY (...), is `CatalogError` "table t has
          more than one primary key".
        - Table-level PRIMARY KEY/UNIQUE must name existing columns
          (`CatalogError` "no such column: c").
        - DEFAULT values are converted to the column type at creation
          (`coerce_value`; a bad default raises `TypeMismatchError` and no table
          is created).
        - Primary-key columns become NOT NULL.
        - Constraint indexes are created, in this order: the primary key (unique
          `HashIndex` named ``<table>_pkey``, constraint 'PRIMARY KEY'); each
          column-level UNIQUE in column order, then each table-level UNIQUE
          (named ``<table>_<col>[_<col>...]_key``, constraint 'UNIQUE').

        Raises:
            CatalogError, TypeMismatchError, ConstraintError: as described; on
                error the catalog is unchanged.
        """
        if stmt.name in self.tables:
            if stmt.if_not_exists:
                return self.tables[stmt.name]
            raise CatalogError(f"table {stmt.name} already exists")
        names = [c.name for c in stmt.columns]
        for i, n in enumerate(names):
            if n in names[:i]:
                raise CatalogError(f"duplicate column name: {n}")
        pk_cols = [c.name for c in stmt.columns if c.primary_key]
        if len(pk_cols) > 1 or (pk_cols and stmt.primary_key):
            raise CatalogError(f"table {stmt.name} has more than one primary key")
        primary_key = tuple(pk_cols) or tuple(stmt.primary_key)
        for group in (primary_key, *stmt.uniques):
            for n in group:
                if n not in names:
                    raise CatalogError(f"no such column: {n}")
        columns = []
        for c in stmt.columns:
            default = None
            if c.default is not None:
                default = coerce_value(c.default.value, c.type_name, c.length)
            not_null = c.not_null or c.name in primary_key
            columns.append(ColumnSchema(c.name, c.type_name, c.length, not_null, default))
        table = Table(stmt.name, columns, primary_key)

        def add(cols: tuple[str, ...], name: str, constraint: str) -> None:
            positions = tuple(table.position(c) for c in cols)
            table.indexes[name] = HashIndex(name, table.name, cols, positions, True, constraint)

        if primary_key:
            add(primary_key, f"{table.name}_pkey", "PRIMARY KEY")
        for c in stmt.columns:
            if c.unique:
                add((c.name,), f"{table.name}_{c.name}_key", "UNIQUE")
        for group in stmt.uniques:
            add(tuple(group), f"{table.name}_{'_'.join(group)}_key", "UNIQUE")
        self.tables[table.name] = table
        return table

    def drop_table(self, name: str, if_exists: bool = False) -> bool:
        """Drop table ``name`` together with its user indexes.

        Returns:
            True if a table was dropped; False if it did not exist and
            ``if_exists`` is true.

        Raises:
            CatalogError: "no such table: name" when it does not exist and
                ``if_exists`` is false.
        """
        if name not in self.tables:
            if if_exists:
                return False
            raise CatalogError(f"no such table: {name}")
        del self.tables[name]
        for idx_name in [n for n, ix in self.indexes.items() if ix.table == name]:
            del self.indexes[idx_name]
        return True

    def create_index(self, stmt: CreateIndex) -> HashIndex:
        """Create a user index from a parsed CREATE INDEX and return it.

        The index covers one column, is filled from the table's existing rows,
        and is registered both in ``self.indexes`` and in the table's
        ``indexes``. A UNIQUE index has constraint 'UNIQUE' and enforces it from
        then on.

        Raises:
            CatalogError: the table does not exist ("no such table: t"), the column
                does not exist ("no such column: t.c"), or the index name is taken
                ("index i already exists"; with IF NOT EXISTS the existing index is
                returned instead).
            ConstraintError: a UNIQUE index over existing duplicate values; the
                index is then not created.
        """
        table = self.get_table(stmt.table)
        if stmt.name in self.indexes:
            if stmt.if_not_exists:
                return self.indexes[stmt.name]
            raise CatalogError(f"index {stmt.name} already exists")
        pos = table.position(stmt.column)
        index = HashIndex(stmt.name, table.name, (stmt.column,), (pos,), stmt.unique)
        for rowid, row in table.scan():
            index.insert(index.key_of(row), rowid)
        table.indexes[stmt.name] = index
        self.indexes[stmt.name] = index
        return index

    def drop_index(self, name: str, if_exists: bool = False) -> bool:
        """Drop the user index ``name`` from the catalog and from its table.

        Constraint indexes (``t_pkey``, ``t_c_key``) are not user indexes and
        cannot be dropped this way.

        Returns:
            True if dropped; False if absent and ``if_exists`` is true.

        Raises:
            CatalogError: "no such index: name" if absent and ``if_exists`` is false.
        """
        if name not in self.indexes:
            if if_exists:
                return False
            raise CatalogError(f"no such index: {name}")
        index = self.indexes.pop(name)
        table = self.tables.get(index.table)
        if table is not None:
            table.indexes.pop(name, None)
        return True
