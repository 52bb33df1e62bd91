"""The recursive-descent parser."""

import pytest

from jsonkit import ParseError, Parser


def parse_error(fn):
    with pytest.raises(ParseError) as info:
        fn()
    return info.value.msg, info.value.pos


class TestParseValue:
    @pytest.mark.parametrize(
        "text, value",
        [('"s"', "s"), ("42", 42), ("-2.5", -2.5), ("true", True), ("false", False), ("null", None)],
    )
    def test_scalars(self, text, value):
        p = Parser(text)
        result = p.parse_value()
        assert result == value and type(result) is type(value)

    def test_consumes_exactly_one_token(self):
        p = Parser("1 2")
        assert p.parse_value() == 1
        assert p.index == 1
        assert p.parse_value() == 2

    @pytest.mark.parametrize("text, pos", [("]", 0), (",", 0), ("  :", 2), ("}", 0), ("", 0), ("   ", 3)])
    def test_expecting_value(self, text, pos):
        assert parse_error(Parser(text).parse_value) == ("Expecting value", pos)


class TestParseArray:
    def test_empty(self):
        assert Parser("[]").parse_array() == []
        assert Parser("[ \n ]").parse_array() == []

    def test_elements(self):
        assert Parser('[1, "two", true, null, 2.5]').parse_array() == [1, "two", True, None, 2.5]

    def test_nested(self):
        assert Parser("[[], [1, [2, [3]]]]").parse_array() == [[], [1, [2, [3]]]]

    def test_stops_after_closing_bracket(self):
        p = Parser("[1] [2]")
        assert p.parse_array() == [1]
        assert p.parse_array() == [2]

    def test_depth_is_restored(self):
        p = Parser("[[1], [2]]")
        p.parse_array()
        assert p.depth == 0

    def test_not_an_array(self):
        assert parse_error(Parser("{}").parse_array) == ("Expecting '['", 0)

    @pytest.mark.parametrize("text, pos", [("[,1]", 1), ("[1,,2]", 3), ("[", 1), ("[1,", 3)])
    def test_missing_element(self, text, pos):
        assert parse_error(Parser(text).parse_array) == ("Expecting value", pos)

    def test_trailing_comma(self):
        assert parse_error(Parser("[1, 2 , ]").parse_array) == ("Trailing comma not allowed", 6)

    @pytest.mark.parametrize("text, pos", [("[1 2]", 3), ("[1", 2), ('[1:2]', 2), ("[1}", 2)])
    def test_missing_delimiter(self, text, pos):
        assert parse_error(Parser(text).parse_array) == ("Expecting ',' delimiter", pos)

    def test_max_depth(self):
        assert Parser("[[[]]]", max_depth=3).parse_array() == [[[]]]
        assert parse_error(Parser("[[[[]]]]", max_depth=3).parse_array) == (
            "Maximum nesting depth exceeded",
            3,
        )

    def test_max_depth_must_be_positive(self):
        with pytest.raises(ValueError):
            Parser("[]", max_depth=0)


class TestParseObject:
    def test_empty(self):
        assert Parser("{}").parse_object() == {}
        assert Parser("{\n}").parse_object() == {}

    def test_members(self):
        assert Parser('{"a": 1, "b": [true], "c": {"d": null}}').parse_object() == {
            "a": 1,
            "b": [True],
            "c": {"d": None},
        }

    def test_duplicate_keys_last_wins_first_position(self):
        result = Parser('{"a": 1, "b": 2, "a": 3}').parse_object()
        assert result == {"a": 3, "b": 2}
        assert list(result) == ["a", "b"]

    def test_object_hook_inner_first(self):
        seen = []

        def hook(d):
            seen.append(dict(d))
            return ("obj", tuple(sorted(d)))

        result = Parser('{"x": {"y": 1}, "z": 2}', object_hook=hook).parse_object()
        assert seen == [{"y": 1}, {"x": ("obj", ("y",)), "z": 2}]
        assert result == ("obj", ("x", "z"))

    def test_not_an_object(self):
        assert parse_error(Parser("[]").parse_object) == ("Expecting '{'", 0)

    @pytest.mark.parametrize("text, pos", [("{1: 2}", 1), ("{", 1), ('{"a": 1, 2: 3}', 9), ("{[]: 1}", 1)])
    def test_property_name_expected(self, text, pos):
        assert parse_error(Parser(text).parse_object) == (
            "Expecting property name enclosed in double quotes",
            pos,
        )

    def test_trailing_comma(self):
        assert parse_error(Parser('{"a": 1, }').parse_object) == ("Trailing comma not allowed", 7)

    @pytest.mark.parametrize("text, pos", [('{"a" 1}', 5), ('{"a"', 4), ('{"a", "b"}', 4)])
    def test_colon_expected(self, text, pos):
        assert parse_error(Parser(text).parse_object) == ("Expecting ':' delimiter", pos)

    def test_missing_value(self):
        assert parse_error(Parser('{"a": }').parse_object) == ("Expecting value", 6)

    @pytest.mark.parametrize("text, pos", [('{"a": 1 "b": 2}', 8), ('{"a": 1', 7), ('{"a": 1]', 7)])
    def test_comma_expected(self, text, pos):
        assert parse_error(Parser(text).parse_object) == ("Expecting ',' delimiter", pos)

    def test_max_depth(self):
        assert parse_error(Parser('{"a": {"b": {}}}', max_depth=2).parse_object) == (
            "Maximum nesting depth exceeded",
            12,
        )


class TestParse:
    def test_document(self):
        assert Parser(' {"a": [1, 2]} \n').parse() == {"a": [1, 2]}

    def test_scalar_document(self):
        assert Parser('"only"').parse() == "only"

    def test_empty_document(self):
        assert parse_error(Parser("").parse) == ("Expecting value", 0)

    def test_whitespace_only(self):
        assert parse_error(Parser("  \n").parse) == ("Expecting value", 3)

    @pytest.mark.parametrize("text, pos", [("[1] 2", 4), ("1 2", 2), ('{} {}', 3), ("null,", 4)])
    def test_extra_data(self, text, pos):
        assert parse_error(Parser(text).parse) == ("Extra data", pos)

    def test_errors_inside_value_propagate(self):
        assert parse_error(Parser("[1, ]").parse) == ("Trailing comma not allowed", 2)

    def test_default_depth_limit(self):
        ok = "[" * 256 + "]" * 256
        assert Parser(ok).parse() is not None
        too_deep = "[" * 257 + "]" * 257
        assert parse_error(Parser(too_deep).parse) == ("Maximum nesting depth exceeded", 256)
