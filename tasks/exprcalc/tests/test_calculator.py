"""The Calculator session and the calc() shortcut."""

import pytest

from exprcalc import (
    ArityError, CalcError, Calculator, DivisionByZeroError, ParseError, UnknownNameError, calc,
)


class TestExecute:
    def test_expression(self):
        assert Calculator().execute("1 + 2 * 3") == 7

    def test_precedence_and_associativity(self):
        c = Calculator()
        assert c.execute("-2 ^ 2") == -4
        assert c.execute("2 ^ 3 ^ 2") == 512
        assert c.execute("(2 ^ 3) ^ 2") == 64
        assert c.execute("10 - 4 - 3") == 3
        assert c.execute("2 ** -1") == 0.5

    def test_variables_persist(self):
        c = Calculator()
        assert c.execute("x = 4") == 4
        assert c.execute("y = x * 2") == 8
        assert c.execute("x + y") == 12
        assert c.variables["x"] == 4

    def test_initial_variables(self):
        assert Calculator({"r": 2}).execute("r ^ 2") == 4

    def test_functions(self):
        c = Calculator()
        assert c.execute("f(x) = x * 2") is None
        assert c.execute("f(21)") == 42
        assert c.execute("area(w, h) = w * h") is None
        assert c.execute("area(f(2), 3)") == 12
        assert set(c.functions) == {"f", "area"}

    def test_builtins_and_constants(self):
        c = Calculator()
        assert c.execute("max(1, sqrt(16), abs(-7))") == 7
        assert c.execute("round(pi * 100)") == 314

    def test_ans(self):
        c = Calculator()
        c.execute("2 + 3")
        assert c.execute("ans * 2") == 10
        assert c.variables["ans"] == 10

    def test_assignment_and_definition_do_not_set_ans(self):
        c = Calculator()
        c.execute("7")
        c.execute("x = 1")
        c.execute("f(a) = a")
        assert c.execute("ans") == 7

    def test_failed_statement_does_not_set_ans(self):
        c = Calculator()
        c.execute("5")
        with pytest.raises(DivisionByZeroError):
            c.execute("1 / 0")
        assert c.variables["ans"] == 5

    def test_ans_undefined_at_start(self):
        with pytest.raises(UnknownNameError):
            Calculator().execute("ans")

    def test_errors(self):
        c = Calculator()
        with pytest.raises(ParseError):
            c.execute("1 +")
        with pytest.raises(UnknownNameError, match="Unknown variable 'q'"):
            c.execute("q + 1")
        with pytest.raises(ArityError):
            c.execute("sqrt(1, 2)")
        with pytest.raises(DivisionByZeroError):
            c.execute("5 % (2 - 2)")

    def test_calc_shortcut(self):
        assert calc("x ^ 2 + 1", x=3) == 10
        assert calc("2 * pi") == calc("tau")

    def test_calc_is_fresh_each_time(self):
        calc("leak = 1")
        with pytest.raises(UnknownNameError):
            calc("leak")


class TestRun:
    SCRIPT = """
# compound interest
rate = 0.5
grow(x, n) = x * (1 + rate) ^ n

grow(100, 2)   # 225
ans - 25
"""

    def test_script(self):
        assert Calculator().run(self.SCRIPT) == [0.5, None, 225.0, 200.0]

    def test_empty_script(self):
        assert Calculator().run("\n   \n# nothing\n") == []

    def test_error_has_line_number(self):
        c = Calculator()
        with pytest.raises(UnknownNameError) as info:
            c.run("a = 1\n\nb = a + 1\nc = missing\nd = 4")
        assert info.value.line == 4
        assert c.variables == {"a": 1, "b": 2}

    def test_parse_error_line_number(self):
        with pytest.raises(ParseError) as info:
            Calculator().run("1\n2 +\n3")
        assert info.value.line == 2
        assert info.value.pos == 3

    def test_errors_outside_run_have_no_line(self):
        with pytest.raises(CalcError) as info:
            Calculator().execute("1 / 0")
        assert info.value.line is None
