"""Positions in error reports: line_col and ParseError formatting."""

import pytest

from jsonkit import ParseError, line_col


class TestLineCol:
    def test_first_character(self):
        assert line_col("abc", 0) == (1, 1)

    def test_within_first_line(self):
        assert line_col("abcdef", 4) == (1, 5)

    def test_start_of_second_line(self):
        assert line_col("ab\ncd", 3) == (2, 1)

    def test_newline_belongs_to_its_line(self):
        assert line_col("ab\ncd", 2) == (1, 3)

    def test_several_lines(self):
        doc = "x\ny\n\n  z"
        assert line_col(doc, doc.index("z")) == (4, 3)

    def test_end_of_document(self):
        assert line_col("ab\nc", 4) == (2, 2)
        assert line_col("", 0) == (1, 1)

    def test_carriage_return_is_not_a_newline(self):
        assert line_col("a\r\nb", 1) == (1, 2)
        assert line_col("a\rb", 2) == (1, 3)
        assert line_col("a\r\nb", 3) == (2, 1)

    @pytest.mark.parametrize("pos", [-1, 4])
    def test_out_of_range(self, pos):
        with pytest.raises(ValueError):
            line_col("abc", pos)


class TestParseErrorFormat:
    def test_is_value_error(self):
        assert issubclass(ParseError, ValueError)

    def test_attributes(self):
        err = ParseError("Expecting value", "[1,\n  ]", 6)
        assert err.msg == "Expecting value"
        assert err.doc == "[1,\n  ]"
        assert err.pos == 6
        assert (err.lineno, err.colno) == (2, 3)

    def test_str(self):
        err = ParseError("Extra data", "1 2", 2)
        assert str(err) == "Extra data: line 1 column 3 (char 2)"

    def test_str_multiline(self):
        err = ParseError("Oops", "{\n\n x", 4)
        assert str(err) == "Oops: line 3 column 2 (char 4)"
