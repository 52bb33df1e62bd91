import pytest

from csvql import QuerySyntaxError, Token, tokenize


def kinds(query):
    return [(t.kind, t.value) for t in tokenize(query)]


class TestTokenize:
    def test_simple_select(self):
        assert kinds("SELECT a, b FROM t") == [
            ("KEYWORD", "SELECT"),
            ("IDENT", "a"),
            ("COMMA", ","),
            ("IDENT", "b"),
            ("KEYWORD", "FROM"),
            ("IDENT", "t"),
            ("EOF", None),
        ]

    def test_keywords_case_insensitive_identifiers_kept(self):
        assert kinds("select Name from T") == [
            ("KEYWORD", "SELECT"),
            ("IDENT", "Name"),
            ("KEYWORD", "FROM"),
            ("IDENT", "T"),
            ("EOF", None),
        ]

    def test_aggregate_names_are_identifiers(self):
        assert kinds("count(*)") == [("IDENT", "count"), ("LPAREN", "("), ("STAR", "*"), ("RPAREN", ")"), ("EOF", None)]

    def test_positions(self):
        toks = tokenize("a  >= 10")
        assert [t.pos for t in toks] == [0, 3, 6, 8]
        assert toks[-1] == Token("EOF", None, 8)

    def test_numbers(self):
        toks = tokenize("12 12.5 7. .5 -3 -0.25")
        values = [t.value for t in toks[:-1]]
        assert values == [12, 12.5, 7.0, 0.5, -3, -0.25]
        assert [type(v) for v in values] == [int, float, float, float, int, float]
        assert all(t.kind == "NUMBER" for t in toks[:-1])

    def test_strings_with_escaped_quote(self):
        assert kinds("'it''s' ''") == [("STRING", "it's"), ("STRING", ""), ("EOF", None)]

    def test_quoted_identifier(self):
        assert kinds('"first name" "select" "a""b"') == [
            ("IDENT", "first name"),
            ("IDENT", "select"),
            ('IDENT', 'a"b'),
            ("EOF", None),
        ]

    def test_operators(self):
        ops = [v for k, v in kinds("= != <> < <= > >=") if k == "OP"]
        assert ops == ["=", "!=", "!=", "<", "<=", ">", ">="]

    def test_operators_without_spaces(self):
        assert kinds("a<=1") == [("IDENT", "a"), ("OP", "<="), ("NUMBER", 1), ("EOF", None)]

    def test_empty_query(self):
        assert tokenize("") == [Token("EOF", None, 0)]

    def test_underscore_identifiers(self):
        assert kinds("_x1 a_b") == [("IDENT", "_x1"), ("IDENT", "a_b"), ("EOF", None)]

    @pytest.mark.parametrize(
        "query, pos",
        [
            ("a = 'open", 4),
            ('"abc', 0),
            ('""', 0),
            ("a ! b", 2),
            ("a - b", 2),
            ("a ; b", 2),
            ("price > $5", 8),
            ("é", 0),
        ],
    )
    def test_errors_report_position(self, query, pos):
        with pytest.raises(QuerySyntaxError) as info:
            tokenize(query)
        assert info.value.pos == pos
