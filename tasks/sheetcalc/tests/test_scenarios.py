"""End-to-end scenarios that combine every layer."""

import pytest

from sheetcalc import Sheet, export_csv, import_csv
from sheetcalc.values import CIRC, NA


class TestBudgetScenario:
    def build(self):
        s = Sheet()
        rows = [("Rent", "1200"), ("Food", "450.5"), ("Transport", "120"), ("Fun", "80")]
        for i, (name, amount) in enumerate(rows, start=2):
            s.set_cell(f"A{i}", name)
            s.set_cell(f"B{i}", amount)
            s.set_cell(f"C{i}", f"=B{i}/$B$7")
        s.set_cell("A7", "Total")
        s.set_cell("B7", "=SUM(B2:B5)")
        s.set_cell("D1", '=IF(B7>1800, "over", "ok")')
        return s

    def test_totals_and_shares(self):
        s = self.build()
        assert s.get_value("B7") == 1850.5
        assert s.get_value("C2") == pytest.approx(1200 / 1850.5)
        assert s.get_value("D1") == "over"

    def test_edit_propagates_through_total(self):
        s = self.build()
        recalculated = s.set_cell("B4", "20")
        assert recalculated[0] == "B7"
        assert set(recalculated) == {"B7", "C2", "C3", "C4", "C5", "D1"}
        assert s.get_value("D1") == "ok"
        assert s.evaluate("=ROUND(SUM(C2:C5), 10)") == 1.0

    def test_export(self):
        s = self.build()
        s.set_cell("B3", "400")
        lines = export_csv(s).splitlines()
        assert lines[0] == ",,,ok"
        assert lines[6] == "Total,1800,,"


class TestGradebookScenario:
    def test_fill_down_and_lookup(self):
        s = import_csv("0,F\n60,D\n70,C\n80,B\n90,A\n")
        names = ["ann", "bob", "cy"]
        scores = ["91", "58", "74.5"]
        for i, (n, sc) in enumerate(zip(names, scores), start=1):
            s.set_cell(f"D{i}", n)
            s.set_cell(f"E{i}", sc)
        s.set_cell("F1", "=VLOOKUP(E1, $A$1:$B$5, 2)")
        s.copy_range("F1", "F2")
        s.copy_range("F1:F2", "F3")
        assert s.get_raw("F3") == "=VLOOKUP(E3,$A$1:$B$5,2)"
        assert [s.get_value(f"F{i}") for i in (1, 2, 3)] == ["A", "F", "C"]
        assert s.evaluate('=COUNTIF(F1:F3, "<>F")') == 2.0
        assert s.evaluate('=AVERAGEIF(F1:F3, "<>F", E1:E3)') == pytest.approx(82.75)

    def test_missing_lookup_and_iferror(self):
        s = Sheet()
        s.set_cell("A1", "key")
        s.set_cell("B1", "=VLOOKUP(\"nope\", A1:A1, 1, FALSE)")
        s.set_cell("C1", '=IFERROR(B1, "missing")')
        assert s.get_value("B1") == NA
        assert s.get_value("C1") == "missing"


class TestCycleScenario:
    def test_cycle_created_and_broken(self):
        s = Sheet()
        s.set_cell("A1", "1")
        s.set_cell("B1", "=A1+1")
        s.set_cell("C1", "=B1*2")
        s.set_cell("A1", "=C1")
        assert [s.get_value(a) for a in ("A1", "B1", "C1")] == [CIRC, CIRC, CIRC]
        s.set_cell("D1", "=IFERROR(C1, -1)")
        assert s.get_value("D1") == -1.0
        s.set_cell("A1", "5")
        assert [s.get_value(a) for a in ("A1", "B1", "C1", "D1")] == [5.0, 6.0, 12.0, 12.0]

    def test_text_report(self):
        s = Sheet()
        s.set_cell("A1", "  widget  ")
        s.set_cell("B1", "3")
        s.set_cell("C1", '=UPPER(LEFT(TRIM(A1), 1)) & MID(TRIM(A1), 2, 99) & " x" & B1')
        assert s.get_value("C1") == "Widget x3"
        s.set_cell("B1", "=2^3")
        assert s.get_value("C1") == "Widget x8"
        assert s.evaluate("=LEN(C1)") == 9.0
