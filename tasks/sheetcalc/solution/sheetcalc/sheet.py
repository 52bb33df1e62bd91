"""The :class:`Sheet`: cells, formulas, values and automatic recalculation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .address import CellRef, format_cell, parse_cell, parse_range, MAX_COLS, MAX_ROWS
from .cellinput import parse_literal
from .errors import AddressError
from .evaluator import Evaluator
from .formatter import format_formula
from .graph import DependencyGraph
from .nodes import Node
from .parser import parse
from .refs import referenced_cells, shift_references
from .values import CIRC


@dataclass
class Cell:
    """One non-empty cell: what was typed (``raw``), its parsed formula (if any) and value."""

    raw: str
    formula: Node | None
    value: object


def _addr(key: tuple[int, int]) -> str:
    return format_cell(CellRef(key[0], key[1]))


class Sheet:
    """A single worksheet.

    Cells are addressed with A1 strings (``"B3"``; case-insensitive; ``$``
    markers are accepted and ignored).  Input starting with ``=`` is a
    formula; anything else is a literal interpreted by
    :func:`sheetcalc.cellinput.parse_literal`.

    With ``auto_recalc=True`` (the default) every edit immediately
    recomputes the edited cell and everything that depends on it.  With
    ``auto_recalc=False`` formula values are only computed by
    :meth:`recalculate`.  ``functions`` overrides the function library (see
    :class:`~sheetcalc.evaluator.Evaluator`).
    """

    def __init__(self, auto_recalc: bool = True, functions: Mapping[str, object] | None = None):
        self.auto_recalc = auto_recalc
        self.graph = DependencyGraph()
        self._cells: dict[tuple[int, int], Cell] = {}
        self._evaluator = Evaluator(self._lookup, functions)

    # -- small helpers -------------------------------------------------------

    def _lookup(self, row: int, col: int) -> object:
        cell = self._cells.get((row, col))
        return None if cell is None else cell.value

    @staticmethod
    def _key(address: str) -> tuple[int, int]:
        return parse_cell(address).key

    def get_raw(self, address: str) -> str:
        """What was typed into the cell (``""`` for an empty cell)."""
        cell = self._cells.get(self._key(address))
        return "" if cell is None else cell.raw

    def get_formula(self, address: str) -> Node | None:
        """The parsed formula of the cell, or ``None`` if it holds no formula."""
        cell = self._cells.get(self._key(address))
        return None if cell is None else cell.formula

    def addresses(self) -> list[str]:
        """The addresses of all non-empty cells, in row-major order."""
        return [_addr(k) for k in sorted(self._cells)]

    # -- units ---------------------------------------------------------------

    def set_cell(self, address: str, raw: str) -> list[str]:
        """Set what is typed into a cell and return the recalculated cells.

        * ``raw`` starting with ``=`` is a formula: it is parsed with
          :func:`sheetcalc.parser.parse`; on a syntax error the
          :class:`~sheetcalc.errors.FormulaError` propagates and the sheet is
          left unchanged.  ``raw`` is stored as typed.
        * ``""`` clears the cell (it is no longer stored).
        * anything else is a literal (:func:`~sheetcalc.cellinput.parse_literal`)
          and becomes the cell's value at once.

        The dependency graph is updated with the formula's
        :func:`~sheetcalc.refs.referenced_cells` (no precedents for literals).
        With ``auto_recalc`` the result of ``self.recalculate([address])`` is
        returned; otherwise nothing is recomputed, ``[]`` is returned and a
        new formula keeps the cell's previous value (``None`` for a cell
        that was empty) until :meth:`recalculate`.

        Raises :class:`~sheetcalc.errors.AddressError` for a bad address and
        ``TypeError`` if ``raw`` is not a ``str``.
        """
        key = self._key(address)
        if not isinstance(raw, str):
            raise TypeError(f"cell input must be str, not {type(raw).__name__}")
        formula = parse(raw) if raw.startswith("=") else None
        old = self._cells.get(key)
        if raw == "":
            self._cells.pop(key, None)
            self.graph.set_precedents(key, ())
        elif formula is not None:
            self._cells[key] = Cell(raw, formula, None if old is None else old.value)
            self.graph.set_precedents(key, referenced_cells(formula))
        else:
            self._cells[key] = Cell(raw, None, parse_literal(raw))
            self.graph.set_precedents(key, ())
        if not self.auto_recalc:
            return []
        return self.recalculate([address])

    def get_value(self, address: str) -> object:
        """Return the current value of a cell (``None`` if empty).

        Formula cells hold the value of their last computation: a number,
        text, boolean or :class:`~sheetcalc.values.CellError` (``#CIRC!`` for
        cells on a circular reference).

        Raises :class:`~sheetcalc.errors.AddressError` for a bad address.
        """
        cell = self._cells.get(self._key(address))
        return None if cell is None else cell.value

    def recalculate(self, addresses: list[str] | None = None) -> list[str]:
        """Recompute formula cells and return their addresses in computation order.

        With ``addresses=None`` every formula cell is recomputed.  Otherwise
        the cells recomputed are the formula cells among the given cells and
        everything that depends on them (:meth:`DependencyGraph.affected`).

        The cells are ordered with :meth:`DependencyGraph.evaluation_order`.
        Cells on a cycle are not evaluated: they get ``#CIRC!`` and come
        first in the result (sorted by row, then column); then the others
        are evaluated in order, each seeing the fresh values of its
        precedents.  Cells downstream of a cycle just see ``#CIRC!`` values.
        Returned addresses are upper-case without ``$`` (``"B2"``).
        """
        if addresses is None:
            targets = set(self._cells)
        else:
            targets = self.graph.affected(self._key(a) for a in addresses)
        formula_cells = {k for k in targets if k in self._cells and self._cells[k].formula is not None}
        order, cyclic = self.graph.evaluation_order(formula_cells)
        done = []
        for key in sorted(cyclic):
            self._cells[key].value = CIRC
            done.append(_addr(key))
        for key in order:
            cell = self._cells[key]
            cell.value = self._evaluator.evaluate(cell.formula)
            done.append(_addr(key))
        return done

    def evaluate(self, formula: str) -> object:
        """Evaluate formula text against the current cell values without storing it.

        The leading ``=`` is optional.  The result is what a cell with that
        formula would hold (see :meth:`Evaluator.evaluate`): ``Sheet().evaluate("=1+2")
        == 3.0``.  Raises :class:`~sheetcalc.errors.FormulaError` on a
        syntax error.
        """
        return self._evaluator.evaluate(parse(formula))

    def copy_cell(self, source: str, dest: str) -> list[str]:
        """Copy a cell's input to ``dest`` as copy/paste does, and return ``set_cell``'s result.

        A formula's references are moved by the offset from ``source`` to
        ``dest`` (:func:`~sheetcalc.refs.shift_references`; ``$`` parts stay,
        references pushed off the sheet become ``#REF!``) and ``dest`` gets
        ``"=" + format_formula(moved)``.  A literal is copied as typed; an
        empty source clears ``dest``.

        Raises :class:`~sheetcalc.errors.AddressError` for a bad address.
        """
        src = parse_cell(source)
        dst = parse_cell(dest)
        cell = self._cells.get(src.key)
        if cell is None:
            raw = ""
        elif cell.formula is None:
            raw = cell.raw
        else:
            moved = shift_references(cell.formula, dst.row - src.row, dst.col - src.col)
            raw = "=" + format_formula(moved)
        return self.set_cell(dest, raw)

    def copy_range(self, source: str, dest: str) -> list[str]:
        """Copy a rectangular block whose top-left corner goes to ``dest``.

        ``source`` is a range such as ``"A1:B3"`` (a single cell is allowed);
        every cell of it, empty ones included, is copied as by
        :meth:`copy_cell` to the same relative position from ``dest``.  All
        source inputs are read before anything is written, so overlapping
        source and destination blocks behave like a real paste.  Returns the
        destination addresses written, in row-major order.

        Raises :class:`~sheetcalc.errors.AddressError` for bad addresses or
        when the destination block does not fit on the sheet (nothing is
        written then).
        """
        top, left, bottom, right = parse_range(source).bounds()
        dst = parse_cell(dest)
        height, width = bottom - top + 1, right - left + 1
        if dst.row + height > MAX_ROWS or dst.col + width > MAX_COLS:
            raise AddressError(f"destination of {source!r} at {dest!r} does not fit on the sheet")
        drow, dcol = dst.row - top, dst.col - left
        pending = []
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                cell = self._cells.get((r, c))
                if cell is None:
                    raw = ""
                elif cell.formula is None:
                    raw = cell.raw
                else:
                    raw = "=" + format_formula(shift_references(cell.formula, drow, dcol))
                pending.append((_addr((r + drow, c + dcol)), raw))
        for address, raw in pending:
            self.set_cell(address, raw)
        return [address for address, _ in pending]

    def used_range(self) -> tuple[int, int]:
        """Return ``(rows, cols)``: the size of the block from ``A1`` holding every non-empty cell.

        That is ``(max row index + 1, max column index + 1)`` over non-empty
        cells, e.g. a sheet with only ``C2`` set gives ``(2, 3)``.  An empty
        sheet gives ``(0, 0)``.  Cleared cells do not count.
        """
        if not self._cells:
            return (0, 0)
        return (max(r for r, _ in self._cells) + 1, max(c for _, c in self._cells) + 1)
