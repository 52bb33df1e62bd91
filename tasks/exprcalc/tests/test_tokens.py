"""The tokenizer: read_number and tokenize."""

import pytest

from exprcalc import ParseError, Token, TokenType, read_number, tokenize


def error_of(fn, *args):
    with pytest.raises(ParseError) as info:
        fn(*args)
    return info.value.message, info.value.pos


class TestReadNumber:
    @pytest.mark.parametrize("text, value", [("0", 0), ("42", 42), ("007", 7), ("123456789012345678901", 123456789012345678901)])
    def test_integers(self, text, value):
        result, end = read_number(text, 0)
        assert result == value and type(result) is int and end == len(text)

    @pytest.mark.parametrize(
        "text, value",
        [("3.25", 3.25), (".5", 0.5), ("1e3", 1000.0), ("2.5E-2", 0.025), (".5e+1", 5.0), ("10.0", 10.0)],
    )
    def test_floats(self, text, value):
        result, end = read_number(text, 0)
        assert result == value and type(result) is float and end == len(text)

    def test_reads_from_offset_and_stops(self):
        assert read_number("x+12)", 2) == (12, 4)
        assert read_number("2x", 0) == (2, 1)
        assert read_number("1.5e2*3", 0) == (150.0, 5)

    def test_e_followed_by_letters_is_malformed(self):
        assert error_of(read_number, "2ex", 0) == ("Malformed number", 0)

    @pytest.mark.parametrize("text", ["1e", "1e+", "1.", "1.e5", "1.2.3", "1e5.0", "x"])
    def test_malformed(self, text):
        assert error_of(read_number, text, 0) == ("Malformed number", 0)

    def test_error_position_is_number_start(self):
        assert error_of(read_number, "a + 3.", 4) == ("Malformed number", 4)


def summary(source):
    return [(t.type.name, t.value, t.pos) for t in tokenize(source)]


class TestTokenize:
    def test_definition(self):
        assert summary("f(x) = x**2") == [
            ("NAME", "f", 0), ("LPAREN", "(", 1), ("NAME", "x", 2), ("RPAREN", ")", 3),
            ("ASSIGN", "=", 5), ("NAME", "x", 7), ("OP", "^", 8), ("NUMBER", 2, 10), ("EOF", None, 11),
        ]

    def test_operators(self):
        assert [t.value for t in tokenize("+-*/%^")][:-1] == list("+-*/%^")

    def test_double_star_text(self):
        tok = tokenize("2**3")[1]
        assert tok == Token(TokenType.OP, "^", 1, "**")

    def test_single_star_then_double(self):
        assert [t.text for t in tokenize("a***b")] == ["a", "**", "*", "b", ""]

    def test_token_text(self):
        assert [t.text for t in tokenize(" 2.50e1 , foo_1 ")] == ["2.50e1", ",", "foo_1", ""]

    def test_names(self):
        assert [t.value for t in tokenize("_a b2 CamelCase")][:-1] == ["_a", "b2", "CamelCase"]

    def test_number_then_name(self):
        assert summary("2x") == [("NUMBER", 2, 0), ("NAME", "x", 1), ("EOF", None, 2)]

    def test_leading_dot_number(self):
        assert summary(".5+1") == [("NUMBER", 0.5, 0), ("OP", "+", 2), ("NUMBER", 1, 3), ("EOF", None, 4)]

    def test_whitespace_and_comments(self):
        assert summary("  1 \t+ # the rest is ignored ) $\n 2") == [
            ("NUMBER", 1, 2), ("OP", "+", 5), ("NUMBER", 2, 34), ("EOF", None, 35),
        ]

    def test_empty(self):
        assert tokenize("") == [Token(TokenType.EOF, None, 0, "")]
        assert tokenize("   # only a comment") == [Token(TokenType.EOF, None, 19, "")]

    @pytest.mark.parametrize("source, char, pos", [("1 $ 2", "$", 2), ("a!", "!", 1), ("x & y", "&", 2), ("1 + . 2", ".", 4), ("é", "é", 0)])
    def test_unexpected_character(self, source, char, pos):
        assert error_of(tokenize, source) == (f"Unexpected character '{char}'", pos)

    def test_number_errors_propagate(self):
        assert error_of(tokenize, "1 + 2e") == ("Malformed number", 4)
