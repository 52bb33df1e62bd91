"""Layer 1: the lexer (minidb.lexer)."""

import pytest

from minidb.errors import SQLSyntaxError
from minidb.lexer import (
    scan_number,
    scan_operator,
    scan_quoted_identifier,
    scan_string,
    scan_word,
    tokenize,
)
from minidb.tokens import Token, TokenType

K, I, N, F, S, O, P, E = (
    TokenType.KEYWORD,
    TokenType.IDENT,
    TokenType.INTEGER,
    TokenType.FLOAT,
    TokenType.STRING,
    TokenType.OP,
    TokenType.PARAM,
    TokenType.EOF,
)


def kinds(sql):
    return [(t.type, t.value) for t in tokenize(sql)]


class TestScanNumber:
    @pytest.mark.parametrize(
        "text, kind, value, end",
        [
            ("0", N, 0, 1),
            ("42", N, 42, 2),
            ("007", N, 7, 3),
            ("3.25", F, 3.25, 4),
            ("1.", F, 1.0, 2),
            (".5", F, 0.5, 2),
            ("1e3", F, 1000.0, 3),
            ("2.5E-2", F, 0.025, 6),
            ("4e+1", F, 40.0, 4),
            ("12345678901234567890", N, 12345678901234567890, 20),
        ],
    )
    def test_forms(self, text, kind, value, end):
        tok, pos = scan_number(text, 0)
        assert tok.type is kind
        assert tok.value == value and type(tok.value) is type(value)
        assert pos == end

    def test_stops_at_operator_and_keeps_position(self):
        tok, pos = scan_number("x = 17+1", 4)
        assert tok == Token(N, 17, 4)
        assert pos == 6

    def test_stops_at_whitespace_and_paren(self):
        assert scan_number("12)", 0)[1] == 2
        assert scan_number("9 ", 0)[1] == 1

    @pytest.mark.parametrize("text, bad", [("1e", 2), ("1e+", 3), ("12abc", 2), ("1.2.3", 3), ("7_", 1)])
    def test_malformed(self, text, bad):
        with pytest.raises(SQLSyntaxError) as info:
            scan_number(text, 0)
        assert info.value.position == bad


class TestScanString:
    def test_simple(self):
        assert scan_string("'abc'", 0) == (Token(S, "abc", 0), 5)

    def test_empty(self):
        assert scan_string("''", 0) == (Token(S, "", 0), 2)

    def test_doubled_quote_is_one_quote(self):
        tok, end = scan_string("'it''s' x", 0)
        assert tok.value == "it's"
        assert end == 7

    def test_only_escaped_quote(self):
        assert scan_string("''''", 0)[0].value == "'"

    def test_keeps_newlines_and_backslashes(self):
        assert scan_string("'a\nb\\n'", 0)[0].value == "a\nb\\n"

    def test_offset_start(self):
        tok, end = scan_string("x = 'hi' AND", 4)
        assert tok == Token(S, "hi", 4)
        assert end == 8

    def test_keywords_inside_are_text(self):
        assert scan_string("'SELECT -- not a comment'", 0)[0].value == "SELECT -- not a comment"

    @pytest.mark.parametrize("text, start", [("'abc", 0), ("x 'it''s", 2), ("''' ", 0)])
    def test_unterminated_reports_opening_quote(self, text, start):
        with pytest.raises(SQLSyntaxError, match="unterminated string") as info:
            scan_string(text, start)
        assert info.value.position == start


class TestScanWord:
    @pytest.mark.parametrize("text", ["select", "SELECT", "SeLeCt"])
    def test_keyword_any_case(self, text):
        assert scan_word(text, 0) == (Token(K, "SELECT", 0), 6)

    @pytest.mark.parametrize(
        "text, value", [("Users", "users"), ("_tmp1", "_tmp1"), ("a_b_9", "a_b_9"), ("COUNT", "count")]
    )
    def test_identifiers_are_lowercased(self, text, value):
        assert scan_word(text, 0) == (Token(I, value, 0), len(text))

    def test_type_names_are_not_keywords(self):
        assert scan_word("INTEGER", 0)[0].type is I

    def test_stops_at_non_word_character(self):
        tok, end = scan_word("t.col", 0)
        assert tok.value == "t" and end == 1

    def test_offset(self):
        assert scan_word("x, FROM", 3) == (Token(K, "FROM", 3), 7)

    def test_keyword_prefix_is_identifier(self):
        assert scan_word("selection", 0)[0] == Token(I, "selection", 0)


class TestScanQuotedIdentifier:
    def test_preserves_case(self):
        assert scan_quoted_identifier('"MyCol"', 0) == (Token(I, "MyCol", 0), 7)

    def test_keyword_becomes_identifier(self):
        assert scan_quoted_identifier('"order"', 0)[0] == Token(I, "order", 0)

    def test_spaces_and_doubled_quotes(self):
        tok, end = scan_quoted_identifier('"a ""b"" c" x', 0)
        assert tok.value == 'a "b" c'
        assert end == 11

    def test_offset(self):
        assert scan_quoted_identifier('x."Y"', 2) == (Token(I, "Y", 2), 5)

    def test_unterminated(self):
        with pytest.raises(SQLSyntaxError, match="unterminated quoted identifier") as info:
            scan_quoted_identifier('select "abc', 7)
        assert info.value.position == 7

    def test_empty(self):
        with pytest.raises(SQLSyntaxError, match="empty quoted identifier") as info:
            scan_quoted_identifier('""', 0)
        assert info.value.position == 0


class TestScanOperator:
    @pytest.mark.parametrize("op", ["<=", ">=", "<>", "||"])
    def test_two_char(self, op):
        assert scan_operator(op + "1", 0) == (Token(O, op, 0), 2)

    def test_bang_equal_normalised(self):
        assert scan_operator("!=", 0) == (Token(O, "<>", 0), 2)

    @pytest.mark.parametrize("op", list("=<>+-*/%(),.;"))
    def test_one_char(self, op):
        assert scan_operator(op + " ", 0) == (Token(O, op, 0), 1)

    def test_less_then_space_equal_is_two_tokens(self):
        assert scan_operator("< =", 0) == (Token(O, "<", 0), 1)

    @pytest.mark.parametrize("text", ["!", "|", "#", "&", "$x", "@"])
    def test_unexpected_character(self, text):
        with pytest.raises(SQLSyntaxError, match="unexpected character") as info:
            scan_operator("a " + text, 2)
        assert info.value.position == 2


class TestTokenize:
    def test_empty_input_is_just_eof(self):
        assert tokenize("") == [Token(E, None, 0)]

    def test_whitespace_only(self):
        assert tokenize(" \n\t ") == [Token(E, None, 4)]

    def test_simple_select(self):
        assert kinds("SELECT a, 1 FROM t;") == [
            (K, "SELECT"),
            (I, "a"),
            (O, ","),
            (N, 1),
            (K, "FROM"),
            (I, "t"),
            (O, ";"),
            (E, None),
        ]

    def test_positions(self):
        assert [t.pos for t in tokenize("a  =\n'x'")] == [0, 3, 5, 8]

    def test_line_comment(self):
        assert kinds("1 -- two\n3") == [(N, 1), (N, 3), (E, None)]

    def test_line_comment_at_end_without_newline(self):
        assert kinds("x --") == [(I, "x"), (E, None)]

    def test_block_comment(self):
        assert kinds("a/* b\n c */b") == [(I, "a"), (I, "b"), (E, None)]

    def test_unterminated_block_comment(self):
        with pytest.raises(SQLSyntaxError, match="unterminated comment") as info:
            tokenize("SELECT 1 /* oops")
        assert info.value.position == 9

    def test_minus_before_number_is_operator(self):
        assert kinds("-5") == [(O, "-"), (N, 5), (E, None)]

    def test_dot_number_vs_qualified_name(self):
        assert kinds("t.a .5") == [(I, "t"), (O, "."), (I, "a"), (F, 0.5), (E, None)]

    def test_parameters_are_numbered(self):
        toks = tokenize("a = ? AND b IN (?, ?)")
        assert [t.value for t in toks if t.type is P] == [0, 1, 2]

    def test_string_and_quoted_identifier(self):
        assert kinds("\"Name\" = 'Bob'") == [(I, "Name"), (O, "="), (S, "Bob"), (E, None)]

    def test_no_whitespace_needed(self):
        assert kinds("(a>=1)") == [(O, "("), (I, "a"), (O, ">="), (N, 1), (O, ")"), (E, None)]

    def test_concatenation_and_not_equal(self):
        assert kinds("a||b!=c") == [(I, "a"), (O, "||"), (I, "b"), (O, "<>"), (I, "c"), (E, None)]

    def test_error_from_scanner_has_absolute_position(self):
        with pytest.raises(SQLSyntaxError) as info:
            tokenize("SELECT 'abc")
        assert info.value.position == 7

    def test_unexpected_character_position(self):
        with pytest.raises(SQLSyntaxError) as info:
            tokenize("SELECT a # b")
        assert info.value.position == 9
        assert "position 9" in str(info.value)
