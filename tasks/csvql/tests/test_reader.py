import pytest

from csvql import CSVError, Table, parse_csv, read_table


class TestParseCsv:
    def test_simple_records(self):
        assert parse_csv("a,b,c\n1,2,3\n") == [["a", "b", "c"], ["1", "2", "3"]]

    def test_no_trailing_newline(self):
        assert parse_csv("a,b\n1,2") == [["a", "b"], ["1", "2"]]

    def test_empty_text(self):
        assert parse_csv("") == []

    def test_crlf_and_lone_cr_line_endings(self):
        assert parse_csv("a,b\r\n1,2\r3,4\r\n") == [["a", "b"], ["1", "2"], ["3", "4"]]

    def test_blank_lines_are_skipped(self):
        assert parse_csv("a\n\n\nb\n\n") == [["a"], ["b"]]

    def test_empty_fields(self):
        assert parse_csv(",\na,,b\n") == [["", ""], ["a", "", "b"]]

    def test_whitespace_is_kept(self):
        assert parse_csv(" a , b \n") == [[" a ", " b "]]

    def test_quoted_field_with_delimiter_and_newline(self):
        text = 'name,note\n"Smith, J","line1\nline2"\n'
        assert parse_csv(text) == [["name", "note"], ["Smith, J", "line1\nline2"]]

    def test_doubled_quote_inside_quotes(self):
        assert parse_csv('"say ""hi""",x\n') == [['say "hi"', "x"]]

    def test_quoted_empty_field_is_a_record(self):
        assert parse_csv('""\n') == [[""]]

    def test_quote_inside_unquoted_field_is_literal(self):
        assert parse_csv('ab"c,d\n') == [['ab"c', "d"]]

    def test_crlf_inside_quotes_is_kept(self):
        assert parse_csv('"a\r\nb",c\r\n') == [["a\r\nb", "c"]]

    def test_custom_delimiter_and_quote(self):
        assert parse_csv("a;'b;c'\n", delimiter=";", quote="'") == [["a", "b;c"]]

    def test_unterminated_quote_reports_start_line(self):
        with pytest.raises(CSVError) as info:
            parse_csv('a,b\n1,"open\nmore\n')
        assert info.value.line == 2

    def test_garbage_after_closing_quote(self):
        with pytest.raises(CSVError) as info:
            parse_csv('x\n"ab"c,d\n')
        assert info.value.line == 2

    def test_line_numbers_count_newlines_inside_quotes(self):
        with pytest.raises(CSVError) as info:
            parse_csv('"a\nb"\n"c"x\n')
        assert info.value.line == 3

    @pytest.mark.parametrize("kwargs", [{"delimiter": ""}, {"delimiter": ";;"}, {"quote": "\n"}, {"delimiter": '"'}])
    def test_bad_dialect(self, kwargs):
        with pytest.raises(ValueError):
            parse_csv("a", **kwargs)


class TestReadTable:
    def test_header_types_and_rows(self):
        t = read_table("name,age,score,ok\nada,36,1.5,true\nbob,7,2,FALSE\n", name="people")
        assert isinstance(t, Table)
        assert t.name == "people"
        assert t.columns == ["name", "age", "score", "ok"]
        assert t.types == ["str", "int", "float", "bool"]
        assert t.rows == [("ada", 36, 1.5, True), ("bob", 7, 2.0, False)]

    def test_empty_cells_become_none(self):
        t = read_table("a,b\n1,\n,x\n")
        assert t.types == ["int", "str"]
        assert t.rows == [(1, None), (None, "x")]

    def test_header_names_are_stripped(self):
        t = read_table(" a , b\n1,2\n")
        assert t.columns == ["a", "b"]

    def test_header_only(self):
        t = read_table("a,b\n")
        assert t.columns == ["a", "b"]
        assert t.rows == []
        assert t.types == ["str", "str"]

    def test_mixed_column_falls_back_to_str(self):
        t = read_table("v\n1\nx\n2.5\n")
        assert t.types == ["str"]
        assert t.rows == [("1",), ("x",), ("2.5",)]

    def test_delimiter(self):
        t = read_table("a\tb\n1\t2\n", delimiter="\t")
        assert t.rows == [(1, 2)]

    def test_no_header(self):
        with pytest.raises(CSVError):
            read_table("")

    def test_duplicate_column(self):
        with pytest.raises(CSVError, match="duplicate"):
            read_table("a,b,a\n1,2,3\n")

    def test_empty_column_name(self):
        with pytest.raises(CSVError):
            read_table("a, \n1,2\n")

    def test_ragged_row_names_record(self):
        with pytest.raises(CSVError, match="record 3"):
            read_table("a,b\n1,2\n3\n")
