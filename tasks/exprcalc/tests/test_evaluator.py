"""The evaluator: arithmetic, name lookup, node evaluation and function calls."""

import math

import pytest

from exprcalc import (
    ArityError, Assign, BinOp, Call, DivisionByZeroError, DomainError, EvalError, Evaluator,
    FuncDef, Name, Number, RecursionLimitError, UnaryOp, UnknownNameError, UserFunction,
    apply_binary,
)


def n(v):
    return Number(v)


class TestApplyBinary:
    @pytest.mark.parametrize("op, a, b, expected", [
        ("+", 2, 3, 5), ("-", 2, 3, -1), ("*", 4, 2.5, 10.0), ("/", 6, 3, 2.0), ("/", 1, 4, 0.25),
        ("%", 7, 3, 1), ("%", -7, 3, 2), ("%", 7, -3, -2), ("%", 5.5, 2, 1.5),
        ("^", 2, 10, 1024), ("^", 2, -1, 0.5), ("^", 4, 0.5, 2.0), ("^", -8, 2.0, 64.0),
        ("^", 0, 0, 1), ("^", -2, 3, -8),
    ])
    def test_values(self, op, a, b, expected):
        result = apply_binary(op, a, b)
        assert result == expected and type(result) is type(expected)

    def test_division_by_zero(self):
        with pytest.raises(DivisionByZeroError, match="^Division by zero$"):
            apply_binary("/", 1, 0)
        with pytest.raises(DivisionByZeroError):
            apply_binary("/", 1.5, 0.0)

    def test_modulo_by_zero(self):
        with pytest.raises(DivisionByZeroError, match="^Modulo by zero$"):
            apply_binary("%", 1, 0)

    def test_zero_to_negative_power(self):
        with pytest.raises(DivisionByZeroError, match="Zero cannot be raised to a negative power"):
            apply_binary("^", 0, -2)

    def test_negative_base_fractional_exponent(self):
        with pytest.raises(DomainError, match="Negative base with fractional exponent"):
            apply_binary("^", -8, 1 / 3)

    def test_huge_integer_power(self):
        with pytest.raises(EvalError, match="Result too large"):
            apply_binary("^", 10, 10**10)
        assert apply_binary("^", 2, 4096) == 2**4096
        with pytest.raises(EvalError, match="Result too large"):
            apply_binary("^", 2, 4097)
        assert apply_binary("^", 1, 10**10) == 1
        assert apply_binary("^", -1, 10**10 + 1) == -1

    def test_float_overflow(self):
        with pytest.raises(EvalError, match="Result too large"):
            apply_binary("^", 10.0, 400)

    def test_unknown_operator(self):
        with pytest.raises(ValueError):
            apply_binary("&", 1, 2)


class TestLookup:
    def test_global_variable(self):
        assert Evaluator({"x": 3}).lookup("x") == 3

    def test_constants(self):
        ev = Evaluator()
        assert ev.lookup("pi") == math.pi
        assert ev.lookup("e") == math.e
        assert ev.lookup("tau") == math.tau

    def test_variable_shadows_constant(self):
        assert Evaluator({"pi": 3}).lookup("pi") == 3

    def test_innermost_scope_first(self):
        ev = Evaluator({"x": 1, "y": 2})
        ev.scopes.append({"x": 10, "z": 30})
        ev.scopes.append({"x": 100})
        assert ev.lookup("x") == 100
        assert ev.lookup("y") == 2

    def test_outer_scopes_are_invisible(self):
        ev = Evaluator()
        ev.scopes.append({"z": 30})
        ev.scopes.append({"x": 100})
        with pytest.raises(UnknownNameError):
            ev.lookup("z")

    def test_unknown(self):
        with pytest.raises(UnknownNameError) as info:
            Evaluator().lookup("nope")
        assert (info.value.name, info.value.kind, str(info.value)) == ("nope", "variable", "Unknown variable 'nope'")

    def test_functions_are_not_variables(self):
        ev = Evaluator(functions={"f": UserFunction("f", (), n(1))})
        with pytest.raises(UnknownNameError):
            ev.lookup("f")
        with pytest.raises(UnknownNameError):
            ev.lookup("sqrt")

    def test_variables_are_copied(self):
        initial = {"x": 1}
        ev = Evaluator(initial)
        ev.variables["x"] = 2
        assert initial == {"x": 1}


class TestEvaluate:
    def test_number_and_name(self):
        ev = Evaluator({"x": 4})
        assert ev.evaluate(n(2.5)) == 2.5
        assert ev.evaluate(Name("x")) == 4

    def test_unary(self):
        ev = Evaluator({"x": 4})
        assert ev.evaluate(UnaryOp("-", Name("x"))) == -4
        assert ev.evaluate(UnaryOp("+", UnaryOp("-", n(2)))) == -2

    def test_binary_tree(self):
        # (1 + 2) * 3 ^ 2 - 10 / 4
        tree = BinOp("-", BinOp("*", BinOp("+", n(1), n(2)), BinOp("^", n(3), n(2))), BinOp("/", n(10), n(4)))
        assert Evaluator().evaluate(tree) == 24.5

    def test_left_operand_first(self):
        ev = Evaluator()
        with pytest.raises(UnknownNameError) as info:
            ev.evaluate(BinOp("+", Name("a"), Name("b")))
        assert info.value.name == "a"

    def test_assign(self):
        ev = Evaluator({"x": 2})
        assert ev.evaluate(Assign("y", BinOp("*", Name("x"), n(5)))) == 10
        assert ev.variables == {"x": 2, "y": 10}

    def test_assign_shadows_constant(self):
        ev = Evaluator()
        ev.evaluate(Assign("pi", n(3)))
        assert ev.evaluate(Name("pi")) == 3

    def test_failed_assignment_stores_nothing(self):
        ev = Evaluator()
        with pytest.raises(DivisionByZeroError):
            ev.evaluate(Assign("y", BinOp("/", n(1), n(0))))
        assert "y" not in ev.variables

    def test_funcdef_is_stored_not_evaluated(self):
        ev = Evaluator()
        body = BinOp("/", Name("undefined"), n(0))
        assert ev.evaluate(FuncDef("f", ("a",), body)) is None
        assert ev.functions == {"f": UserFunction("f", ("a",), body)}

    def test_funcdef_replaces(self):
        ev = Evaluator()
        ev.evaluate(FuncDef("f", (), n(1)))
        ev.evaluate(FuncDef("f", ("x",), n(2)))
        assert ev.functions["f"].params == ("x",)

    def test_cannot_redefine_builtin(self):
        with pytest.raises(EvalError, match="Cannot redefine built-in function 'sqrt'"):
            Evaluator().evaluate(FuncDef("sqrt", ("x",), n(1)))

    def test_errors_propagate(self):
        with pytest.raises(DivisionByZeroError):
            Evaluator().evaluate(BinOp("%", n(1), BinOp("-", n(2), n(2))))

    def test_unknown_node(self):
        with pytest.raises(TypeError):
            Evaluator().evaluate("1 + 1")


class TestCallFunction:
    def test_builtin(self):
        assert Evaluator().call_function("max", [1, 5, 3]) == 5

    def test_call_node_evaluates_arguments(self):
        ev = Evaluator({"x": -9})
        assert ev.evaluate(Call("abs", (Name("x"),))) == 9
        assert ev.evaluate(Call("max", (n(1), BinOp("*", n(2), n(3))))) == 6

    def test_user_function(self):
        ev = Evaluator({"k": 10})
        ev.functions["f"] = UserFunction("f", ("a", "b"), BinOp("+", BinOp("*", Name("a"), Name("b")), Name("k")))
        assert ev.call_function("f", [2, 3]) == 16
        assert ev.scopes == []

    def test_parameter_shadows_global(self):
        ev = Evaluator({"x": 100})
        ev.functions["double"] = UserFunction("double", ("x",), BinOp("*", Name("x"), n(2)))
        assert ev.evaluate(Call("double", (n(4),))) == 8
        assert ev.variables["x"] == 100

    def test_user_function_sees_globals_at_call_time(self):
        ev = Evaluator()
        ev.evaluate(FuncDef("g", (), Name("rate")))
        ev.evaluate(Assign("rate", n(3)))
        assert ev.call_function("g", []) == 3

    def test_nested_calls_do_not_see_callers_parameters(self):
        ev = Evaluator()
        ev.evaluate(FuncDef("inner", (), Name("a")))
        ev.evaluate(FuncDef("outer", ("a",), Call("inner", ())))
        with pytest.raises(UnknownNameError):
            ev.call_function("outer", [1])
        assert ev.scopes == []

    def test_composition(self):
        ev = Evaluator()
        ev.evaluate(FuncDef("sq", ("v",), BinOp("*", Name("v"), Name("v"))))
        ev.evaluate(FuncDef("hyp", ("a", "b"), Call("sqrt", (BinOp("+", Call("sq", (Name("a"),)), Call("sq", (Name("b"),))),))))
        assert ev.call_function("hyp", [3, 4]) == 5.0

    def test_user_function_shadows_nothing_builtin(self):
        ev = Evaluator()
        ev.functions["f"] = UserFunction("f", ("x",), n(0))
        assert ev.call_function("abs", [-1]) == 1

    def test_arity(self):
        ev = Evaluator()
        ev.functions["f"] = UserFunction("f", ("a", "b"), n(0))
        with pytest.raises(ArityError, match=r"f\(\) takes exactly 2 arguments \(1 given\)"):
            ev.call_function("f", [1])

    def test_unknown_function(self):
        with pytest.raises(UnknownNameError, match="Unknown function 'nope'"):
            Evaluator({"nope": 1}).call_function("nope", [])

    def test_recursion_limit(self):
        ev = Evaluator(max_depth=20)
        ev.evaluate(FuncDef("loop", ("x",), Call("loop", (BinOp("+", Name("x"), n(1)),))))
        with pytest.raises(RecursionLimitError, match="Maximum recursion depth exceeded in 'loop'"):
            ev.call_function("loop", [0])
        assert ev.scopes == []

    def test_depth_limit_is_exact(self):
        ev = Evaluator(max_depth=3)
        ev.evaluate(FuncDef("a", (), Call("b", ())))
        ev.evaluate(FuncDef("b", (), Call("c", ())))
        ev.evaluate(FuncDef("c", (), n(7)))
        ev.evaluate(FuncDef("d", (), Call("a", ())))
        assert ev.call_function("a", []) == 7
        with pytest.raises(RecursionLimitError):
            ev.call_function("d", [])

    def test_error_in_body_pops_scope(self):
        ev = Evaluator()
        ev.evaluate(FuncDef("inv", ("x",), BinOp("/", n(1), Name("x"))))
        with pytest.raises(DivisionByZeroError):
            ev.call_function("inv", [0])
        assert ev.scopes == []
        assert ev.call_function("inv", [4]) == 0.25
