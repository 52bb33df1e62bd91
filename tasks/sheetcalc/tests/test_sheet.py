"""Layer 4: the Sheet -- storage, dependency tracking, recalculation, copy/paste."""

import pytest

from sheetcalc.errors import AddressError, FormulaError, ParseError
from sheetcalc.functions import FunctionSpec
from sheetcalc.sheet import Sheet
from sheetcalc.values import CIRC, DIV0, REF, CellError, RangeValue


def total(*args):
    """A tiny stand-in for SUM, so that these tests do not need the function library."""
    out = 0.0
    for a in args:
        for v in a.values() if isinstance(a, RangeValue) else [a]:
            if isinstance(v, CellError):
                return v
            if isinstance(v, float):
                out += v
    return out


FUNCS = {"TOTAL": FunctionSpec(total, 1, None)}


def sheet_with(**cells):
    s = Sheet(functions=FUNCS)
    for addr, raw in cells.items():
        s.set_cell(addr, raw)
    return s


def manual(**cells):
    """A sheet in manual mode: set_cell stores and parses, nothing is recomputed."""
    s = Sheet(auto_recalc=False, functions=FUNCS)
    for addr, raw in cells.items():
        s.set_cell(addr, raw)
    return s


class TestGetValue:
    def test_empty_cell(self):
        assert Sheet().get_value("A1") is None

    def test_literal_number(self):
        s = manual(B2="42")
        assert s.get_value("B2") == 42.0

    def test_address_case_and_dollars_ignored(self):
        s = manual(c3="x")
        assert s.get_value("C3") == s.get_value("$C$3") == "x"

    def test_bad_address(self):
        with pytest.raises(AddressError):
            Sheet().get_value("3C")


class TestSetCell:
    @pytest.mark.parametrize(
        "raw, expected",
        [
            ("12.5", 12.5),
            ("TRUE", True),
            ("hello", "hello"),
            ("'007", "007"),
            ("'=1+1", "=1+1"),
            ("#N/A", CellError("#N/A")),
        ],
    )
    def test_typed_literals(self, raw, expected):
        assert manual(A1=raw).get_value("A1") == expected

    def test_raw_is_kept_as_typed(self):
        s = manual(A1="= 1 +  1", B1=" 7 ")
        assert s.get_raw("A1") == "= 1 +  1"
        assert s.get_raw("B1") == " 7 "

    def test_formula_is_parsed(self):
        s = manual(A1="=A2+1")
        assert s.get_formula("A1") is not None
        assert s.get_formula("A2") is None

    def test_manual_mode_returns_nothing(self):
        assert manual().set_cell("A1", "=1") == []

    def test_new_formula_has_no_value_yet(self):
        assert manual(A1="=1+1").get_value("A1") is None

    def test_literal_replaces_formula(self):
        s = manual(A1="=1")
        s.set_cell("A1", "2")
        assert s.get_formula("A1") is None
        assert s.get_value("A1") == 2.0

    def test_dependencies_recorded(self):
        s = manual(C1="=A1+TOTAL(B1:B2)")
        assert s.graph.precedents((0, 2)) == {(0, 0), (0, 1), (1, 1)}
        assert s.graph.dependents((0, 0)) == {(0, 2)}

    def test_dependencies_replaced(self):
        s = manual(C1="=A1")
        s.set_cell("C1", "=B1")
        assert s.graph.dependents((0, 0)) == frozenset()
        assert s.graph.precedents((0, 2)) == {(0, 1)}

    def test_literal_clears_dependencies(self):
        s = manual(C1="=A1")
        s.set_cell("C1", "5")
        assert s.graph.precedents((0, 2)) == frozenset()

    def test_clear_cell(self):
        s = manual(A1="5", B1="=A1")
        s.set_cell("A1", "")
        s.set_cell("B1", "")
        assert s.get_value("A1") is None
        assert s.get_raw("A1") == ""
        assert s.addresses() == []
        assert s.graph.dependents((0, 0)) == frozenset()

    def test_syntax_error_leaves_sheet_unchanged(self):
        s = manual(A1="=1+1")
        with pytest.raises(ParseError):
            s.set_cell("A1", "=1+")
        assert s.get_raw("A1") == "=1+1"

    def test_lex_error_is_formula_error(self):
        with pytest.raises(FormulaError):
            manual().set_cell("A1", '="abc')

    def test_lone_equals_is_an_error(self):
        with pytest.raises(ParseError):
            manual().set_cell("A1", "=")

    def test_non_string_input(self):
        with pytest.raises(TypeError):
            manual().set_cell("A1", 5)

    def test_bad_address(self):
        with pytest.raises(AddressError):
            manual().set_cell("A0", "1")

    def test_addresses_row_major(self):
        assert manual(B2="1", A2="1", C1="1").addresses() == ["C1", "A2", "B2"]


class TestAutoRecalc:
    @pytest.mark.parametrize(
        "raw, expected",
        [("=1+1", 2.0), ('="a"&"b"', "ab"), ("=1/0", DIV0), ("=A2", 0.0), ("=NOSUCH(1)", CellError("#NAME?"))],
    )
    def test_formula_values(self, raw, expected):
        assert sheet_with(A1=raw).get_value("A1") == expected

    def test_formula_reads_other_cells(self):
        s = sheet_with(A1="3", A2="4", A3="=A1*A1+A2*A2")
        assert s.get_value("A3") == 25.0

    def test_forward_reference_filled_later(self):
        s = sheet_with(A1="=B1*2")
        assert s.get_value("A1") == 0.0
        s.set_cell("B1", "21")
        assert s.get_value("A1") == 42.0

    def test_returns_recalculated_cells(self):
        s = sheet_with(A1="1", B1="=A1+1", C1="=B1+1")
        assert s.set_cell("A1", "5") == ["B1", "C1"]

    def test_literal_without_dependents_returns_nothing(self):
        assert Sheet().set_cell("A1", "5") == []

    def test_new_formula_cell_is_returned(self):
        assert Sheet().set_cell("D4", "=1") == ["D4"]

    def test_clearing_updates_dependents(self):
        s = sheet_with(A1="5", B1="=A1*2")
        s.set_cell("A1", "")
        assert s.get_value("B1") == 0.0

    def test_replace_formula_with_literal(self):
        s = sheet_with(A1="1", B1="=A1", C1="=B1*10")
        s.set_cell("B1", "7")
        assert s.get_value("C1") == 70.0
        s.set_cell("A1", "100")
        assert s.get_value("B1") == 7.0

    def test_syntax_error_keeps_value(self):
        s = sheet_with(A1="=1+1")
        with pytest.raises(ParseError):
            s.set_cell("A1", "=1+")
        assert s.get_value("A1") == 2.0

    def test_error_values_propagate_between_cells(self):
        s = sheet_with(A1="=1/0", B1="=A1+1", C1='=B1&"x"')
        assert s.get_value("C1") == DIV0

    def test_custom_function_table(self):
        assert sheet_with(A1="2", A2="=TOTAL(A1,3)").get_value("A2") == 5.0


class TestIncremental:
    def test_only_dependents_recalculated(self):
        s = sheet_with(A1="1", B1="=A1*2", A2="1", B2="=A2*2")
        assert s.set_cell("A1", "10") == ["B1"]
        assert s.get_value("B1") == 20.0

    def test_chain_order(self):
        s = sheet_with(A1="1", A2="=A1+1", A3="=A2+1", A4="=A3+1")
        assert s.set_cell("A1", "10") == ["A2", "A3", "A4"]
        assert s.get_value("A4") == 13.0

    def test_diamond_each_cell_once(self):
        s = sheet_with(A1="1", B1="=A1+1", C1="=A1*2", D1="=B1+C1")
        assert s.set_cell("A1", "3") == ["B1", "C1", "D1"]
        assert s.get_value("D1") == 10.0

    def test_order_follows_dependencies_not_position(self):
        s = sheet_with(C3="1", B2="=C3+1", A1="=B2+1")
        assert s.set_cell("C3", "5") == ["B2", "A1"]
        assert s.get_value("A1") == 7.0

    def test_range_dependency(self):
        s = sheet_with(A1="1", A2="2", A3="=A1+A2")
        s.set_cell("B1", "=TOTAL(A1:A3)")
        assert s.set_cell("A2", "20") == ["A3", "B1"]
        assert s.get_value("B1") == 42.0

    def test_edited_formula_cell_included(self):
        s = sheet_with(A1="1", B1="=A1")
        assert s.set_cell("B1", "=A1*3") == ["B1"]

    def test_rewiring_drops_old_dependency(self):
        s = sheet_with(A1="1", B1="2", C1="=A1")
        s.set_cell("C1", "=B1")
        assert s.set_cell("A1", "99") == []
        assert s.get_value("C1") == 2.0


class TestRecalculate:
    def test_manual_mode_does_not_compute(self):
        s = Sheet(auto_recalc=False)
        assert s.set_cell("A1", "=1+1") == []
        assert s.get_value("A1") is None

    def test_manual_mode_literals_are_immediate(self):
        s = Sheet(auto_recalc=False)
        s.set_cell("A1", "5")
        assert s.get_value("A1") == 5.0

    def test_full_recalculation(self):
        s = Sheet(auto_recalc=False)
        s.set_cell("A2", "=A1*2")
        s.set_cell("A1", "=3")
        s.set_cell("B1", "text")
        assert s.recalculate() == ["A1", "A2"]
        assert s.get_value("A2") == 6.0

    def test_stale_values_until_recalculated(self):
        s = Sheet(auto_recalc=False)
        s.set_cell("A1", "1")
        s.set_cell("B1", "=A1+1")
        s.recalculate()
        s.set_cell("A1", "10")
        assert s.get_value("B1") == 2.0
        s.recalculate()
        assert s.get_value("B1") == 11.0

    def test_formula_keeps_previous_value_in_manual_mode(self):
        s = Sheet(auto_recalc=False)
        s.set_cell("A1", "=1")
        s.recalculate()
        s.set_cell("A1", "=2")
        assert s.get_value("A1") == 1.0

    def test_partial_recalculation(self):
        s = Sheet(auto_recalc=False)
        for addr, raw in [("A1", "1"), ("B1", "=A1+1"), ("A2", "1"), ("B2", "=A2+1")]:
            s.set_cell(addr, raw)
        assert s.recalculate(["A2"]) == ["B2"]
        assert s.get_value("B1") is None
        assert s.get_value("B2") == 2.0

    def test_empty_sheet(self):
        assert Sheet().recalculate() == []


class TestCycles:
    def test_self_reference(self):
        s = sheet_with(A1="=A1+1")
        assert s.get_value("A1") == CIRC

    def test_two_cell_cycle(self):
        s = sheet_with(A1="=B1", B1="=A1")
        assert s.get_value("A1") == CIRC
        assert s.get_value("B1") == CIRC

    def test_cycle_through_range(self):
        s = sheet_with(A1="1", A2="2", A3="=TOTAL(A1:A3)")
        assert s.get_value("A3") == CIRC

    def test_cycle_cells_listed_first(self):
        s = sheet_with(A1="=B1", C1="=B1*2")
        assert s.set_cell("B1", "=A1") == ["A1", "B1", "C1"]

    def test_downstream_sees_circ(self):
        s = sheet_with(A1="=B1", B1="=A1", C1="=A1+1")
        assert s.get_value("C1") == CIRC

    def test_breaking_the_cycle_recovers(self):
        s = sheet_with(A1="=B1+1", B1="=A1")
        s.set_cell("B1", "5")
        assert s.get_value("A1") == 6.0

    def test_full_recalculate_marks_cycles(self):
        s = Sheet(auto_recalc=False)
        s.set_cell("A1", "=B1")
        s.set_cell("B1", "=A1")
        s.set_cell("C1", "=1")
        assert s.recalculate() == ["A1", "B1", "C1"]
        assert s.get_value("B1") == CIRC


class TestEvaluate:
    def test_constant(self):
        assert Sheet().evaluate("=1+2") == 3.0

    def test_without_equals(self):
        assert Sheet().evaluate("2*3") == 6.0

    def test_reads_cells(self):
        assert sheet_with(A1="4", A2="5").evaluate("=A1*A2") == 20.0

    def test_empty_result_is_zero(self):
        assert Sheet().evaluate("=Z99") == 0.0

    def test_does_not_store(self):
        s = Sheet()
        s.evaluate("=1")
        assert s.addresses() == []

    def test_syntax_error(self):
        with pytest.raises(ParseError):
            Sheet().evaluate("=(")


class TestCopyCell:
    def test_relative_references_move(self):
        s = sheet_with(A1="1", A2="2", B1="=A1*10")
        s.copy_cell("B1", "B2")
        assert s.get_raw("B2") == "=A2*10"
        assert s.get_value("B2") == 20.0

    def test_absolute_references_stay(self):
        s = sheet_with(A1="3", B1="=$A$1+A1")
        s.copy_cell("B1", "C5")
        assert s.get_raw("C5") == "=$A$1+B5"

    def test_mixed_references(self):
        s = sheet_with(C3="=$A1*A$1")
        s.copy_cell("C3", "D5")
        assert s.get_raw("D5") == "=$A3*B$1"

    def test_range_moves(self):
        s = sheet_with(A1="1", A2="2", B1="3", B2="4", C1="=TOTAL(A1:A2)")
        s.copy_cell("C1", "D1")
        assert s.get_raw("D1") == "=TOTAL(B1:B2)"
        assert s.get_value("D1") == 7.0

    def test_off_sheet_reference_becomes_ref_error(self):
        s = sheet_with(B2="=A1+1")
        s.copy_cell("B2", "A2")
        assert s.get_raw("A2") == "=#REF!+1"
        assert s.get_value("A2") == REF

    def test_literal_copied_as_typed(self):
        s = sheet_with(A1="'A1")
        s.copy_cell("A1", "B7")
        assert s.get_raw("B7") == "'A1"
        assert s.get_value("B7") == "A1"

    def test_empty_source_clears_destination(self):
        s = sheet_with(B1="5")
        s.copy_cell("A1", "B1")
        assert s.get_value("B1") is None

    def test_dependents_of_destination_update(self):
        s = sheet_with(A1="1", A2="2", B1="=A1", C2="=B2*100")
        s.copy_cell("B1", "B2")
        assert s.get_value("C2") == 200.0

    def test_canonical_formula_text(self):
        s = sheet_with(A1="= total( b1 , 2 )")
        s.copy_cell("A1", "A2")
        assert s.get_raw("A2") == "=TOTAL(B2,2)"


class TestCopyRange:
    def test_block_copy(self):
        s = sheet_with(A1="1", B1="=A1*2", A2="3", B2="=A2*2")
        assert s.copy_range("A1:B2", "D1") == ["D1", "E1", "D2", "E2"]
        assert s.get_raw("E2") == "=D2*2"
        assert s.get_value("E2") == 6.0

    def test_empty_cells_clear_destination(self):
        s = sheet_with(A1="1", D2="junk")
        s.copy_range("A1:B2", "C1")
        assert s.get_value("D2") is None
        assert s.get_value("C1") == 1.0

    def test_reversed_range_text(self):
        s = sheet_with(A1="x", B2="y")
        s.copy_range("B2:A1", "A5")
        assert s.get_value("A5") == "x"
        assert s.get_value("B6") == "y"

    def test_overlapping_copy_reads_before_writing(self):
        s = sheet_with(A1="1", A2="2", A3="3")
        s.copy_range("A1:A3", "A2")
        assert [s.get_value(a) for a in ("A1", "A2", "A3", "A4")] == [1.0, 1.0, 2.0, 3.0]

    def test_fill_down_running_total(self):
        s = sheet_with(A1="1", A2="2", A3="3", B1="=TOTAL($A$1:A1)")
        s.copy_range("B1", "B2")
        s.copy_range("B1", "B3")
        assert [s.get_value(a) for a in ("B1", "B2", "B3")] == [1.0, 3.0, 6.0]

    def test_destination_off_sheet(self):
        s = sheet_with(A1="1", A2="2")
        with pytest.raises(AddressError):
            s.copy_range("A1:A2", "A1048576")
        assert s.get_value("A1048576") is None


class TestUsedRange:
    def test_empty(self):
        assert Sheet().used_range() == (0, 0)

    def test_single_cell(self):
        assert sheet_with(C2="x").used_range() == (2, 3)

    def test_spread(self):
        assert sheet_with(A5="1", E1="2").used_range() == (5, 5)

    def test_cleared_cells_do_not_count(self):
        s = sheet_with(A1="1", D4="2")
        s.set_cell("D4", "")
        assert s.used_range() == (1, 1)

    def test_formula_cells_count(self):
        assert sheet_with(B3="=1").used_range() == (3, 2)
