"""Layer 1: cell addressing (sheetcalc.address)."""

import pytest

from sheetcalc.address import (
    MAX_COLS,
    MAX_ROWS,
    CellRef,
    RangeRef,
    column_index,
    column_letters,
    format_cell,
    parse_cell,
    parse_range,
    shift_cell,
)
from sheetcalc.errors import AddressError


class TestColumnIndex:
    @pytest.mark.parametrize(
        "letters, expected",
        [
            ("A", 0),
            ("Z", 25),
            ("AA", 26),
            ("AZ", 51),
            ("BA", 52),
            ("ZZ", 701),
            ("AAA", 702),
            ("XFD", 16383),
        ],
    )
    def test_letters(self, letters, expected):
        assert column_index(letters) == expected

    def test_case_insensitive(self):
        assert column_index("ab") == column_index("AB") == 27

    def test_no_upper_bound(self):
        assert column_index("ZZZZ") == 475253

    @pytest.mark.parametrize("bad", ["", "A1", "A-B", "É"])
    def test_invalid(self, bad):
        with pytest.raises(AddressError):
            column_index(bad)

    def test_address_error_is_value_error(self):
        with pytest.raises(ValueError):
            column_index("")


class TestColumnLetters:
    @pytest.mark.parametrize(
        "index, expected",
        [(0, "A"), (25, "Z"), (26, "AA"), (51, "AZ"), (52, "BA"), (701, "ZZ"), (702, "AAA"), (16383, "XFD")],
    )
    def test_index(self, index, expected):
        assert column_letters(index) == expected

    def test_round_trip(self):
        for i in range(0, 20000, 7):
            assert column_index(column_letters(i)) == i

    @pytest.mark.parametrize("bad", [-1, 1.5, True])
    def test_invalid(self, bad):
        with pytest.raises(AddressError):
            column_letters(bad)


class TestParseCell:
    def test_simple(self):
        assert parse_cell("A1") == CellRef(0, 0)

    def test_row_and_column(self):
        assert parse_cell("C10") == CellRef(9, 2)

    def test_lower_case(self):
        assert parse_cell("aa7") == CellRef(6, 26)

    def test_fully_absolute(self):
        assert parse_cell("$B$2") == CellRef(1, 1, row_abs=True, col_abs=True)

    def test_absolute_column_only(self):
        ref = parse_cell("$B2")
        assert (ref.col_abs, ref.row_abs) == (True, False)

    def test_absolute_row_only(self):
        ref = parse_cell("B$2")
        assert (ref.col_abs, ref.row_abs) == (False, True)

    def test_leading_zero_row(self):
        assert parse_cell("A01") == CellRef(0, 0)

    def test_last_cell_of_sheet(self):
        assert parse_cell(f"XFD{MAX_ROWS}") == CellRef(MAX_ROWS - 1, MAX_COLS - 1)

    def test_key_ignores_absolute(self):
        assert parse_cell("$D$5").key == parse_cell("D5").key == (4, 3)

    @pytest.mark.parametrize(
        "bad",
        ["", "A", "A0", "1A", "A1B", " A1", "A$$1", "XFE1", f"A{MAX_ROWS + 1}", "A1:B2"],
    )
    def test_invalid(self, bad):
        with pytest.raises(AddressError):
            parse_cell(bad)


class TestFormatCell:
    @pytest.mark.parametrize(
        "ref, expected",
        [
            (CellRef(0, 0), "A1"),
            (CellRef(2, 1), "B3"),
            (CellRef(99, 27), "AB100"),
            (CellRef(0, 0, row_abs=True, col_abs=True), "$A$1"),
            (CellRef(4, 2, col_abs=True), "$C5"),
            (CellRef(4, 2, row_abs=True), "C$5"),
        ],
    )
    def test_format(self, ref, expected):
        assert format_cell(ref) == expected

    @pytest.mark.parametrize("text", ["$B$2", "C$3", "XFD1048576"])
    def test_round_trip(self, text):
        assert format_cell(parse_cell(text)) == text

    def test_normalizes_case_and_zeros(self):
        assert format_cell(parse_cell("b007")) == "B7"


class TestParseRange:
    def test_two_corners(self):
        assert parse_range("A1:B3") == RangeRef(CellRef(0, 0), CellRef(2, 1))

    def test_single_cell(self):
        rng = parse_range("C4")
        assert rng.start == rng.end == CellRef(3, 2)

    def test_corners_kept_as_written(self):
        rng = parse_range("B3:A1")
        assert rng.start == CellRef(2, 1)
        assert rng.end == CellRef(0, 0)

    def test_absolute_corners(self):
        rng = parse_range("$A$1:B$2")
        assert rng.start.row_abs and rng.start.col_abs
        assert rng.end.row_abs and not rng.end.col_abs

    @pytest.mark.parametrize("bad", ["", "A1:", ":B2", "A1:B2:C3", "A0:B1"])
    def test_invalid(self, bad):
        with pytest.raises(AddressError):
            parse_range(bad)


class TestRangeBounds:
    def test_ordered(self):
        assert parse_range("A1:B3").bounds() == (0, 0, 2, 1)

    def test_reversed_corners(self):
        assert parse_range("B3:A1").bounds() == (0, 0, 2, 1)

    def test_mixed_corners(self):
        assert parse_range("A3:B1").bounds() == (0, 0, 2, 1)

    def test_single_cell(self):
        assert parse_range("D4").bounds() == (3, 3, 3, 3)

    def test_shape(self):
        assert parse_range("B2:D7").shape == (6, 3)


class TestRangeCells:
    def test_row_major(self):
        assert parse_range("A1:B2").cells() == [(0, 0), (0, 1), (1, 0), (1, 1)]

    def test_column(self):
        assert parse_range("C1:C3").cells() == [(0, 2), (1, 2), (2, 2)]

    def test_reversed(self):
        assert parse_range("B2:A1").cells() == [(0, 0), (0, 1), (1, 0), (1, 1)]

    def test_single(self):
        assert parse_range("E5").cells() == [(4, 4)]

    def test_count(self):
        assert len(parse_range("A1:J10").cells()) == 100


class TestShiftCell:
    def test_relative(self):
        assert shift_cell(CellRef(0, 0), 1, 2) == CellRef(1, 2)

    def test_negative_offsets(self):
        assert shift_cell(CellRef(5, 5), -2, -3) == CellRef(3, 2)

    def test_absolute_column_stays(self):
        assert shift_cell(parse_cell("$A1"), 1, 2) == parse_cell("$A2")

    def test_absolute_row_stays(self):
        assert shift_cell(parse_cell("A$1"), 1, 2) == parse_cell("C$1")

    def test_fully_absolute_unchanged(self):
        ref = parse_cell("$B$2")
        assert shift_cell(ref, 10, 10) == ref

    def test_off_top(self):
        with pytest.raises(AddressError):
            shift_cell(CellRef(0, 3), -1, 0)

    def test_off_left(self):
        with pytest.raises(AddressError):
            shift_cell(CellRef(3, 0), 0, -1)

    def test_off_bottom(self):
        with pytest.raises(AddressError):
            shift_cell(CellRef(MAX_ROWS - 1, 0), 1, 0)

    def test_absolute_part_cannot_go_off_sheet(self):
        assert shift_cell(parse_cell("$A5"), 0, -3) == parse_cell("$A5")
