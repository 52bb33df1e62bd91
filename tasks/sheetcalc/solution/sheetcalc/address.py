"""Cell addressing: A1-style addresses, column letters and rectangular ranges.

Rows and columns are **0-based** internally: ``A1`` is ``(row=0, col=0)``,
``B3`` is ``(row=2, col=1)``.  Column letters continue past ``Z`` as in every
spreadsheet: ``Z, AA, AB, ..., AZ, BA, ..., ZZ, AAA, ...``.

The sheet is limited to :data:`MAX_ROWS` rows (``1..1048576`` in A1 notation)
and :data:`MAX_COLS` columns (``A..XFD``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import AddressError

MAX_ROWS = 1_048_576
MAX_COLS = 16_384

_CELL_RE = re.compile(r"(\$?)([A-Za-z]+)(\$?)([0-9]+)")


@dataclass(frozen=True)
class CellRef:
    """A reference to one cell.

    ``row`` and ``col`` are 0-based.  ``row_abs`` / ``col_abs`` record a ``$``
    in front of the row number / column letters (``$A1`` has ``col_abs``,
    ``A$1`` has ``row_abs``); absolute parts do not move when a formula is
    copied.
    """

    row: int
    col: int
    row_abs: bool = False
    col_abs: bool = False

    @property
    def key(self) -> tuple[int, int]:
        """``(row, col)``, ignoring the absolute markers."""
        return (self.row, self.col)


@dataclass(frozen=True)
class RangeRef:
    """A rectangular block of cells between two corner references.

    The corners are kept as written (``B3:A1`` keeps ``start=B3``); use
    :meth:`bounds` for the normalized rectangle.
    """

    start: CellRef
    end: CellRef

    def bounds(self) -> tuple[int, int, int, int]:
        """Return ``(top, left, bottom, right)``, all 0-based and inclusive.

        The rectangle is normalized whatever the order of the corners:
        ``B3:A1`` and ``A1:B3`` both give ``(0, 0, 2, 1)``.
        """
        top = min(self.start.row, self.end.row)
        bottom = max(self.start.row, self.end.row)
        left = min(self.start.col, self.end.col)
        right = max(self.start.col, self.end.col)
        return (top, left, bottom, right)

    def cells(self) -> list[tuple[int, int]]:
        """Return every ``(row, col)`` of the rectangle in row-major order.

        ``A1:B2`` gives ``[(0, 0), (0, 1), (1, 0), (1, 1)]``.
        """
        top, left, bottom, right = self.bounds()
        return [(r, c) for r in range(top, bottom + 1) for c in range(left, right + 1)]

    @property
    def shape(self) -> tuple[int, int]:
        """``(height, width)`` of the rectangle."""
        top, left, bottom, right = self.bounds()
        return (bottom - top + 1, right - left + 1)


def column_index(letters: str) -> int:
    """Convert column letters to a 0-based column index.

    ``"A" -> 0``, ``"Z" -> 25``, ``"AA" -> 26``, ``"AZ" -> 51``,
    ``"BA" -> 52``, ``"XFD" -> 16383``.  Letters are case-insensitive.  There
    is no upper bound check here (``"ZZZZ"`` is accepted).

    Raises :class:`AddressError` if ``letters`` is not a non-empty string of
    ASCII letters.
    """
    if not isinstance(letters, str) or not letters or not letters.isascii() or not letters.isalpha():
        raise AddressError(f"invalid column letters: {letters!r}")
    n = 0
    for ch in letters.upper():
        n = n * 26 + (ord(ch) - ord("A") + 1)
    return n - 1


def column_letters(index: int) -> str:
    """Convert a 0-based column index to upper-case column letters.

    The inverse of :func:`column_index`: ``0 -> "A"``, ``25 -> "Z"``,
    ``26 -> "AA"``, ``701 -> "ZZ"``, ``702 -> "AAA"``.

    Raises :class:`AddressError` if ``index`` is negative or not an ``int``
    (``bool`` is rejected too).
    """
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise AddressError(f"invalid column index: {index!r}")
    n = index + 1
    out = []
    while n:
        n, rem = divmod(n - 1, 26)
        out.append(chr(ord("A") + rem))
    return "".join(reversed(out))


def parse_cell(text: str) -> CellRef:
    """Parse an A1-style cell address such as ``"B3"``, ``"$C$10"`` or ``"aa7"``.

    The syntax is: optional ``$``, column letters (any case), optional ``$``,
    row digits.  Leading zeros in the row are allowed (``"A01"`` is ``A1``).
    No surrounding whitespace is allowed.

    Raises :class:`AddressError` when the text does not match that syntax,
    when the row is 0, or when the cell lies outside the sheet
    (row > :data:`MAX_ROWS` or column beyond ``XFD``).
    """
    m = _CELL_RE.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise AddressError(f"invalid cell address: {text!r}")
    col = column_index(m.group(2))
    row = int(m.group(4)) - 1
    if row < 0 or row >= MAX_ROWS or col >= MAX_COLS:
        raise AddressError(f"cell address outside the sheet: {text!r}")
    return CellRef(row, col, row_abs=bool(m.group(3)), col_abs=bool(m.group(1)))


def format_cell(ref: CellRef) -> str:
    """Format a :class:`CellRef` in A1 notation, with ``$`` on absolute parts.

    ``CellRef(2, 1) -> "B3"``; ``CellRef(0, 0, row_abs=True, col_abs=True)
    -> "$A$1"``; ``CellRef(0, 0, row_abs=True) -> "A$1"``.
    """
    col = ("$" if ref.col_abs else "") + column_letters(ref.col)
    row = ("$" if ref.row_abs else "") + str(ref.row + 1)
    return col + row


def parse_range(text: str) -> RangeRef:
    """Parse ``"A1:B3"`` (or a single cell ``"A1"``) into a :class:`RangeRef`.

    Each corner is parsed with :func:`parse_cell` and kept as written (no
    normalization; see :meth:`RangeRef.bounds`).  A single cell gives a range
    whose two corners are equal.

    Raises :class:`AddressError` for an empty corner, more than one ``:``, or
    an invalid corner.
    """
    if not isinstance(text, str):
        raise AddressError(f"invalid range: {text!r}")
    parts = text.split(":")
    if len(parts) == 1:
        cell = parse_cell(parts[0])
        return RangeRef(cell, cell)
    if len(parts) != 2:
        raise AddressError(f"invalid range: {text!r}")
    return RangeRef(parse_cell(parts[0]), parse_cell(parts[1]))


def format_range(rng: RangeRef) -> str:
    """Format a range as ``"start:end"`` (always with both corners)."""
    return f"{format_cell(rng.start)}:{format_cell(rng.end)}"


def shift_cell(ref: CellRef, drow: int, dcol: int) -> CellRef:
    """Move the relative parts of ``ref`` by ``drow`` rows and ``dcol`` columns.

    Absolute parts (``$``) stay where they are; the absolute markers are
    preserved in the result.  ``shift_cell(A1, 1, 2) -> C2``;
    ``shift_cell($A1, 1, 2) -> $A2``.

    Raises :class:`AddressError` if the moved reference falls outside the
    sheet (negative, or beyond :data:`MAX_ROWS` / :data:`MAX_COLS`).
    """
    row = ref.row if ref.row_abs else ref.row + drow
    col = ref.col if ref.col_abs else ref.col + dcol
    if not (0 <= row < MAX_ROWS and 0 <= col < MAX_COLS):
        raise AddressError(f"reference moved off the sheet: row {row}, column {col}")
    return CellRef(row, col, ref.row_abs, ref.col_abs)
