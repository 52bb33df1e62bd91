"""Layer 5: procedural macros (define-macro) and macroexpand-1."""

import io

import pytest

from lispy.datatypes import VOID, Symbol
from lispy.errors import ArityError, LispSyntaxError, UnboundVariable
from lispy.evaluator import evaluate
from lispy.globals import standard_env
from lispy.macros import Macro, macroexpand_1
from lispy.printer import to_string
from lispy.reader import read, read_all


def ev(source, env=None):
    env = env if env is not None else standard_env(io.StringIO())
    value = VOID
    for form in read_all(source):
        value = evaluate(form, env)
    return value


def show(source):
    return to_string(ev(source))


MY_IF = "(define-macro (my-if c a b) `(cond (,c ,a) (else ,b)))"
MY_INC = "(define-macro (my-inc! v) `(set! ,v (+ ,v 1)))"


class TestDefineMacro:
    def test_binds_a_macro(self):
        env = standard_env(io.StringIO())
        assert ev(MY_IF, env) is VOID
        mac = env.lookup(Symbol("my-if"))
        assert isinstance(mac, Macro) and mac.name == "my-if"
        assert [p.name for p in mac.params] == ["c", "a", "b"] and mac.rest is None and mac.env is env

    def test_prints_as_macro(self):
        assert show(MY_IF + " my-if") == "#<macro my-if>"

    def test_rest_parameter(self):
        env = standard_env(io.StringIO())
        ev("(define-macro (my-list first . xs) xs)", env)
        mac = env.lookup(Symbol("my-list"))
        assert [p.name for p in mac.params] == ["first"] and mac.rest is Symbol("xs")

    def test_body_kept_unevaluated(self):
        env = standard_env(io.StringIO())
        ev("(define-macro (m x) (undefined-helper x) `(list ,x))", env)
        assert [to_string(f) for f in env.lookup(Symbol("m")).body] == ["(undefined-helper x)", "(quasiquote (list (unquote x)))"]

    def test_macro_in_local_scope(self):
        env = standard_env(io.StringIO())
        assert to_string(ev("(define (f) (define-macro (twice e) `(* 2 ,e)) twice) (f)", env)) == "#<macro twice>"
        with pytest.raises(UnboundVariable):
            env.lookup(Symbol("twice"))

    @pytest.mark.parametrize("source", ["(define-macro)", "(define-macro m 1)", "(define-macro (m x))", "(define-macro (1 x) x)"])
    def test_bad_syntax(self, source):
        with pytest.raises(LispSyntaxError, match="define-macro: bad syntax"):
            ev(source)


class TestMacroExpand:
    def test_rest_parameter(self):
        assert show("(define-macro (my-list . xs) `(list ,@xs)) (my-list 1 (+ 1 1) 3)") == "(1 2 3)"

    def test_local_macro(self):
        assert ev("(define (f) (define-macro (twice e) `(* 2 ,e)) (twice 21)) (f)") == 42

    def test_use_is_replaced_by_expansion(self):
        assert ev(MY_IF + " (my-if #t 1 (car 5))") == 1

    def test_operands_are_not_evaluated(self):
        assert show("(define-macro (quote-it x) `',x) (quote-it (a b c))") == "(a b c)"

    def test_expansion_runs_in_use_site_environment(self):
        assert ev(MY_INC + " (define (f) (define n 41) (my-inc! n) n) (f)") == 42

    def test_body_forms_run_at_expansion_time(self):
        env = standard_env(io.StringIO())
        ev("(define count 0) (define-macro (m) (set! count (+ count 1)) count)", env)
        assert ev("(list (m) (m))", env) is not None
        assert ev("count", env) == 2

    def test_recursive_macro(self):
        src = """
        (define-macro (my-and . xs)
          (cond ((null? xs) #t)
                ((null? (cdr xs)) (car xs))
                (else `(if ,(car xs) (my-and ,@(cdr xs)) #f))))
        (list (my-and) (my-and 1 2 3) (my-and 1 #f (car 5)))
        """
        assert show(src) == "(#t 3 #f)"

    def test_gensym_avoids_capture(self):
        src = """
        (define-macro (my-swap! a b)
          (let ((tmp (gensym)))
            `(let ((,tmp ,a)) (set! ,a ,b) (set! ,b ,tmp))))
        (define tmp 1) (define other 2)
        (my-swap! tmp other)
        (list tmp other)
        """
        assert show(src) == "(2 1)"

    def test_arity_error_names_macro(self):
        with pytest.raises(ArityError, match="my-if: expected 3 arguments, got 2"):
            ev(MY_IF + " (my-if #t 1)")

    def test_expand_method_directly(self):
        env = standard_env(io.StringIO())
        ev(MY_INC, env)
        mac = env.lookup(Symbol("my-inc!"))
        assert to_string(mac.expand(read("(my-inc! counter)"), env)) == "(set! counter (+ counter 1))"

    def test_expand_uses_definition_environment(self):
        env = standard_env(io.StringIO())
        ev("(define (helper x) `(quote ,x)) (define-macro (m x) (helper x))", env)
        assert show_env("(m (1 2))", env) == "(1 2)"


def show_env(source, env):
    return to_string(ev(source, env))


class TestMacroexpand1:
    def test_expands_macro_use(self):
        assert show(MY_INC + " (macroexpand-1 '(my-inc! x))") == "(set! x (+ x 1))"

    def test_expands_only_once(self):
        src = MY_INC + " (define-macro (inc-twice! v) `(begin (my-inc! ,v) (my-inc! ,v))) (macroexpand-1 '(inc-twice! y))"
        assert show(src) == "(begin (my-inc! y) (my-inc! y))"

    @pytest.mark.parametrize("form", ["'(+ 1 2)", "'(undefined-op 1)", "5", "'sym", "'(if 1 2 3)", "'((my-inc! x) 1)"])
    def test_non_macro_forms_unchanged(self, form):
        assert show(MY_INC + f" (equal? (macroexpand-1 {form}) {form})") == "#t"

    def test_direct_call(self):
        env = standard_env(io.StringIO())
        ev(MY_IF, env)
        form = read("(my-if a b c)")
        assert to_string(macroexpand_1(form, env)) == "(cond (a b) (else c))"
        plain = read("(f 1)")
        assert macroexpand_1(plain, env) is plain
