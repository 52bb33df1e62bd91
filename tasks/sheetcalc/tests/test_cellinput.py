"""Layer 3: typed cell input (sheetcalc.cellinput)."""

import pytest

from sheetcalc.cellinput import parse_literal
from sheetcalc.values import CellError


class TestParseLiteral:
    @pytest.mark.parametrize(
        "text, expected",
        [
            ("42", 42.0),
            (" -1.5 ", -1.5),
            ("1e3", 1000.0),
            ("50%", 0.5),
            ("TRUE", True),
            ("false", False),
            ("hello", "hello"),
            ("  padded  ", "  padded  "),
            ("12abc", "12abc"),
            ("'123", "123"),
            ("'", ""),
            ("=not a formula here", "=not a formula here"),
        ],
    )
    def test_values(self, text, expected):
        result = parse_literal(text)
        assert result == expected
        assert type(result) is type(expected)

    def test_empty_is_none(self):
        assert parse_literal("") is None

    def test_whitespace_is_text(self):
        assert parse_literal("   ") == "   "

    @pytest.mark.parametrize("text, code", [("#N/A", "#N/A"), ("#div/0!", "#DIV/0!"), ("#REF!", "#REF!")])
    def test_error_codes(self, text, code):
        assert parse_literal(text) == CellError(code)

    def test_unknown_error_code_is_text(self):
        assert parse_literal("#OOPS!") == "#OOPS!"
