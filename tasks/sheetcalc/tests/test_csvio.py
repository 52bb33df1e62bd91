"""Layer 5: CSV import and export (sheetcalc.csvio)."""

from sheetcalc.csvio import export_csv, import_csv
from sheetcalc.sheet import Sheet
from sheetcalc.values import CellError


def sheet_with(**cells):
    s = Sheet()
    for addr, raw in cells.items():
        s.set_cell(addr, raw)
    return s


class TestExportCsv:
    def test_empty_sheet(self):
        assert export_csv(Sheet()) == ""

    def test_values_not_formulas(self):
        s = sheet_with(A1="2", B1="=A1*21")
        assert export_csv(s) == "2,42\n"

    def test_rectangular_with_blanks(self):
        s = sheet_with(A1="x", C2="y")
        assert export_csv(s) == "x,,\n,,y\n"

    def test_value_formatting(self):
        s = sheet_with(A1="2.50", B1="TRUE", C1="=1/3", D1="=1/0", E1="'007")
        assert export_csv(s) == "2.5,TRUE,0.333333333333333,#DIV/0!,007\n"

    def test_quoting(self):
        s = sheet_with(A1="a,b", B1='say "hi"', C1="plain")
        assert export_csv(s) == '"a,b","say ""hi""",plain\n'

    def test_leading_empty_rows_and_columns_kept(self):
        s = sheet_with(B2="1")
        assert export_csv(s) == ",\n,1\n"

    def test_circular_reference(self):
        s = sheet_with(A1="=A1")
        assert export_csv(s) == "#CIRC!\n"


class TestImportCsv:
    def test_typed_values(self):
        s = import_csv("1,2.5,TRUE,hello\n")
        assert [s.get_value(a) for a in ("A1", "B1", "C1", "D1")] == [1.0, 2.5, True, "hello"]

    def test_rows_and_empty_fields(self):
        s = import_csv("a,,c\n,,\nx\n")
        assert s.get_value("A1") == "a"
        assert s.get_value("B1") is None
        assert s.get_value("C1") == "c"
        assert s.get_value("A3") == "x"
        assert s.used_range() == (3, 3)

    def test_quoted_fields(self):
        s = import_csv('"a,b","say ""hi""","1"\n')
        assert s.get_value("A1") == "a,b"
        assert s.get_value("B1") == 'say "hi"'
        assert s.get_value("C1") == 1.0

    def test_formulas_off_by_default(self):
        s = import_csv("1,=A1+1\n")
        assert s.get_value("B1") == "=A1+1"

    def test_formulas_enabled(self):
        s = import_csv("=B1*2,21\n", formulas=True)
        assert s.get_value("A1") == 42.0

    def test_error_codes(self):
        assert import_csv("#N/A\n").get_value("A1") == CellError("#N/A")

    def test_manual_recalc(self):
        s = import_csv("1,=A1+1\n", formulas=True, auto_recalc=False)
        assert s.get_value("B1") is None
        s.recalculate()
        assert s.get_value("B1") == 2.0

    def test_round_trip(self):
        text = "name,qty,price\napple,3,0.5\n\"pear, green\",10,1.25\n"
        assert export_csv(import_csv(text)) == text

    def test_empty_text(self):
        assert import_csv("").used_range() == (0, 0)
