"""CSV import and export of sheet *values*."""

from __future__ import annotations

import csv
import io

from .sheet import Sheet, _addr
from .values import CellError, to_text


def export_csv(sheet: Sheet) -> str:
    """Write the values of ``sheet`` as CSV text.

    The block from ``A1`` to :meth:`Sheet.used_range` is written, one line
    per row (lines end with ``"\\n"``, including the last one), every row
    with the same number of fields.  Values are written as
    :func:`~sheetcalc.values.to_text` shows them (``3.0 -> 3``, ``TRUE``),
    errors as their code, empty cells as empty fields.  Formulas are not
    exported, only their values.  Fields are quoted as the :mod:`csv` module
    does by default (when they contain a comma, quote or newline).  An empty
    sheet gives ``""``.
    """
    rows, cols = sheet.used_range()
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for r in range(rows):
        line = []
        for c in range(cols):
            v = sheet.get_value(_addr((r, c)))
            line.append(v.code if isinstance(v, CellError) else to_text(v))
        writer.writerow(line)
    return buf.getvalue()


def import_csv(text: str, formulas: bool = False, auto_recalc: bool = True) -> Sheet:
    """Build a new :class:`Sheet` from CSV text (parsed with the :mod:`csv` module).

    Field ``j`` of line ``i`` goes to the cell at row ``i``, column ``j``
    (``A1`` is the first field of the first line).  Empty fields leave the
    cell empty; other fields are typed with
    :func:`~sheetcalc.cellinput.parse_literal` through
    :meth:`Sheet.set_cell` (``"42"`` becomes a number, ``"TRUE"`` a boolean).
    As with typed input, a leading apostrophe forces text and is dropped.
    A field starting with ``=`` is stored as text (the exact field) unless
    ``formulas`` is true, in which case it is a formula (formulas may refer
    to cells that come later in the file).  ``auto_recalc`` is passed to
    the new sheet.
    """
    sheet = Sheet(auto_recalc=auto_recalc)
    for r, row in enumerate(csv.reader(io.StringIO(text))):
        for c, field in enumerate(row):
            if field == "":
                continue
            if field.startswith("=") and not formulas:
                field = "'" + field
            sheet.set_cell(_addr((r, c)), field)
    return sheet
