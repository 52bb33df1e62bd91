import pytest

from csvql import coerce, infer_column, infer_type, unify_types


class TestInferType:
    @pytest.mark.parametrize(
        "cell, expected",
        [
            ("", "null"),
            ("   ", "null"),
            ("42", "int"),
            ("-7", "int"),
            ("+0", "int"),
            (" 12 ", "int"),
            ("3.5", "float"),
            ("-.5", "float"),
            ("1.", "float"),
            ("1e3", "float"),
            ("2.5E-2", "float"),
            ("true", "bool"),
            ("FALSE", "bool"),
            ("True", "bool"),
            ("inf", "str"),
            ("nan", "str"),
            ("1,000", "str"),
            ("12abc", "str"),
            ("yes", "str"),
            ("-", "str"),
        ],
    )
    def test_cells(self, cell, expected):
        assert infer_type(cell) == expected


class TestUnifyTypes:
    @pytest.mark.parametrize(
        "a, b, expected",
        [
            ("int", "int", "int"),
            ("null", "float", "float"),
            ("bool", "null", "bool"),
            ("int", "float", "float"),
            ("float", "int", "float"),
            ("int", "bool", "str"),
            ("float", "str", "str"),
            ("null", "null", "null"),
        ],
    )
    def test_pairs(self, a, b, expected):
        assert unify_types(a, b) == expected


class TestInferColumn:
    def test_ints(self):
        assert infer_column(["1", "", "3"]) == "int"

    def test_ints_and_floats(self):
        assert infer_column(["1", "2.5"]) == "float"

    def test_all_empty_is_str(self):
        assert infer_column(["", " "]) == "str"
        assert infer_column([]) == "str"

    def test_bools_with_number_is_str(self):
        assert infer_column(["true", "1"]) == "str"


class TestCoerce:
    def test_int(self):
        assert coerce(" +3 ", "int") == 3

    def test_float_from_int_text(self):
        value = coerce("1", "float")
        assert value == 1.0 and isinstance(value, float)

    def test_bool(self):
        assert coerce("TRUE", "bool") is True
        assert coerce("false", "bool") is False

    def test_str_unchanged(self):
        assert coerce(" padded ", "str") == " padded "

    @pytest.mark.parametrize("t", ["int", "float", "bool", "str"])
    def test_empty_is_none(self, t):
        assert coerce("  ", t) is None

    @pytest.mark.parametrize("cell, t", [("abc", "int"), ("1.5", "int"), ("x", "float"), ("yes", "bool")])
    def test_invalid(self, cell, t):
        with pytest.raises(ValueError):
            coerce(cell, t)

    def test_unknown_type(self):
        with pytest.raises(ValueError):
            coerce("1", "date")
