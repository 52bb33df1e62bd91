"""The serializer: strings, numbers, keys and containers."""

import pytest

from jsonkit import Encoder, encode_string, format_number
from jsonkit.serializer import key_to_string


class TestEncodeString:
    def test_plain(self):
        assert encode_string("hello") == '"hello"'
        assert encode_string("") == '""'

    def test_quote_and_backslash(self):
        assert encode_string('a"b\\c') == '"a\\"b\\\\c"'

    def test_short_escapes(self):
        assert encode_string("\n\r\t\b\f") == '"\\n\\r\\t\\b\\f"'

    def test_other_control_characters(self):
        assert encode_string("\x00\x01\x1f") == '"\\u0000\\u0001\\u001f"'

    def test_slash_and_del_untouched(self):
        assert encode_string("a/b\x7f") == '"a/b\x7f"'

    def test_non_ascii_escaped_by_default(self):
        assert encode_string("café") == '"caf\\u00e9"'
        assert encode_string("\u20ac") == '"\\u20ac"'

    def test_astral_characters_as_surrogate_pairs(self):
        assert encode_string("\U0001F600") == '"\\ud83d\\ude00"'
        assert encode_string("\U0010FFFF") == '"\\udbff\\udfff"'

    def test_ensure_ascii_false(self):
        assert encode_string("café \U0001F600", ensure_ascii=False) == '"café \U0001F600"'

    def test_control_characters_escaped_even_without_ensure_ascii(self):
        assert encode_string("\x02\n", ensure_ascii=False) == '"\\u0002\\n"'


class TestFormatNumber:
    @pytest.mark.parametrize(
        "value, text",
        [(0, "0"), (-17, "-17"), (10**30, "1" + "0" * 30), (1.0, "1.0"), (0.1, "0.1"),
         (-0.0, "-0.0"), (1e100, "1e+100"), (1.5e-7, "1.5e-07"), (2.0**0.5, "1.4142135623730951")],
    )
    def test_values(self, value, text):
        assert format_number(value) == text

    def test_int_subclass(self):
        class Count(int):
            def __repr__(self):
                return "Count!"

        assert format_number(Count(3)) == "3"

    @pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
    def test_non_finite(self, value):
        with pytest.raises(ValueError, match="not JSON compliant"):
            format_number(value)

    @pytest.mark.parametrize("value", [True, "1", None])
    def test_not_a_number(self, value):
        with pytest.raises(TypeError):
            format_number(value)


class TestKeyToString:
    @pytest.mark.parametrize(
        "key, text",
        [("k", "k"), ("", ""), (True, "true"), (False, "false"), (None, "null"), (7, "7"),
         (-2, "-2"), (2.5, "2.5")],
    )
    def test_keys(self, key, text):
        assert key_to_string(key) == text

    def test_bad_key(self):
        with pytest.raises(TypeError, match="keys must be str, int, float, bool or None, not tuple"):
            key_to_string((1, 2))

    def test_nan_key(self):
        with pytest.raises(ValueError):
            key_to_string(float("nan"))


class TestEncodeValue:
    @pytest.mark.parametrize(
        "value, text",
        [(None, "null"), (True, "true"), (False, "false"), (3, "3"), (0.5, "0.5"), ("é", '"\\u00e9"')],
    )
    def test_scalars(self, value, text):
        assert Encoder().encode_value(value, 0) == text

    def test_ensure_ascii_option(self):
        assert Encoder(ensure_ascii=False).encode_value("é", 0) == '"é"'

    def test_unsupported_type(self):
        with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
            Encoder().encode_value({1}, 0)

    def test_default_hook(self):
        enc = Encoder(default=lambda o: f"<{type(o).__name__}>")
        assert enc.encode_value(object(), 0) == '"<object>"'

    def test_default_result_is_encoded_again(self):
        class Point:
            def __init__(self, x):
                self.x = x

        enc = Encoder(default=lambda o: o.x if isinstance(o, Point) else str(o))
        assert enc.encode_value(Point(Point(5)), 0) == "5"

    def test_encode_entry_point(self):
        assert Encoder().encode(None) == "null"


class TestEncodeArray:
    def test_compact(self):
        assert Encoder().encode([1, "a", None]) == '[1, "a", null]'

    def test_tuple(self):
        assert Encoder().encode((1, (2,))) == "[1, [2]]"

    def test_empty(self):
        assert Encoder().encode([]) == "[]"
        assert Encoder(indent=2).encode([[], [1]]) == "[\n  [],\n  [\n    1\n  ]\n]"

    def test_indent_spaces(self):
        assert Encoder(indent=2).encode([1, [2, 3]]) == "[\n  1,\n  [\n    2,\n    3\n  ]\n]"

    def test_indent_string_and_zero(self):
        assert Encoder(indent="\t").encode([1, 2]) == "[\n\t1,\n\t2\n]"
        assert Encoder(indent=0).encode([1, 2]) == "[\n1,\n2\n]"

    def test_nested_level(self):
        assert Encoder(indent=1).encode_array([1], 2) == "[\n   1\n  ]"

    def test_separators(self):
        assert Encoder(separators=(",", ":")).encode([1, [2, 3]]) == "[1,[2,3]]"

    def test_circular(self):
        a = [1]
        a.append(a)
        with pytest.raises(ValueError, match="Circular reference detected"):
            Encoder().encode(a)

    def test_repeated_but_not_circular(self):
        shared = [1]
        assert Encoder().encode([shared, shared]) == "[[1], [1]]"

    def test_negative_indent(self):
        with pytest.raises(ValueError):
            Encoder(indent=-1)


class TestEncodeObject:
    def test_compact(self):
        assert Encoder().encode({"a": 1, "b": [True]}) == '{"a": 1, "b": [true]}'

    def test_empty(self):
        assert Encoder(indent=4).encode({}) == "{}"

    def test_indent(self):
        assert Encoder(indent=2).encode({"a": {"b": 1}, "c": []}) == (
            '{\n  "a": {\n    "b": 1\n  },\n  "c": []\n}'
        )

    def test_keeps_insertion_order(self):
        assert Encoder().encode({"b": 1, "a": 2}) == '{"b": 1, "a": 2}'

    def test_sort_keys(self):
        assert Encoder(sort_keys=True).encode({"b": 1, "a": {"d": 1, "c": 2}}) == (
            '{"a": {"c": 2, "d": 1}, "b": 1}'
        )

    def test_sort_keys_uses_string_form(self):
        assert Encoder(sort_keys=True).encode({2: "x", "10": "y", None: "z"}) == (
            '{"10": "y", "2": "x", "null": "z"}'
        )

    def test_non_string_keys(self):
        assert Encoder().encode({2: "a", True: "b", None: "c", 1.5: "d", False: "e"}) == (
            '{"2": "a", "true": "b", "null": "c", "1.5": "d", "false": "e"}'
        )

    def test_keys_are_escaped(self):
        assert Encoder().encode({'q"é': 1}) == '{"q\\"\\u00e9": 1}'
        assert Encoder(ensure_ascii=False).encode({"é": 1}) == '{"é": 1}'

    def test_bad_key(self):
        with pytest.raises(TypeError):
            Encoder().encode({(1,): 2})

    def test_separators(self):
        assert Encoder(separators=(";", "=")).encode({"a": 1, "b": 2}) == '{"a"=1;"b"=2}'
        assert Encoder(indent=1, separators=(" ,", " : ")).encode({"a": 1, "b": 2}) == (
            '{\n "a" : 1 ,\n "b" : 2\n}'
        )

    def test_circular(self):
        d = {}
        d["self"] = [d]
        with pytest.raises(ValueError, match="Circular reference detected"):
            Encoder().encode(d)
