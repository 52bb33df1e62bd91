"""dumps/dump: the encoding entry points."""

import io

import pytest

from jsonkit import dump, dumps


class TestDumps:
    def test_defaults(self):
        assert dumps({"a": [1, 2.5, None], "b": "é"}) == '{"a": [1, 2.5, null], "b": "\\u00e9"}'

    def test_scalars(self):
        assert dumps(None) == "null"
        assert dumps("x") == '"x"'
        assert dumps(-3) == "-3"

    def test_indent(self):
        assert dumps([1, {"b": None}], indent=2) == '[\n  1,\n  {\n    "b": null\n  }\n]'

    def test_sort_keys(self):
        assert dumps({"z": 1, "a": 2}, sort_keys=True) == '{"a": 2, "z": 1}'

    def test_ensure_ascii(self):
        assert dumps(["€"], ensure_ascii=False) == '["€"]'

    def test_separators(self):
        assert dumps({"a": [1, 2]}, separators=(",", ":")) == '{"a":[1,2]}'

    def test_indent_default_item_separator_has_no_trailing_space(self):
        assert ", \n" not in dumps({"a": 1, "b": 2}, indent=2)

    def test_default(self):
        assert dumps({"s": {3, 1, 2}}, default=sorted) == '{"s": [1, 2, 3]}'

    def test_errors(self):
        with pytest.raises(TypeError):
            dumps(object())
        with pytest.raises(ValueError):
            dumps([float("nan")])

    def test_dump_writes_to_file(self):
        buf = io.StringIO()
        dump({"k": [True]}, buf, indent=1)
        assert buf.getvalue() == '{\n "k": [\n  true\n ]\n}'
