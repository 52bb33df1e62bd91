"""Layer 1: printing Lisp values."""

import math

import pytest

from lispy.datatypes import NIL, VOID, ErrorObject, Pair, Symbol
from lispy.printer import escape_string, format_number, to_string
from lispy.procedures import Builtin, MacroBase, Procedure

S = Symbol


def L(*items, tail=NIL):
    result = tail
    for item in reversed(items):
        result = Pair(item, result)
    return result


class TestEscapeString:
    @pytest.mark.parametrize(
        "value, written",
        [
            ("", '""'),
            ("abc", '"abc"'),
            ('say "hi"', r'"say \"hi\""'),
            ("a\\b", r'"a\\b"'),
            ("line\nbreak", r'"line\nbreak"'),
            ("tab\t", r'"tab\t"'),
            ("cr\r", r'"cr\r"'),
            ("bell\a", r'"bell\x7;"'),
            ("esc\x1b[0m", r'"esc\x1b;[0m"'),
            ("del\x7f", r'"del\x7f;"'),
            ("\x00", r'"\x0;"'),
            ("caf\u00e9 \u03bb", '"caf\u00e9 \u03bb"'),
            ("semi;colon", '"semi;colon"'),
        ],
    )
    def test_escapes(self, value, written):
        assert escape_string(value) == written


class TestFormatNumber:
    @pytest.mark.parametrize(
        "value, text",
        [
            (0, "0"),
            (42, "42"),
            (-17, "-17"),
            (10**30, "1" + "0" * 30),
            (2.0, "2.0"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (2.5, "2.5"),
            (1e-07, "1e-07"),
            (1e22, "1e+22"),
            (math.inf, "+inf.0"),
            (-math.inf, "-inf.0"),
            (math.nan, "+nan.0"),
        ],
    )
    def test_formats(self, value, text):
        assert format_number(value) == text

    @pytest.mark.parametrize("value", [True, False, "1", None])
    def test_rejects_non_numbers(self, value):
        with pytest.raises(TypeError):
            format_number(value)


class Thing:
    def __repr__(self):
        return "Thing!"


class Mac(MacroBase):
    def __init__(self, name):
        self.name = name


class TestToString:
    @pytest.mark.parametrize(
        "value, text",
        [
            (True, "#t"),
            (False, "#f"),
            (7, "7"),
            (-1.5, "-1.5"),
            (3.0, "3.0"),
            (S("hello"), "hello"),
            (S("with-dash?"), "with-dash?"),
            (NIL, "()"),
            (VOID, "#<void>"),
            ("text", '"text"'),
            ('q"\n', r'"q\"\n"'),
        ],
    )
    def test_atoms_written(self, value, text):
        assert to_string(value) == text

    def test_display_string_is_raw(self):
        assert to_string('q"\n', write=False) == 'q"\n'

    def test_display_of_non_strings_matches_write(self):
        assert to_string(S("x"), write=False) == "x"
        assert to_string(1.0, write=False) == "1.0"

    @pytest.mark.parametrize(
        "value, text",
        [
            (L(1, 2, 3), "(1 2 3)"),
            (L(1), "(1)"),
            (L(1, L(2, L(3)), NIL), "(1 (2 (3)) ())"),
            (L(1, 2, tail=3), "(1 2 . 3)"),
            (Pair(S("a"), S("b")), "(a . b)"),
            (L(S("quote"), S("x")), "(quote x)"),
            (L("a", L("b")), '("a" ("b"))'),
            (L(L(1, tail=2), tail=L(3)), "((1 . 2) 3)"),
            (L(True, False, VOID), "(#t #f #<void>)"),
        ],
    )
    def test_lists(self, value, text):
        assert to_string(value) == text

    def test_display_passes_down_into_lists(self):
        assert to_string(L("a", L("b c"), tail="d"), write=False) == "(a (b c) . d)"

    def test_long_list_does_not_recurse(self):
        lst = NIL
        for _ in range(5000):
            lst = Pair(0, lst)
        assert to_string(lst) == "(" + " ".join(["0"] * 5000) + ")"

    def test_named_procedure(self):
        assert to_string(Procedure([], None, [1], None, "square")) == "#<procedure square>"

    def test_anonymous_procedure(self):
        assert to_string(Procedure([], None, [1], None, None)) == "#<procedure>"

    def test_builtin(self):
        assert to_string(Builtin("car", lambda p: p, 1, 1)) == "#<builtin car>"

    def test_macro(self):
        assert to_string(Mac("swap!")) == "#<macro swap!>"

    def test_error_object(self):
        assert to_string(ErrorObject("it broke", [1])) == '#<error "it broke">'

    def test_python_callable(self):
        assert to_string(len) == "#<builtin>"

    def test_other_objects(self):
        assert to_string(Thing()) == "#<Thing!>"

    def test_procedure_inside_list(self):
        assert to_string(L(Builtin("+", sum), 1)) == "(#<builtin +> 1)"
