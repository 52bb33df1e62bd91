"""Layer 3: the evaluator core: evaluate, apply_procedure and proper tail calls.

These tests use a tiny environment of Python callables (not the real builtins)
and hand-made procedures, so they only need the reader, printer, environments
and the evaluator itself.
"""

import math

import pytest

from lispy.datatypes import NIL, VOID, Pair, Symbol
from lispy.environment import Environment
from lispy.errors import ArityError, LispSyntaxError, LispTypeError, UnboundVariable
from lispy.evaluator import SPECIAL_FORMS, TailCall, apply_procedure, evaluate
from lispy.printer import to_string
from lispy.procedures import Builtin, MacroBase, Procedure
from lispy.reader import read_all

S = Symbol


def L(*items, tail=NIL):
    result = tail
    for item in reversed(items):
        result = Pair(item, result)
    return result


def base_env():
    env = Environment()
    prims = {
        "+": lambda *a: sum(a),
        "-": lambda a, *b: a - sum(b) if b else -a,
        "*": lambda *a: math.prod(a),
        "=": lambda a, b: a == b,
        "<": lambda a, b: a < b,
        "cons": Pair,
        "car": lambda p: p.car,
        "cdr": lambda p: p.cdr,
        "list": lambda *a: L(*a),
    }
    for name, fn in prims.items():
        env.vars[S(name)] = fn
    return env


def ev(source, env=None):
    env = env if env is not None else base_env()
    value = VOID
    for form in read_all(source):
        value = evaluate(form, env)
    return value


def proc(env, name, params, body, rest=None):
    """Bind `name` in env to a hand-made Procedure with the given body source."""
    p = Procedure([S(n) for n in params], S(rest) if rest else None, read_all(body), env, name)
    env.vars[S(name)] = p
    return p


def _test_if(args, env):
    test, then, alt = args.car, args.cdr.car, args.cdr.cdr.car
    return TailCall(then if evaluate(test, env) is not False else alt, env)


@pytest.fixture
def test_if(monkeypatch):
    """A test-only special form (test-if c a b) that returns TailCalls."""
    monkeypatch.setitem(SPECIAL_FORMS, S("test-if"), _test_if)


class Doubler(MacroBase):
    """(double e) expands to (+ e e); records the forms it was given."""

    name = "double"

    def __init__(self):
        self.seen = []

    def expand(self, form, env):
        self.seen.append((form, env))
        return L(S("+"), form.cdr.car, form.cdr.car)


class TestEvaluate:
    @pytest.mark.parametrize("source, value", [("42", 42), ("-1.5", -1.5), ('"str"', "str"), ("#t", True), ("#f", False)])
    def test_self_evaluating(self, source, value):
        assert ev(source) == value

    def test_other_python_values_evaluate_to_themselves(self):
        env = base_env()
        assert evaluate(VOID, env) is VOID
        obj = object()
        assert evaluate(obj, env) is obj

    def test_symbol_lookup(self):
        env = base_env()
        env.vars[S("x")] = 99
        assert ev("x", env) == 99

    def test_unbound_symbol(self):
        with pytest.raises(UnboundVariable, match="unbound variable: nope"):
            ev("nope")

    def test_empty_combination(self):
        with pytest.raises(LispSyntaxError, match="empty combination"):
            evaluate(NIL, base_env())

    @pytest.mark.parametrize(
        "source, value",
        [("(+ 1 2)", 3), ("(+)", 0), ("(+ (* 2 3) (- 10 4))", 12), ("(car (cdr (list 1 2 3)))", 2), ("((car (list + *)) 2 5)", 7)],
    )
    def test_calls(self, source, value):
        assert ev(source) == value

    def test_operands_evaluated_left_to_right(self):
        env = base_env()
        seen = []
        env.vars[S("note")] = lambda x: seen.append(x) or x
        assert ev("(+ (note 1) (note 2) (note 3))", env) == 6
        assert seen == [1, 2, 3]

    @pytest.mark.parametrize("source, message", [("(5 1)", "not a procedure: 5"), ('("f")', 'not a procedure: "f"'),
                                                  ("(#t)", "not a procedure: #t")])
    def test_not_a_procedure(self, source, message):
        with pytest.raises(LispTypeError) as info:
            ev(source)
        assert str(info.value) == message

    def test_operands_evaluated_before_not_a_procedure_error(self):
        env = base_env()
        seen = []
        env.vars[S("note")] = lambda x: seen.append(x)
        with pytest.raises(LispTypeError):
            ev("(1 (note 5))", env)
        assert seen == [5]

    def test_improper_argument_list(self):
        with pytest.raises(LispSyntaxError, match="improper argument list"):
            ev("(+ 1 . 2)")

    def test_builtin_objects_are_called(self):
        env = base_env()
        env.vars[S("inc")] = Builtin("inc", lambda n: n + 1, 1, 1)
        assert ev("(inc 41)", env) == 42
        with pytest.raises(ArityError):
            ev("(inc 1 2)", env)

    def test_closure_call(self):
        env = base_env()
        proc(env, "sq", ["n"], "(* n n)")
        assert ev("(sq 12)", env) == 144

    def test_closure_uses_its_defining_environment(self):
        env = base_env()
        inner = Environment({S("y"): 10}, env)
        proc(inner, "add-y", ["x"], "(+ x y)")
        env.vars[S("add-y")] = inner.vars[S("add-y")]
        env.vars[S("y")] = 1000
        assert ev("(add-y 5)", env) == 15

    def test_closure_body_forms_in_order_last_value_returned(self):
        env = base_env()
        seen = []
        env.vars[S("note")] = lambda x: seen.append(x)
        proc(env, "f", ["a"], "(note a) (note (+ a 1)) (* a 10)")
        assert ev("(f 3)", env) == 30
        assert seen == [3, 4]

    def test_closure_rest_parameter(self):
        env = base_env()
        proc(env, "f", ["a"], "rest", rest="rest")
        assert to_string(ev("(f 1 2 3)", env)) == "(2 3)"
        assert ev("(f 1)", env) is NIL

    def test_closure_arity_error_names_procedure(self):
        env = base_env()
        proc(env, "pair-up", ["a", "b"], "(cons a b)")
        with pytest.raises(ArityError, match="pair-up: expected 2 arguments, got 3"):
            ev("(pair-up 1 2 3)", env)

    def test_parameters_do_not_leak_into_caller(self):
        env = base_env()
        proc(env, "f", ["secret"], "secret")
        ev("(f 1)", env)
        with pytest.raises(UnboundVariable):
            ev("secret", env)

    def test_special_form_gets_unevaluated_operands(self, monkeypatch):
        seen = []
        monkeypatch.setitem(SPECIAL_FORMS, S("grab"), lambda args, env: seen.append(args) or "done")
        assert ev("(grab undefined (also undefined))") == "done"
        assert to_string(seen[0]) == "(undefined (also undefined))"

    def test_special_forms_win_over_variables(self, monkeypatch):
        monkeypatch.setitem(SPECIAL_FORMS, S("grab"), lambda args, env: "special")
        env = base_env()
        env.vars[S("grab")] = lambda *a: "procedure"
        assert ev("(grab 1)", env) == "special"

    def test_tail_call_result_is_continued(self, monkeypatch):
        other = Environment({S("v"): "from other env"})
        monkeypatch.setitem(SPECIAL_FORMS, S("jump"), lambda args, env: TailCall(S("v"), other))
        assert ev("(jump)") == "from other env"

    def test_macro_is_expanded_not_called(self):
        env = base_env()
        mac = Doubler()
        env.vars[S("double")] = mac
        assert ev("(double (* 3 7))", env) == 42
        form, used_env = mac.seen[0]
        assert to_string(form) == "(double (* 3 7))" and used_env is env

    def test_macro_operands_are_not_evaluated(self):
        class Ignore(MacroBase):
            name = "ignore"

            def expand(self, form, env):
                return 7

        env = base_env()
        env.vars[S("ignore")] = Ignore()
        assert ev("(ignore (car 5) undefined-variable)", env) == 7

    def test_expansion_can_be_another_macro_use(self):
        env = base_env()
        env.vars[S("double")] = Doubler()
        assert ev("(double (double 5))", env) == 20


class TestTailCalls:
    def test_deep_self_tail_recursion(self, test_if):
        env = base_env()
        proc(env, "count", ["n", "acc"], "(test-if (= n 0) acc (count (- n 1) (+ acc 1)))")
        assert ev("(count 2000 0)", env) == 2000

    def test_deep_mutual_tail_recursion(self, test_if):
        env = base_env()
        proc(env, "ev?", ["n"], "(test-if (= n 0) #t (od? (- n 1)))")
        proc(env, "od?", ["n"], "(test-if (= n 0) #f (ev? (- n 1)))")
        assert ev("(ev? 2001)", env) is False
        assert ev("(od? 2001)", env) is True

    def test_last_body_form_is_a_tail_call(self):
        env = base_env()
        seen = []
        env.vars[S("note")] = lambda x: seen.append(x)
        proc(env, "a", ["n"], "(note n) (b n)")
        proc(env, "b", ["n"], "(c (+ n 1))")
        proc(env, "c", ["n"], "(* n 2)")
        assert ev("(a 1)", env) == 4 and seen == [1]

    def test_non_tail_recursion_still_works(self, test_if):
        env = base_env()
        proc(env, "sum-to", ["n"], "(test-if (= n 0) 0 (+ n (sum-to (- n 1))))")
        assert ev("(sum-to 150)", env) == 11325

    def test_tail_call_inside_special_form_chain(self, test_if):
        env = base_env()
        proc(env, "loop", ["n"], "(test-if (< n 1) (quote-free-done) (test-if #t (loop (- n 1)) 0))")
        env.vars[S("quote-free-done")] = lambda: "done"
        assert ev("(loop 2000)", env) == "done"


class TestApplyProcedure:
    def test_python_callable(self):
        assert apply_procedure(lambda a, b: a - b, [10, 3]) == 7

    def test_builtin(self):
        assert apply_procedure(Builtin("neg", lambda x: -x, 1, 1), [5]) == -5

    def test_builtin_arity_checked(self):
        with pytest.raises(ArityError):
            apply_procedure(Builtin("neg", lambda x: -x, 1, 1), [])

    def test_closure(self):
        env = base_env()
        p = proc(env, "f", ["x", "y"], "(* x y)")
        assert apply_procedure(p, [6, 7]) == 42

    def test_closure_evaluates_whole_body(self):
        env = base_env()
        seen = []
        env.vars[S("note")] = lambda x: seen.append(x)
        p = proc(env, "f", ["x"], "(note x) (note (* x 2)) x")
        assert apply_procedure(p, [4]) == 4 and seen == [4, 8]

    def test_closure_rest_parameter(self):
        p = proc(base_env(), "f", [], "args", rest="args")
        assert to_string(apply_procedure(p, [1, "two"])) == '(1 "two")'

    def test_closure_arity_error(self):
        p = proc(base_env(), "one", ["x"], "x")
        with pytest.raises(ArityError, match="one: expected 1 argument, got 2"):
            apply_procedure(p, [1, 2])

    def test_args_list_not_modified(self):
        args = [1, 2, 3]
        apply_procedure(proc(base_env(), "f", ["a"], "a", rest="r"), args)
        assert args == [1, 2, 3]

    @pytest.mark.parametrize("value, text", [(5, "5"), ("s", '"s"'), (NIL, "()")])
    def test_not_a_procedure(self, value, text):
        with pytest.raises(LispTypeError, match=f"not a procedure: {text}"):
            apply_procedure(value, [])

    def test_macro_is_not_a_procedure(self):
        with pytest.raises(LispTypeError, match="not a procedure"):
            apply_procedure(Doubler(), [1])
