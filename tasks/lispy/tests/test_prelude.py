"""Layer 5: the prelude, written in lispy itself."""

import io

import pytest

from lispy.datatypes import VOID
from lispy.errors import LispRaise
from lispy.evaluator import evaluate
from lispy.globals import standard_env
from lispy.prelude import load_prelude
from lispy.printer import to_string
from lispy.reader import read_all


def run_env(source):
    out = io.StringIO()
    env = standard_env(out)
    load_prelude(env)
    value = VOID
    for form in read_all(source):
        value = evaluate(form, env)
    return value, out.getvalue()


def show(source):
    return to_string(run_env(source)[0])


def check(cases):
    return pytest.mark.parametrize("source, expected", cases)


class TestPrelude:
    @check([
        ("(cadr '(1 2 3))", "2"), ("(cddr '(1 2 3))", "(3)"), ("(caar '((a) b))", "a"), ("(cdar '((a b) c))", "(b)"),
        ("(caddr '(1 2 3))", "3"), ("(cdddr '(1 2 3 4))", "(4)"), ("(cadddr '(1 2 3 4))", "4"),
    ])
    def test_cxr(self, source, expected):
        assert show(source) == expected

    @check([
        ("(identity 'x)", "x"), ("((compose) 5)", "5"), ("((compose car cdr) '(1 2 3))", "2"),
        ("((compose (lambda (x) (* x 2)) +) 1 2 3)", "12"), ("((compose list list) 1)", "((1))"),
    ])
    def test_functions(self, source, expected):
        assert show(source) == expected

    @check([
        ("(last '(1 2 3))", "3"), ("(last-pair '(1 2 3))", "(3)"), ("(iota 5)", "(0 1 2 3 4)"), ("(iota 0)", "()"),
        ("(iota 3 1)", "(1 2 3)"), ("(iota 4 0 5)", "(0 5 10 15)"), ("(range 2 6)", "(2 3 4 5)"), ("(range 5 2)", "()"),
        ("(take '(a b c d) 2)", "(a b)"), ("(take '(a b) 0)", "()"), ("(drop '(a b c d) 2)", "(c d)"), ("(drop '(a) 1)", "()"),
        ("(any odd? '(2 4 5))", "#t"), ("(any odd? '(2 4))", "#f"), ("(any (lambda (x) (and (> x 1) (* x 10))) '(1 2 3))", "20"),
        ("(every odd? '(1 3))", "#t"), ("(every odd? '(1 2 3))", "#f"), ("(every odd? '())", "#t"),
        ("(every (lambda (x) (and (> x 0) x)) '(1 2 3))", "3"), ("(count even? '(1 2 3 4))", "2"), ("(remove even? '(1 2 3 4))", "(1 3)"),
        ("(delete 2 '(1 2 3 2))", "(1 3)"), ("(delete '(a) '((a) (b)))", "((b))"), ("(delete-duplicates '(1 2 1 3 2 4))", "(1 2 3 4)"),
        ("(list-index even? '(1 3 4 5))", "2"), ("(list-index even? '(1 3))", "#f"), ("(flatten '(1 (2 (3 4)) () 5))", "(1 2 3 4 5)"),
        ("(zip '(1 2 3) '(a b c))", "((1 a) (2 b) (3 c))"), ("(sum '(1 2 3 4))", "10"), ("(sum '())", "0"), ("(product '(2 3 4))", "24"),
        ("(assoc-ref '((a . 1) (b . 2)) 'b 0)", "2"), ("(assoc-ref '((a . 1)) 'z 'none)", "none"),
        ('(string-repeat "ab" 3)', '"ababab"'), ('(string-repeat "x" 0)', '""'),
    ])
    def test_list_library(self, source, expected):
        assert show(source) == expected

    def test_iota_is_tail_recursive(self):
        assert show("(length (iota 2000))") == "2000"

    def test_promise_is_memoized(self):
        value, out = run_env("(define p (delay (begin (display \"computing \") 42))) (list (force p) (force p))")
        assert to_string(value) == "(42 42)" and out == "computing "

    def test_delay_does_not_evaluate_immediately(self):
        _, out = run_env("(define p (delay (display \"now\")))")
        assert out == ""

    def test_swap_is_hygienic_for_tmp(self):
        assert show("(define tmp 1) (define y 2) (swap! tmp y) (list tmp y)") == "(2 1)"

    def test_inc_dec(self):
        assert show("(define n 10) (inc! n) (inc! n 5) (dec! n) (dec! n 2) n") == "13"

    def test_assert_passes(self):
        assert show("(assert (= 1 1))") == "#t"

    def test_assert_fails_with_expression(self):
        with pytest.raises(LispRaise) as info:
            run_env("(assert (= 1 2))")
        assert str(info.value) == "assertion failed: (= 1 2)"

    def test_while(self):
        value, out = run_env("(define i 0) (while (< i 3) (display i) (set! i (+ i 1))) i")
        assert (to_string(value), out) == ("3", "012")

    def test_while_runs_many_iterations(self):
        assert show("(define i 0) (while (< i 1500) (inc! i)) i") == "1500"

    def test_for_in(self):
        _, out = run_env("(for x in '(a b c) (display x) (display \"-\"))")
        assert out == "a-b-c-"

    def test_for_from_to(self):
        _, out = run_env("(for i from 1 to 4 (display (* i i)))")
        assert out == "14916"
