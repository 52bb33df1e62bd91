"""The lexer: scan_string, scan_number and tokenize."""

import pytest

from jsonkit import ParseError, Token, TokenKind, scan_number, scan_string, tokenize


def error_of(fn, *args):
    with pytest.raises(ParseError) as info:
        fn(*args)
    return info.value.msg, info.value.pos


class TestScanString:
    def test_simple(self):
        assert scan_string('"hello"', 0) == ("hello", 7)

    def test_empty(self):
        assert scan_string('""', 0) == ("", 2)

    def test_starts_at_offset_and_stops_at_quote(self):
        assert scan_string('xx"ab"yy', 2) == ("ab", 6)

    def test_simple_escapes(self):
        text = r'"\" \\ \/ \b \f \n \r \t"'
        assert scan_string(text, 0) == ('" \\ / \b \f \n \r \t', len(text))

    def test_unicode_escape(self):
        assert scan_string(r'"\u00e9\u00E9A"', 0)[0] == "ééA"

    def test_surrogate_pair(self):
        text = r'"\ud83d\ude00!"'
        assert scan_string(text, 0) == ("\U0001F600!", len(text))

    def test_non_ascii_literal_characters(self):
        assert scan_string('"héllo ☃"', 0)[0] == "héllo ☃"

    def test_escaped_null(self):
        assert scan_string(r'"a\u0000b"', 0)[0] == "a\x00b"

    def test_not_a_quote(self):
        assert error_of(scan_string, "abc", 0) == ("Expecting '\"'", 0)

    def test_unterminated(self):
        assert error_of(scan_string, '["abc', 1) == ("Unterminated string", 1)

    def test_unterminated_after_backslash(self):
        assert error_of(scan_string, '"abc\\', 0) == ("Unterminated string", 0)

    def test_raw_control_character(self):
        assert error_of(scan_string, '"ab\ncd"', 0) == ("Invalid control character in string", 3)
        assert error_of(scan_string, '"\t"', 0) == ("Invalid control character in string", 1)

    @pytest.mark.parametrize("text", [r'"a\x41"', r'"a\'"', r'"a\U0041"'])
    def test_invalid_escape(self, text):
        assert error_of(scan_string, text, 0) == ("Invalid escape sequence", 2)

    @pytest.mark.parametrize("text", [r'"\u12"', r'"\u12g4"', r'"\u+123"', r'"\u 123"'])
    def test_bad_unicode_escape(self, text):
        assert error_of(scan_string, text, 0) == ("Invalid \\uXXXX escape", 1)

    def test_lone_high_surrogate(self):
        assert error_of(scan_string, r'"x\ud800y"', 0) == ("Lone surrogate in \\u escape", 2)

    def test_high_surrogate_followed_by_non_low(self):
        assert error_of(scan_string, r'"\ud800\u0041"', 0) == ("Lone surrogate in \\u escape", 1)

    def test_lone_low_surrogate(self):
        assert error_of(scan_string, r'"ab\udc00"', 0) == ("Lone surrogate in \\u escape", 3)

    def test_malformed_second_half(self):
        assert error_of(scan_string, r'"\ud83d\uzzzz"', 0) == ("Invalid \\uXXXX escape", 7)


class TestScanNumber:
    @pytest.mark.parametrize(
        "text, value",
        [("0", 0), ("7", 7), ("-12", -12), ("1234567890123456789012", 1234567890123456789012)],
    )
    def test_integers(self, text, value):
        result, end = scan_number(text, 0)
        assert result == value and type(result) is int and end == len(text)

    @pytest.mark.parametrize(
        "text, value",
        [("1.5", 1.5), ("-0.25", -0.25), ("1e2", 100.0), ("1E+2", 100.0), ("25e-1", 2.5),
         ("1.0", 1.0), ("0.5e1", 5.0)],
    )
    def test_floats(self, text, value):
        result, end = scan_number(text, 0)
        assert result == value and type(result) is float and end == len(text)

    def test_minus_zero_is_int_zero(self):
        assert scan_number("-0", 0) == (0, 2)

    def test_stops_at_first_non_number_character(self):
        assert scan_number("[12,", 1) == (12, 3)
        assert scan_number("1.5.2", 0) == (1.5, 3)
        assert scan_number("3x", 0) == (3, 1)

    @pytest.mark.parametrize("text", ["01", "00", "-01", "012.5"])
    def test_leading_zeros(self, text):
        assert error_of(scan_number, text, 0) == ("Leading zeros are not allowed", 0)

    @pytest.mark.parametrize("text", ["-", "-a", "1.", "1.e5", "2e", "2e+", "1E-x", ".5", "+1"])
    def test_invalid(self, text):
        assert error_of(scan_number, text, 0) == ("Invalid number", 0)

    def test_error_position_is_number_start(self):
        assert error_of(scan_number, "[1, 2.]", 4) == ("Invalid number", 4)

    def test_out_of_range(self):
        assert error_of(scan_number, "1e400", 0) == ("Number out of range", 0)
        assert error_of(scan_number, "-1.5e999", 0) == ("Number out of range", 0)

    def test_underflow_is_zero(self):
        assert scan_number("1e-400", 0) == (0.0, 6)

    def test_non_ascii_digits_are_not_digits(self):
        assert error_of(scan_number, "-\u0663", 0) == ("Invalid number", 0)


def kinds(text):
    return [t.kind for t in tokenize(text)]


class TestTokenize:
    def test_punctuation(self):
        K = TokenKind
        assert kinds("{}[]:,") == [K.LBRACE, K.RBRACE, K.LBRACKET, K.RBRACKET, K.COLON, K.COMMA, K.EOF]

    def test_positions_and_values(self):
        assert tokenize('[1, "a"]') == [
            Token(TokenKind.LBRACKET, "[", 0, 1),
            Token(TokenKind.NUMBER, 1, 1, 2),
            Token(TokenKind.COMMA, ",", 2, 3),
            Token(TokenKind.STRING, "a", 4, 7),
            Token(TokenKind.RBRACKET, "]", 7, 8),
            Token(TokenKind.EOF, None, 8, 8),
        ]

    def test_literals(self):
        toks = tokenize("true false null")
        assert [(t.kind, t.value, t.pos, t.end) for t in toks] == [
            (TokenKind.TRUE, True, 0, 4),
            (TokenKind.FALSE, False, 5, 10),
            (TokenKind.NULL, None, 11, 15),
            (TokenKind.EOF, None, 15, 15),
        ]

    def test_empty_and_whitespace_only(self):
        assert tokenize("") == [Token(TokenKind.EOF, None, 0, 0)]
        assert tokenize(" \t\r\n") == [Token(TokenKind.EOF, None, 4, 4)]

    def test_numbers_and_strings_are_decoded(self):
        toks = tokenize('-1.5e1 "x\\ny"')
        assert toks[0] == Token(TokenKind.NUMBER, -15.0, 0, 6)
        assert toks[1] == Token(TokenKind.STRING, "x\ny", 7, 13)

    def test_no_grammar_check(self):
        assert kinds("] 1 ,") == [TokenKind.RBRACKET, TokenKind.NUMBER, TokenKind.COMMA, TokenKind.EOF]

    def test_adjacent_tokens(self):
        assert kinds('{"a":1}') == [
            TokenKind.LBRACE, TokenKind.STRING, TokenKind.COLON, TokenKind.NUMBER,
            TokenKind.RBRACE, TokenKind.EOF,
        ]

    @pytest.mark.parametrize("text, pos", [("True", 0), ("[nul]", 1), ("truex", 0), ("[1, NaN]", 4)])
    def test_invalid_literal(self, text, pos):
        assert error_of(tokenize, text) == ("Invalid literal", pos)

    def test_unexpected_character(self):
        assert error_of(tokenize, "[1, @]") == ("Unexpected character '@'", 4)
        assert error_of(tokenize, "'a'") == ("Unexpected character \"'\"", 0)

    def test_form_feed_is_not_whitespace(self):
        assert error_of(tokenize, "1\f") == ("Unexpected character '\\x0c'", 1)

    def test_scanner_errors_propagate(self):
        assert error_of(tokenize, '[1, "ab') == ("Unterminated string", 4)
        assert error_of(tokenize, "[01]") == ("Leading zeros are not allowed", 1)
