"""Built-in functions: arity checking and calling."""

import math

import pytest

from exprcalc import ArityError, DomainError, EvalError, UnknownNameError, call_builtin, check_arity


class TestCheckArity:
    def test_accepts(self):
        assert check_arity("f", 1, 1, 1) is None
        assert check_arity("max", 5, 1, None) is None
        assert check_arity("log", 2, 1, 2) is None
        assert check_arity("k", 0, 0, 0) is None

    @pytest.mark.parametrize("args, message", [
        (("sqrt", 2, 1, 1), "sqrt() takes exactly 1 argument (2 given)"),
        (("f", 1, 2, 2), "f() takes exactly 2 arguments (1 given)"),
        (("k", 1, 0, 0), "k() takes exactly 0 arguments (1 given)"),
        (("max", 0, 1, None), "max() takes at least 1 argument (0 given)"),
        (("g", 1, 2, None), "g() takes at least 2 arguments (1 given)"),
        (("log", 3, 1, 2), "log() takes 1 to 2 arguments (3 given)"),
        (("log", 0, 1, 2), "log() takes 1 to 2 arguments (0 given)"),
    ])
    def test_rejects(self, args, message):
        with pytest.raises(ArityError) as info:
            check_arity(*args)
        assert str(info.value) == message

    def test_arity_error_is_eval_error(self):
        assert issubclass(ArityError, EvalError)


class TestCallBuiltin:
    @pytest.mark.parametrize("name, args, expected", [
        ("abs", [-3], 3),
        ("min", [4, 2, 8], 2),
        ("max", [4, 2.5, 8], 8),
        ("max", [7], 7),
        ("sqrt", [16], 4.0),
        ("exp", [0], 1.0),
        ("ln", [1], 0.0),
        ("log", [1000], 3.0),
        ("log", [8, 2], 3.0),
        ("sin", [0], 0.0),
        ("cos", [0], 1.0),
        ("floor", [-2.5], -3),
        ("ceil", [2.1], 3),
        ("round", [2.5], 2),
        ("round", [3.5], 4),
        ("round", [2.675, 2], 2.67),
    ])
    def test_values(self, name, args, expected):
        result = call_builtin(name, args)
        assert result == pytest.approx(expected)
        assert type(result) is type(expected)

    def test_trigonometry_in_radians(self):
        assert call_builtin("sin", [math.pi / 2]) == pytest.approx(1.0)
        assert call_builtin("tan", [math.pi / 4]) == pytest.approx(1.0)

    def test_unknown(self):
        with pytest.raises(UnknownNameError) as info:
            call_builtin("nope", [1])
        assert (info.value.name, info.value.kind, str(info.value)) == ("nope", "function", "Unknown function 'nope'")

    def test_arity(self):
        with pytest.raises(ArityError, match=r"sqrt\(\) takes exactly 1 argument \(2 given\)"):
            call_builtin("sqrt", [1, 2])
        with pytest.raises(ArityError, match="at least 1"):
            call_builtin("min", [])

    @pytest.mark.parametrize("name, args", [("sqrt", [-1]), ("ln", [0]), ("log", [-5]), ("log", [8, 1]), ("round", [1.5, 0.5])])
    def test_domain(self, name, args):
        with pytest.raises(DomainError) as info:
            call_builtin(name, args)
        assert str(info.value) == f"Math domain error in {name}()"

    def test_overflow(self):
        with pytest.raises(EvalError, match=r"Numeric overflow in exp\(\)"):
            call_builtin("exp", [1000])
