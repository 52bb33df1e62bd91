"""Layer 2: reference analysis and rewriting (sheetcalc.refs)."""

from sheetcalc.formatter import format_formula
from sheetcalc.nodes import ErrorLiteral
from sheetcalc.parser import parse
from sheetcalc.refs import referenced_cells, shift_references


class TestReferencedCells:
    def test_no_references(self):
        assert referenced_cells(parse("=1+2*3")) == set()

    def test_single(self):
        assert referenced_cells(parse("=B3")) == {(2, 1)}

    def test_absolute_ignored(self):
        assert referenced_cells(parse("=$B$3+B3")) == {(2, 1)}

    def test_range_expanded(self):
        assert referenced_cells(parse("=SUM(A1:B2)")) == {(0, 0), (0, 1), (1, 0), (1, 1)}

    def test_nested_everywhere(self):
        tree = parse('=IF(-A1%>0, B1&"x", MAX(C1:C2, (D1+1)^E1))')
        assert referenced_cells(tree) == {(0, 0), (0, 1), (0, 2), (1, 2), (0, 3), (0, 4)}

    def test_reversed_range(self):
        assert referenced_cells(parse("=C2:B1")) == {(0, 1), (0, 2), (1, 1), (1, 2)}


def moved(formula, drow, dcol):
    return format_formula(shift_references(parse(formula), drow, dcol))


class TestShiftReferences:
    def test_relative_moves(self):
        assert moved("=A1+B2", 1, 1) == "B2+C3"

    def test_absolute_stays(self):
        assert moved("=$A$1*A1", 2, 0) == "$A$1*A3"

    def test_mixed_references(self):
        assert moved("=$A1+A$1", 3, 3) == "$A4+D$1"

    def test_range_both_corners(self):
        assert moved("=SUM(A1:B2)", 0, 2) == "SUM(C1:D2)"

    def test_range_with_absolute_corner(self):
        assert moved("=SUM($A$1:A3)", 1, 0) == "SUM($A$1:A4)"

    def test_off_sheet_reference_becomes_ref_error(self):
        assert moved("=A1+B1", 0, -1) == "#REF!+A1"

    def test_off_sheet_range_becomes_ref_error(self):
        assert shift_references(parse("=A1:B2"), -1, 0) == ErrorLiteral("#REF!")

    def test_inside_function_arguments(self):
        assert moved("=IF(A1>0,-B1%,C1&D1)", 1, 0) == "IF(A2>0,-B2%,C2&D2)"

    def test_no_references_unchanged(self):
        tree = parse('=1+"A1"')
        assert shift_references(tree, 5, 5) == tree

    def test_input_not_modified(self):
        tree = parse("=A1")
        shift_references(tree, 1, 1)
        assert format_formula(tree) == "A1"
