"""loads/load: the decoding entry points, including error positions and round-trips."""

import io
import math

import pytest

from jsonkit import ParseError, dumps, load, loads


class TestLoads:
    def test_document(self):
        text = '{"name": "jsonkit", "tags": ["a", "b"], "n": 3, "pi": 3.14, "ok": true, "none": null}'
        assert loads(text) == {
            "name": "jsonkit",
            "tags": ["a", "b"],
            "n": 3,
            "pi": 3.14,
            "ok": True,
            "none": None,
        }

    def test_bytes_input(self):
        assert loads(b'{"k": "\xc3\xa9"}') == {"k": "é"}
        assert loads(bytearray(b"[1]")) == [1]

    def test_bytes_with_bom(self):
        assert loads(b'\xef\xbb\xbf[1, 2]') == [1, 2]

    def test_bytes_error_positions_ignore_bom(self):
        with pytest.raises(ParseError) as info:
            loads(b"\xef\xbb\xbf[1,]")
        assert info.value.pos == 2

    def test_str_with_bom(self):
        with pytest.raises(ParseError) as info:
            loads("\ufeff[]")
        assert (info.value.msg, info.value.pos) == ("Unexpected UTF-8 BOM", 0)

    def test_invalid_utf8(self):
        with pytest.raises(UnicodeDecodeError):
            loads(b'"\xff"')

    @pytest.mark.parametrize("value", [None, 12, ["[]"], io.StringIO("[]")])
    def test_wrong_type(self, value):
        with pytest.raises(TypeError, match="must be str, bytes or bytearray"):
            loads(value)

    def test_object_hook_and_max_depth_are_passed_on(self):
        assert loads('{"a": 1}', object_hook=lambda d: sorted(d.items())) == [("a", 1)]
        with pytest.raises(ParseError):
            loads("[[1]]", max_depth=1)

    def test_load_from_file(self):
        assert load(io.StringIO('{"x": [true]}')) == {"x": [True]}

    def test_error_line_and_column(self):
        text = '{\n  "a": 1,\n  "b": tru\n}'
        with pytest.raises(ParseError) as info:
            loads(text)
        err = info.value
        assert (err.msg, err.lineno, err.colno) == ("Invalid literal", 3, 8)
        assert str(err) == "Invalid literal: line 3 column 8 (char 19)"

    def test_error_at_end_of_input(self):
        with pytest.raises(ParseError) as info:
            loads('[1,\n 2')
        err = info.value
        assert (err.msg, err.pos, err.lineno, err.colno) == ("Expecting ',' delimiter", 6, 2, 3)


ROUND_TRIP_VALUES = [
    {"a": [1, 2.5, -3e-07, True, False, None], "b": {"c": ""}},
    ["\U0001F600 emoji", "quote \" backslash \\ slash /", "ctrl \x00\x1f\x7f", "é"],
    [0, -0.0, 1e300, -1e-300, 123456789012345678901234567890],
    {"": {"": []}, "nested": [[[[{}]]]]},
    "just a string",
]


class TestRoundTrip:
    @pytest.mark.parametrize("value", ROUND_TRIP_VALUES)
    @pytest.mark.parametrize("kwargs", [{}, {"indent": 2}, {"ensure_ascii": False}, {"sort_keys": True}])
    def test_loads_dumps(self, value, kwargs):
        assert loads(dumps(value, **kwargs)) == value

    def test_float_round_trip_is_exact(self):
        values = [0.1, 1 / 3, 2.0**-1074, 1.7976931348623157e308, -123.456e-10]
        back = loads(dumps(values))
        assert all(a == b and math.copysign(1, a) == math.copysign(1, b) for a, b in zip(values, back))

    def test_text_round_trip(self):
        text = '{"a": [1, 2, {"b": null}], "c": "\\u00e9"}'
        assert dumps(loads(text)) == text
