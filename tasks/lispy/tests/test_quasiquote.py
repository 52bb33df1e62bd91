"""Layer 5: quasiquote, unquote and unquote-splicing."""

import io

import pytest

from lispy.datatypes import VOID
from lispy.errors import LispSyntaxError, LispTypeError
from lispy.evaluator import evaluate
from lispy.globals import standard_env
from lispy.printer import to_string
from lispy.quasiquote import quasi_expand
from lispy.reader import read, read_all


def ev(source):
    env = standard_env(io.StringIO())
    value = VOID
    for form in read_all(source):
        value = evaluate(form, env)
    return value


def show(source):
    return to_string(ev(source))


def check(cases):
    return pytest.mark.parametrize("source, expected", cases)


class TestQuasiquote:
    @check([
        ("`(1 2)", "(1 2)"),
        ("`x", "x"),
        ("`5", "5"),
        ("`()", "()"),
        ("`(1 ,(+ 1 1))", "(1 2)"),
        ("`,(+ 2 3)", "5"),
        ("`(a ,@(list 1 2) b)", "(a 1 2 b)"),
        ("`(,@'() x)", "(x)"),
        ("`(1 ,@(list 2 3))", "(1 2 3)"),
        ("`(,@(list 1) ,@(list 2))", "(1 2)"),
        ("`(1 . ,(+ 1 1))", "(1 . 2)"),
        ("`(1 . x)", "(1 . x)"),
        ("`((nested ,(* 2 3)) 7)", "((nested 6) 7)"),
        ("`(x ,'x)", "(x x)"),
        ("(let ((x 5)) `(x ,x))", "(x 5)"),
        ("`(1 ,(list 2 3))", "(1 (2 3))"),
        ("(quasiquote (a (unquote (+ 1 2))))", "(a 3)"),
    ])
    def test_templates(self, source, expected):
        assert show(source) == expected

    @check([
        ("`(1 `(2 ,(3 ,(+ 1 3))))", "(1 (quasiquote (2 (unquote (3 4)))))"),
        ("`(1 `(2 ,(+ 1 1)))", "(1 (quasiquote (2 (unquote (+ 1 1)))))"),
        ("`(1 `(2 ,,(+ 1 1)))", "(1 (quasiquote (2 (unquote 2))))"),
        ("`(a `(b ,@(c ,@(list 1 2))))", "(a (quasiquote (b (unquote-splicing (c 1 2)))))"),
        ("``,,(* 3 3)", "(quasiquote (unquote 9))"),
    ])
    def test_nested(self, source, expected):
        assert show(source) == expected

    def test_spliced_list_is_copied(self):
        assert show("(define l (list 1 2)) (define r `(,@l 3)) (set-car! r 'x) l") == "(1 2)"

    def test_unquoted_values_are_not_copied(self):
        assert show("(define l (list 1)) (eq? (car `(,l)) l)") == "#t"

    def test_each_evaluation_builds_a_new_list(self):
        assert show("(define (f) `(1 2)) (eq? (f) (f))") == "#f"

    def test_splice_of_non_list(self):
        with pytest.raises(LispTypeError, match="unquote-splicing: expected proper list"):
            ev("`(1 ,@5)")

    def test_splice_outside_list(self):
        with pytest.raises(LispSyntaxError, match="unquote-splicing: not in list context"):
            ev("`,@(list 1)")

    @pytest.mark.parametrize("source, message", [(",x", "unquote: not in quasiquote"), ("(unquote 1)", "unquote: not in quasiquote"),
                                                 (",@x", "unquote-splicing: not in quasiquote"), ("(quasiquote)", "quasiquote: bad syntax"),
                                                 ("(quasiquote 1 2)", "quasiquote: bad syntax"), ("`(a (unquote 1 2))", "unquote: bad syntax")])
    def test_syntax_errors(self, source, message):
        with pytest.raises(LispSyntaxError, match=message):
            ev(source)

    def test_quasi_expand_directly(self):
        env = standard_env(io.StringIO())
        env.define(read("n"), 4)
        assert to_string(quasi_expand(read("(a ,n ,@(list n n))"), env)) == "(a 4 4 4)"

    def test_quasi_expand_depth_argument(self):
        env = standard_env(io.StringIO())
        assert to_string(quasi_expand(read("(a ,(+ 1 2))"), env, 2)) == "(a (unquote (+ 1 2)))"

    def test_template_not_modified(self):
        env = standard_env(io.StringIO())
        template = read("(a ,(+ 1 2) ,@(list 4))")
        quasi_expand(template, env)
        assert to_string(template) == "(a (unquote (+ 1 2)) (unquote-splicing (list 4)))"
