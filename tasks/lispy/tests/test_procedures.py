"""Layer 2: parameter lists and builtin procedure objects."""

import pytest

from lispy.datatypes import NIL, Pair, Symbol
from lispy.errors import ArityError, LispSyntaxError
from lispy.procedures import Builtin, parse_params

S = Symbol
a, b, c = S("a"), S("b"), S("c")


def L(*items, tail=NIL):
    result = tail
    for item in reversed(items):
        result = Pair(item, result)
    return result


class TestParseParams:
    def test_symbol_takes_everything(self):
        assert parse_params(a) == ([], a)

    def test_empty(self):
        assert parse_params(NIL) == ([], None)

    def test_proper_list(self):
        assert parse_params(L(a, b, c)) == ([a, b, c], None)

    def test_improper_list(self):
        assert parse_params(L(a, b, tail=c)) == ([a, b], c)

    @pytest.mark.parametrize("spec", [L(a, 1), L("a"), 5, L(a, tail=2), L(L(a)), "args"])
    def test_bad_parameter_list(self, spec):
        with pytest.raises(LispSyntaxError, match="bad parameter list"):
            parse_params(spec)

    @pytest.mark.parametrize("spec", [L(a, b, a), L(a, tail=a), L(b, c, tail=c)])
    def test_duplicates(self, spec):
        with pytest.raises(LispSyntaxError, match="duplicate parameter"):
            parse_params(spec)

    def test_duplicate_message_names_parameter(self):
        with pytest.raises(LispSyntaxError) as info:
            parse_params(L(a, b, b))
        assert str(info.value) == "duplicate parameter: b"


class TestBuiltinCall:
    def test_calls_function(self):
        assert Builtin("+", lambda *xs: sum(xs))(1, 2, 3) == 6

    def test_variadic_accepts_none_and_many(self):
        f = Builtin("list", lambda *xs: len(xs), 0, None)
        assert f() == 0 and f(*range(50)) == 50

    @pytest.mark.parametrize(
        "lo, hi, nargs, message",
        [
            (1, 1, 2, "f: expected 1 argument, got 2"),
            (2, 2, 0, "f: expected 2 arguments, got 0"),
            (0, 0, 1, "f: expected 0 arguments, got 1"),
            (1, None, 0, "f: expected at least 1 argument, got 0"),
            (2, None, 1, "f: expected at least 2 arguments, got 1"),
            (1, 3, 4, "f: expected between 1 and 3 arguments, got 4"),
            (2, 3, 1, "f: expected between 2 and 3 arguments, got 1"),
        ],
    )
    def test_arity_errors(self, lo, hi, nargs, message):
        with pytest.raises(ArityError) as info:
            Builtin("f", lambda *xs: None, lo, hi)(*range(nargs))
        assert str(info.value) == message

    def test_function_not_called_on_arity_error(self):
        calls = []
        f = Builtin("f", lambda *xs: calls.append(xs), 1, 1)
        with pytest.raises(ArityError):
            f()
        assert calls == []

    def test_range_accepts_bounds(self):
        f = Builtin("f", lambda *xs: len(xs), 1, 3)
        assert (f(1), f(1, 2, 3)) == (1, 3)

    def test_exceptions_propagate(self):
        def boom():
            raise KeyError("x")

        with pytest.raises(KeyError):
            Builtin("boom", boom)()
