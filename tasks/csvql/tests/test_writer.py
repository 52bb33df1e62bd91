import pytest

from csvql import format_csv, format_value


class TestFormatValue:
    @pytest.mark.parametrize(
        "value, text",
        [(None, ""), (True, "true"), (False, "false"), (42, "42"), (-3, "-3"), (3.0, "3.0"), (0.1, "0.1"), ("x y", "x y")],
    )
    def test_values(self, value, text):
        assert format_value(value) == text


class TestFormatCsv:
    def test_header_and_rows(self):
        assert format_csv(["a", "b"], [(1, "x"), (2.5, None)]) == "a,b\n1,x\n2.5,\n"

    def test_no_rows(self):
        assert format_csv(["a"], []) == "a\n"

    def test_quoting(self):
        text = format_csv(["v"], [("a,b",), ('say "hi"',), ("two\nlines",), ("cr\r",)])
        assert text == 'v\n"a,b"\n"say ""hi"""\n"two\nlines"\n"cr\r"\n'

    def test_empty_string_vs_none(self):
        assert format_csv(["a", "b"], [("", None)]) == 'a,b\n"",\n'

    def test_header_is_quoted_too(self):
        assert format_csv(["x,y", "z"], []) == '"x,y",z\n'

    def test_delimiter(self):
        assert format_csv(["a", "b"], [("1;2", True)], delimiter=";") == 'a;b\n"1;2";true\n'

    def test_mixed_row(self):
        rows = [("plain", 'q"uote', "comma,here"), ("multi\nline", " spaced ", 0)]
        assert format_csv(["c1", "c2", "c3"], rows) == (
            'c1,c2,c3\nplain,"q""uote","comma,here"\n"multi\nline", spaced ,0\n'
        )

    def test_wrong_row_length(self):
        with pytest.raises(ValueError):
            format_csv(["a", "b"], [(1,)])
