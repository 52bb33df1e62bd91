"""Layer 1: the tokenizer."""

import pytest

from lispy.errors import ParseError
from lispy.tokenizer import Token, tokenize


def kinds_texts(source):
    return [(t.kind, t.text) for t in tokenize(source)]


class TestTokenizeBasics:
    @pytest.mark.parametrize(
        "source, expected",
        [
            ("", []),
            ("   \n\t ", []),
            ("(", [("(", "(")]),
            ("(a b)", [("(", "("), ("atom", "a"), ("atom", "b"), (")", ")")]),
            ("42", [("atom", "42")]),
            ("-1.5e3", [("atom", "-1.5e3")]),
            ("#t #f", [("atom", "#t"), ("atom", "#f")]),
            ("'x", [("'", "'"), ("atom", "x")]),
            ("`(a ,b ,@c)", [("`", "`"), ("(", "("), ("atom", "a"), (",", ","), ("atom", "b"),
                             (",@", ",@"), ("atom", "c"), (")", ")")]),
            ("a'b", [("atom", "a"), ("'", "'"), ("atom", "b")]),
            ("(a . b)", [("(", "("), ("atom", "a"), ("atom", "."), ("atom", "b"), (")", ")")]),
            ("...", [("atom", "...")]),
            ("a|b", [("atom", "a|b")]),
            ("list->string!", [("atom", "list->string!")]),
            ("((x))", [("(", "("), ("(", "("), ("atom", "x"), (")", ")"), (")", ")")]),
            ("a,b", [("atom", "a"), (",", ","), ("atom", "b")]),
            ("λx", [("atom", "λx")]),
        ],
    )
    def test_token_kinds_and_texts(self, source, expected):
        assert kinds_texts(source) == expected

    def test_returns_token_objects(self):
        (tok,) = tokenize("foo")
        assert tok == Token("atom", "foo", 1, 1)

    def test_parens_end_atoms(self):
        assert kinds_texts("(f(g)h)") == [
            ("(", "("), ("atom", "f"), ("(", "("), ("atom", "g"), (")", ")"), ("atom", "h"), (")", ")")
        ]


class TestTokenizeStrings:
    def test_simple_string_keeps_quotes(self):
        assert kinds_texts('"hello world"') == [("string", '"hello world"')]

    def test_escaped_quote_does_not_end_string(self):
        assert kinds_texts(r'"a\"b" c') == [("string", r'"a\"b"'), ("atom", "c")]

    def test_escaped_backslash_before_closing_quote(self):
        assert kinds_texts(r'"a\\" b') == [("string", r'"a\\"'), ("atom", "b")]

    def test_escapes_are_not_decoded(self):
        assert tokenize(r'"\n"')[0].text == r'"\n"'

    def test_string_can_span_lines(self):
        toks = tokenize('"a\nb" c')
        assert toks[0].text == '"a\nb"'
        assert (toks[1].line, toks[1].col) == (2, 4)

    def test_semicolon_inside_string_is_not_a_comment(self):
        assert kinds_texts('"a;b"') == [("string", '"a;b"')]

    def test_string_ends_atom(self):
        assert kinds_texts('abc"d"') == [("atom", "abc"), ("string", '"d"')]

    def test_unterminated_string(self):
        with pytest.raises(ParseError) as info:
            tokenize('(display "oops)')
        assert info.value.message == "unterminated string"
        assert (info.value.line, info.value.col) == (1, 10)

    def test_unterminated_string_after_escaped_quote(self):
        with pytest.raises(ParseError, match="unterminated string"):
            tokenize(r'"abc\"')


class TestTokenizeComments:
    def test_line_comment(self):
        assert kinds_texts("a ; comment (b)\nc") == [("atom", "a"), ("atom", "c")]

    def test_comment_at_end_without_newline(self):
        assert kinds_texts("a ;; done") == [("atom", "a")]

    def test_comment_ends_atom(self):
        assert kinds_texts("abc;def") == [("atom", "abc")]

    def test_block_comment(self):
        assert kinds_texts("a #| hidden (x) |# b") == [("atom", "a"), ("atom", "b")]

    def test_nested_block_comment(self):
        assert kinds_texts("#| a #| b |# c |# d") == [("atom", "d")]

    def test_unterminated_block_comment(self):
        with pytest.raises(ParseError) as info:
            tokenize("x\n  #| never #| closed |#")
        assert info.value.message == "unterminated block comment"
        assert (info.value.line, info.value.col) == (2, 3)

    def test_datum_comment_token(self):
        assert kinds_texts("#;(a) b") == [("#;", "#;"), ("(", "("), ("atom", "a"), (")", ")"), ("atom", "b")]


class TestTokenizePositions:
    def test_positions_on_one_line(self):
        assert [(t.text, t.col) for t in tokenize("(+ 12 x)")] == [("(", 1), ("+", 2), ("12", 4), ("x", 7), (")", 8)]

    def test_lines_and_columns(self):
        toks = tokenize("(define x\n  10)\n\nx")
        assert [(t.text, t.line, t.col) for t in toks] == [
            ("(", 1, 1), ("define", 1, 2), ("x", 1, 9), ("10", 2, 3), (")", 2, 5), ("x", 4, 1)
        ]

    def test_tab_counts_as_one_column(self):
        assert tokenize("\tx")[0].col == 2

    def test_position_after_comment_line(self):
        tok = tokenize("; first\n  y")[0]
        assert (tok.line, tok.col) == (2, 3)

    def test_position_after_multiline_block_comment(self):
        tok = tokenize("#| a\nbc |# z")[0]
        assert (tok.line, tok.col) == (2, 7)

    def test_unquote_splicing_position(self):
        toks = tokenize("`(,@xs)")
        assert [(t.kind, t.col) for t in toks] == [("`", 1), ("(", 2), (",@", 3), ("atom", 5), (")", 7)]
