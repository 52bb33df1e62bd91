"""Layer 1: the reader (strings, numbers, atoms, lists, whole sources)."""

import math

import pytest

from lispy.datatypes import NIL, Pair, Symbol
from lispy.errors import ParseError
from lispy.reader import Reader, decode_string, parse_atom, parse_number, read, read_all
from lispy.tokenizer import Token, tokenize

S = Symbol
DOT = object()  # marks the tail of an improper list in py()


def py(x):
    """Lisp data -> nested Python lists ([1, DOT, 2] for (1 . 2)); other values unchanged."""
    if x is NIL:
        return []
    if isinstance(x, Pair):
        out = []
        while isinstance(x, Pair):
            out.append(py(x.car))
            x = x.cdr
        if x is not NIL:
            out += [DOT, py(x)]
        return out
    return x


def atom(text, line=1, col=1):
    return Token("atom", text, line, col)


class TestDecodeString:
    @pytest.mark.parametrize(
        "raw, expected",
        [
            ('""', ""),
            ('"hello"', "hello"),
            (r'"a\nb"', "a\nb"),
            (r'"tab\there"', "tab\there"),
            (r'"cr\r"', "cr\r"),
            (r'"back\\slash"', "back\\slash"),
            (r'"say \"hi\""', 'say "hi"'),
            (r'"bell\a"', "bell\a"),
            (r'"nul\0"', "nul\0"),
            (r'"\x41;BC"', "ABC"),
            (r'"\x3bb;"', "\u03bb"),
            (r'"\x1F600;"', "\U0001f600"),
            ('"raw\nnewline"', "raw\nnewline"),
            ('"one \\\n     two"', "one two"),
            ('"x\\\n\t\ty"', "xy"),
            ('"caf\u00e9"', "caf\u00e9"),
        ],
    )
    def test_decodes(self, raw, expected):
        assert decode_string(raw) == expected

    def test_unknown_escape(self):
        with pytest.raises(ParseError) as info:
            decode_string(r'"a\qb"', 3, 7)
        assert info.value.message == "unknown escape \\q"
        assert (info.value.line, info.value.col) == (3, 7)

    @pytest.mark.parametrize("raw", [r'"\x41"', r'"\x;"', r'"\xZZ;"', r'"\x110000;"', r'"\x'])
    def test_bad_hex_escape(self, raw):
        with pytest.raises(ParseError):
            decode_string(raw + ('"' if not raw.endswith('"') else ""))

    def test_bad_hex_escape_message(self):
        with pytest.raises(ParseError, match="bad hex escape"):
            decode_string(r'"\xG1;"')

    @pytest.mark.parametrize("raw", ['"abc', 'abc"', '"', r'"abc\"'])
    def test_unterminated(self, raw):
        with pytest.raises(ParseError, match="unterminated string"):
            decode_string(raw)


class TestParseNumber:
    @pytest.mark.parametrize(
        "text, value, kind",
        [
            ("0", 0, int),
            ("42", 42, int),
            ("-7", -7, int),
            ("+3", 3, int),
            ("123456789012345678901234567890", 123456789012345678901234567890, int),
            ("1.5", 1.5, float),
            ("-.5", -0.5, float),
            ("2.", 2.0, float),
            ("1e3", 1000.0, float),
            ("1.5E-2", 0.015, float),
            ("+inf.0", math.inf, float),
            ("-inf.0", -math.inf, float),
            ("#xff", 255, int),
            ("#XFF", 255, int),
            ("#b-101", -5, int),
            ("#o17", 15, int),
            ("#d10", 10, int),
            ("#x+1A", 26, int),
        ],
    )
    def test_numbers(self, text, value, kind):
        result = parse_number(text)
        assert result == value and type(result) is kind

    def test_nan(self):
        assert math.isnan(parse_number("+nan.0"))

    @pytest.mark.parametrize("text, radix, value", [("ff", 16, 255), ("-101", 2, -5), ("777", 8, 511), ("10", 10, 10)])
    def test_radix_argument(self, text, radix, value):
        assert parse_number(text, radix) == value

    @pytest.mark.parametrize("text, radix", [("12", 2), ("1.5", 16), ("8", 8), ("g", 16), ("#b2", 10)])
    def test_invalid_digits_for_radix(self, text, radix):
        assert parse_number(text, radix) is None

    @pytest.mark.parametrize(
        "text", ["", "+", "-", ".", "1/2", "abc", "1e", "e3", "#t", " 1", "1 ", "1_000", "\u0663", "--1", "1.2.3", "#x"]
    )
    def test_not_numbers(self, text):
        assert parse_number(text) is None

    def test_bad_radix_argument(self):
        with pytest.raises(ValueError):
            parse_number("1", 3)


class TestParseAtom:
    @pytest.mark.parametrize("text, value", [("#t", True), ("#true", True), ("#f", False), ("#false", False)])
    def test_booleans(self, text, value):
        assert parse_atom(atom(text)) is value

    @pytest.mark.parametrize("text, value", [("12", 12), ("-3.25", -3.25), ("#x10", 16)])
    def test_numbers(self, text, value):
        assert parse_atom(atom(text)) == value

    @pytest.mark.parametrize("text", ["foo", "+", "-", "...", "1+", "->string", "set-car!", "a.b", "<=?"])
    def test_symbols(self, text):
        sym = parse_atom(atom(text))
        assert isinstance(sym, Symbol) and sym is Symbol(text)

    def test_symbols_are_case_sensitive(self):
        assert parse_atom(atom("Foo")) is not parse_atom(atom("foo"))

    def test_unknown_hash_syntax(self):
        with pytest.raises(ParseError) as info:
            parse_atom(atom("#foo", 2, 5))
        assert info.value.message == "bad syntax #foo"
        assert (info.value.line, info.value.col) == (2, 5)

    def test_lone_dot(self):
        with pytest.raises(ParseError, match="unexpected '.'"):
            parse_atom(atom("."))


def read_one(source):
    return Reader(tokenize(source)).read_form()


class TestReadForm:
    @pytest.mark.parametrize(
        "source, expected",
        [
            ("'x", [S("quote"), S("x")]),
            ("`x", [S("quasiquote"), S("x")]),
            (",x", [S("unquote"), S("x")]),
            (",@x", [S("unquote-splicing"), S("x")]),
            ("''a", [S("quote"), [S("quote"), S("a")]]),
            ("'42", [S("quote"), 42]),
            ("`,x", [S("quasiquote"), [S("unquote"), S("x")]]),
            ("'\"s\"", [S("quote"), "s"]),
        ],
    )
    def test_quote_abbreviations(self, source, expected):
        assert py(read_one(source)) == expected

    def test_quote_form_is_a_two_element_list(self):
        form = read_one("'x")
        assert isinstance(form, Pair) and form.car is S("quote")
        assert isinstance(form.cdr, Pair) and form.cdr.car is S("x") and form.cdr.cdr is NIL

    def test_string_is_decoded(self):
        assert read_one(r'"a\tb"') == "a\tb"

    def test_atom(self):
        assert read_one("#t") is True

    def test_reads_only_one_datum(self):
        reader = Reader(tokenize("a 'b c"))
        assert reader.read_form() is S("a")
        assert py(reader.read_form()) == [S("quote"), S("b")]
        assert reader.pos == 3

    def test_datum_comment_is_skipped(self):
        assert read_one("#;ignored kept") is S("kept")

    def test_datum_comment_after_quote(self):
        assert py(read_one("' #;a b")) == [S("quote"), S("b")]

    def test_stray_close_paren(self):
        with pytest.raises(ParseError) as info:
            read_one("\n  )")
        assert info.value.message == "unexpected ')'"
        assert (info.value.line, info.value.col) == (2, 3)

    @pytest.mark.parametrize("source, text", [("'", "'"), ("`", "`"), ("a ,@", ",@")])
    def test_quote_at_end(self, source, text):
        reader = Reader(tokenize(source))
        with pytest.raises(ParseError) as info:
            while True:
                reader.read_form()
        assert info.value.message == f"unexpected end of input after {text}"

    def test_no_tokens(self):
        with pytest.raises(ParseError) as info:
            Reader([]).read_form()
        assert info.value.message == "unexpected end of input"
        assert (info.value.line, info.value.col) == (1, 1)

    def test_string_error_has_token_position(self):
        with pytest.raises(ParseError) as info:
            read_one('\n   "bad \\q"')
        assert (info.value.line, info.value.col) == (2, 4)


class TestReadList:
    @pytest.mark.parametrize(
        "source, expected",
        [
            ("()", []),
            ("(1 2 3)", [1, 2, 3]),
            ('(a "b" #t)', [S("a"), "b", True]),
            ("(1 (2 (3)) ())", [1, [2, [3]], []]),
            ("(a . b)", [S("a"), DOT, S("b")]),
            ("(1 2 . 3)", [1, 2, DOT, 3]),
            ("(1 . (2 3))", [1, 2, 3]),
            ("(1 . ())", [1]),
            ("( 1\n 2 )", [1, 2]),
            ("(1 #;2 3)", [1, 3]),
            ("(1 #;2)", [1]),
            ("(a . #;b c)", [S("a"), DOT, S("c")]),
            ("(a . b #;c)", [S("a"), DOT, S("b")]),
            ("'(1 2)", [S("quote"), [1, 2]]),
            ("`(a ,b ,@c)", [S("quasiquote"), [S("a"), [S("unquote"), S("b")], [S("unquote-splicing"), S("c")]]]),
            ("('a 'b)", [[S("quote"), S("a")], [S("quote"), S("b")]]),
            ("#;(skip (this)) (kept)", [S("kept")]),
        ],
    )
    def test_lists(self, source, expected):
        assert py(read_one(source)) == expected

    def test_empty_list_is_nil(self):
        assert read_one("()") is NIL

    def test_dotted_pair_structure(self):
        p = read_one("(x . 5)")
        assert isinstance(p, Pair) and p.car is S("x") and p.cdr == 5

    @pytest.mark.parametrize("source, pos", [("(1 2", (1, 1)), ("(a\n  (b c)", (1, 1)), ("(a (b", (1, 4)), ("(a .", (1, 1))])
    def test_unclosed(self, source, pos):
        with pytest.raises(ParseError) as info:
            read_one(source)
        assert info.value.message == "unclosed '('"
        assert (info.value.line, info.value.col) == pos

    @pytest.mark.parametrize("source, pos", [("( . a)", (1, 3)), ("(a .)", (1, 4)), ("(a . b c)", (1, 4)), ("(1\n . 2 3)", (2, 2))])
    def test_bad_dotted_list(self, source, pos):
        with pytest.raises(ParseError) as info:
            read_one(source)
        assert info.value.message == "bad dotted list"
        assert (info.value.line, info.value.col) == pos

    def test_long_list(self):
        assert py(read_one("(" + " ".join(map(str, range(500))) + ")")) == list(range(500))


class TestReadAll:
    def test_empty_source(self):
        assert read_all("") == []

    def test_only_comments(self):
        assert read_all("; nothing\n#| here |#\n") == []

    def test_several_forms(self):
        forms = read_all("(define x 1)\n'y 42 \"s\"")
        assert [py(f) for f in forms] == [[S("define"), S("x"), 1], [S("quote"), S("y")], 42, "s"]

    def test_top_level_datum_comment(self):
        assert read_all("#;(skip me) 1 #; 2 3") == [1, 3]

    def test_datum_comment_at_end(self):
        with pytest.raises(ParseError):
            read_all("1 #;")

    def test_trailing_datum_comment_is_skipped(self):
        assert read_all("1 #;2") == [1]

    def test_errors_propagate(self):
        with pytest.raises(ParseError, match="unexpected '\\)'"):
            read_all("(a) b)")

    def test_read_exactly_one(self):
        assert py(read(" (1 2) ; trailing comment")) == [1, 2]

    @pytest.mark.parametrize("source", ["", "1 2"])
    def test_read_requires_one_datum(self, source):
        with pytest.raises(ParseError, match="expected exactly one datum"):
            read(source)
