"""Layer 1: the formula lexer (sheetcalc.lexer).

The reader classes call ``Lexer.read_*`` directly; TestTokenize covers the
dispatching loop that ties them together.
"""

import pytest

from sheetcalc.errors import FormulaError, LexError
from sheetcalc.lexer import Lexer, Token, tokenize


def read(method, text, start=0):
    """Call one reader on ``text``; return (token, position after it)."""
    lexer = Lexer(text, start)
    token = getattr(lexer, method)()
    return token, lexer.pos


def kinds(text):
    return [t.kind for t in tokenize(text)]


def values(text):
    return [t.value for t in tokenize(text)][:-1]


class TestNumbers:
    @pytest.mark.parametrize(
        "text, value",
        [
            ("42", 42.0),
            ("3.25", 3.25),
            (".5", 0.5),
            ("1.", 1.0),
            ("1e3", 1000.0),
            ("2.5E-2", 0.025),
            ("007", 7.0),
        ],
    )
    def test_forms(self, text, value):
        assert read("read_number", text) == (Token("NUMBER", value, 0), len(text))

    def test_value_is_float(self):
        assert type(read("read_number", "12")[0].value) is float

    def test_stops_at_operator(self):
        assert read("read_number", "12+3") == (Token("NUMBER", 12.0, 0), 2)

    def test_exponent_needs_digits(self):
        assert read("read_number", "2e") == (Token("NUMBER", 2.0, 0), 1)
        assert read("read_number", "2e+") == (Token("NUMBER", 2.0, 0), 1)

    def test_second_dot_ends_number(self):
        assert read("read_number", "1.5.2") == (Token("NUMBER", 1.5, 0), 3)

    def test_from_offset(self):
        assert read("read_number", "x12.5y", 1) == (Token("NUMBER", 12.5, 1), 5)

    def test_not_a_number(self):
        with pytest.raises(LexError):
            read("read_number", "abc")


class TestStrings:
    def test_simple(self):
        assert read("read_string", '"hello"') == (Token("STRING", "hello", 0), 7)

    def test_empty(self):
        assert read("read_string", '""') == (Token("STRING", "", 0), 2)

    def test_escaped_quote(self):
        assert read("read_string", '"say ""hi"""')[0].value == 'say "hi"'

    def test_only_a_quote(self):
        assert read("read_string", '""""') == (Token("STRING", '"', 0), 4)

    def test_keeps_spaces_and_symbols(self):
        assert read("read_string", '" a+b, (c) "')[0].value == " a+b, (c) "

    def test_stops_after_closing_quote(self):
        assert read("read_string", '"a"&"b"') == (Token("STRING", "a", 0), 3)

    def test_unterminated(self):
        with pytest.raises(LexError) as exc:
            read("read_string", '1 & "abc', 4)
        assert exc.value.position == 4

    def test_unterminated_after_escape(self):
        with pytest.raises(LexError):
            read("read_string", '"ab""')


class TestErrors:
    @pytest.mark.parametrize("code", ["#DIV/0!", "#NAME?", "#N/A", "#CIRC!", "#NULL!"])
    def test_known_codes(self, code):
        assert read("read_error", code) == (Token("ERROR", code, 0), len(code))

    def test_case_insensitive(self):
        assert read("read_error", "#n/a")[0].value == "#N/A"
        assert read("read_error", "#div/0!")[0].value == "#DIV/0!"

    def test_followed_by_operator(self):
        assert read("read_error", "#REF!+1") == (Token("ERROR", "#REF!", 0), 5)

    @pytest.mark.parametrize("bad", ["#", "#FOO!", "#DIV"])
    def test_unknown(self, bad):
        with pytest.raises(LexError):
            read("read_error", bad)


class TestWords:
    @pytest.mark.parametrize("text", ["B22", "XFD1048576", "$A$1", "C$3"])
    def test_references(self, text):
        assert read("read_word", text) == (Token("REF", text, 0), len(text))

    def test_reference_upper_cased(self):
        assert read("read_word", "$b$7")[0].value == "$B$7"

    def test_reference_before_colon(self):
        assert read("read_word", "A1:B2") == (Token("REF", "A1", 0), 2)

    def test_function_name(self):
        assert read("read_word", "sum(1)") == (Token("NAME", "SUM", 0), 3)

    def test_ref_like_name_before_paren(self):
        assert read("read_word", "LOG10(1)") == (Token("NAME", "LOG10", 0), 5)

    def test_ref_followed_by_letters_is_name(self):
        assert read("read_word", "A1B") == (Token("NAME", "A1B", 0), 3)

    def test_four_letters_is_name(self):
        assert read("read_word", "ABCD1")[0].kind == "NAME"

    def test_names_with_dot_and_underscore(self):
        assert read("read_word", "_my.name_2+1") == (Token("NAME", "_MY.NAME_2", 0), 10)

    @pytest.mark.parametrize("text, value", [("TRUE", True), ("false", False)])
    def test_booleans(self, text, value):
        assert read("read_word", text)[0] == Token("BOOL", value, 0)

    def test_true_before_paren_is_name(self):
        assert read("read_word", "TRUE()")[0] == Token("NAME", "TRUE", 0)
        assert read("read_word", "TRUE ()")[0].kind == "NAME"

    def test_boolean_before_other_token(self):
        assert read("read_word", "FALSE)")[0] == Token("BOOL", False, 0)

    def test_dollar_without_reference(self):
        with pytest.raises(LexError):
            read("read_word", "$foo")


class TestOperators:
    @pytest.mark.parametrize("op", ["-", "/", "^", "&", "%", "=", ">", "<=", ">=", "<>"])
    def test_each_operator(self, op):
        assert read("read_operator", op) == (Token("OP", op, 0), len(op))

    def test_two_char_preferred(self):
        assert read("read_operator", "<=2") == (Token("OP", "<=", 0), 2)
        assert read("read_operator", "<>2") == (Token("OP", "<>", 0), 2)

    def test_lt_then_space(self):
        assert read("read_operator", "< >") == (Token("OP", "<", 0), 1)

    @pytest.mark.parametrize(
        "text, kind", [("(", "LPAREN"), (")", "RPAREN"), (",", "COMMA"), (":", "COLON")]
    )
    def test_punctuation(self, text, kind):
        assert read("read_operator", text) == (Token(kind, text, 0), 1)

    @pytest.mark.parametrize("bad", [";", "!", "@"])
    def test_invalid(self, bad):
        with pytest.raises(LexError) as exc:
            read("read_operator", "1" + bad, 1)
        assert exc.value.position == 1


class TestTokenize:
    def test_empty_text_is_just_eof(self):
        assert tokenize("") == [Token("EOF", None, 0)]

    def test_whitespace_only(self):
        assert tokenize("   ") == [Token("EOF", None, 3)]

    def test_eof_position_is_length(self):
        assert tokenize("1+22")[-1] == Token("EOF", None, 4)

    def test_positions(self):
        assert [t.pos for t in tokenize("1 + A1")] == [0, 2, 4, 6]

    def test_mixed_expression_kinds(self):
        assert kinds('=SUM(A1:B2, "x") & TRUE') == [
            "OP", "NAME", "LPAREN", "REF", "COLON", "REF", "COMMA", "STRING", "RPAREN", "OP", "BOOL", "EOF",
        ]

    def test_error_literal_in_expression(self):
        assert kinds("#REF!+1") == ["ERROR", "OP", "NUMBER", "EOF"]

    def test_leading_dot_number(self):
        assert values(".5*2") == [0.5, "*", 2.0]

    def test_sign_is_not_part_of_number(self):
        assert kinds("-1") == ["OP", "NUMBER", "EOF"]

    def test_adjacent_strings(self):
        assert values('"a"&"b"') == ["a", "&", "b"]

    def test_whitespace_skipped_everywhere(self):
        assert values(" 1\t+\n2 ") == [1.0, "+", 2.0]

    def test_comparison_operators(self):
        assert values("1<=2<>3") == [1.0, "<=", 2.0, "<>", 3.0]

    def test_start_offset(self):
        toks = Lexer("=1+2", 1).tokenize()
        assert [t.kind for t in toks] == ["NUMBER", "OP", "NUMBER", "EOF"]
        assert toks[0].pos == 1

    def test_invalid_character(self):
        with pytest.raises(LexError) as exc:
            tokenize("1 + ?")
        assert exc.value.position == 4

    def test_lex_error_is_formula_error(self):
        with pytest.raises(FormulaError):
            tokenize("{1}")
