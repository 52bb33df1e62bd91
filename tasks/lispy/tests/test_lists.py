"""Layer 4: list builtins."""

import io

import pytest

from lispy.errors import EvalError, LispTypeError
from lispy.datatypes import VOID
from lispy.evaluator import evaluate
from lispy.globals import standard_env
from lispy.printer import to_string
from lispy.reader import read_all


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


class TestLength:
    @check([("(length '())", "0"), ("(length '(1 2 3))", "3"), ("(length '((1 2) (3)))", "2"), ("(length (list 1 2 3 4 5))", "5")])
    def test_length(self, source, expected):
        assert show(source) == expected

    @pytest.mark.parametrize("source", ["(length '(1 2 . 3))", "(length 5)", '(length "abc")',
                                        "(let ((x (list 1 2))) (set-cdr! (cdr x) x) (length x))"])
    def test_not_a_proper_list(self, source):
        with pytest.raises(LispTypeError, match="length: expected proper list"):
            ev(source)


class TestAppend:
    @check([("(append)", "()"), ("(append '(1))", "(1)"), ("(append '(1) '(2 3))", "(1 2 3)"), ("(append '(1) '() '(2) '(3 4))", "(1 2 3 4)"),
            ("(append '(1) 2)", "(1 . 2)"), ("(append '() 5)", "5"), ("(append '(1 2) '(3 . 4))", "(1 2 3 . 4)"),
            ("(append '((a)) '((b)))", "((a) (b))")])
    def test_append(self, source, expected):
        assert show(source) == expected

    def test_last_argument_is_shared(self):
        assert show("(define tail (list 3)) (eq? (cdr (append '(1) tail)) tail)") == "#t"

    def test_earlier_arguments_are_copied(self):
        assert show("(define a (list 1 2)) (define b (append a '(3))) (set-car! b 'x) a") == "(1 2)"

    @pytest.mark.parametrize("source", ["(append '(1 . 2) '(3))", "(append 1 '(2))"])
    def test_improper_argument(self, source):
        with pytest.raises(LispTypeError, match="append: expected proper list"):
            ev(source)


class TestReverse:
    @check([("(reverse '())", "()"), ("(reverse '(1 2 3))", "(3 2 1)"), ("(reverse '((1 2) 3))", "(3 (1 2))")])
    def test_reverse(self, source, expected):
        assert show(source) == expected

    def test_argument_unchanged(self):
        assert show("(define a (list 1 2 3)) (reverse a) a") == "(1 2 3)"

    @pytest.mark.parametrize("source", ["(reverse '(1 . 2))", "(reverse 'x)"])
    def test_errors(self, source):
        with pytest.raises(LispTypeError, match="reverse: expected proper list"):
            ev(source)


class TestListTail:
    @check([("(list-tail '(1 2 3) 0)", "(1 2 3)"), ("(list-tail '(1 2 3) 1)", "(2 3)"), ("(list-tail '(1 2) 2)", "()"),
            ("(list-tail '(1 . 2) 1)", "2"), ("(define l (list 1 2 3)) (eq? (list-tail l 1) (cdr l))", "#t")])
    def test_list_tail(self, source, expected):
        assert show(source) == expected

    @pytest.mark.parametrize("source, message", [("(list-tail '(1 2) 3)", "list-tail: index 3 out of range"),
                                                 ("(list-tail '(1 2) -1)", "list-tail: index -1 out of range")])
    def test_out_of_range(self, source, message):
        with pytest.raises(EvalError, match=message):
            ev(source)

    def test_index_type(self):
        with pytest.raises(LispTypeError, match="list-tail: expected integer, got 1.0"):
            ev("(list-tail '(1 2) 1.0)")


class TestListRef:
    @check([("(list-ref '(a b c) 0)", "a"), ("(list-ref '(a b c) 2)", "c"), ("(list-ref '((1) (2)) 1)", "(2)")])
    def test_list_ref(self, source, expected):
        assert show(source) == expected

    @pytest.mark.parametrize("source, message", [("(list-ref '(a b) 2)", "list-ref: index 2 out of range"),
                                                 ("(list-ref '() 0)", "list-ref: index 0 out of range"),
                                                 ("(list-ref '(a) -1)", "list-ref: index -1 out of range"),
                                                 ("(list-ref '(a . b) 1)", "list-ref: index 1 out of range")])
    def test_out_of_range(self, source, message):
        with pytest.raises(EvalError, match=message):
            ev(source)

    def test_index_type(self):
        with pytest.raises(LispTypeError, match="list-ref: expected integer, got #t"):
            ev("(list-ref '(1 2) #t)")


class TestMember:
    @check([("(memq 'c '(a b c d))", "(c d)"), ("(memq 'z '(a b))", "#f"), ("(memv 2 '(1 2 3))", "(2 3)"), ("(memv 2.0 '(1 2 3))", "#f"),
            ("(member '(1) '((0) (1) (2)))", "((1) (2))"), ("(memv '(1) '((0) (1)))", "#f"), ('(member "b" \'("a" "b"))', '("b")'),
            ("(member 1 '())", "#f"), ("(memv 1 '(1 . 2))", "(1 . 2)")])
    def test_member(self, source, expected):
        assert show(source) == expected

    def test_result_shares_structure(self):
        assert show("(define l (list 1 2 3)) (eq? (memv 2 l) (cdr l))") == "#t"

    def test_improper_list_without_match(self):
        with pytest.raises(LispTypeError, match="memv: expected proper list"):
            ev("(memv 5 '(1 2 . 3))")


class TestAssoc:
    @check([("(assq 'b '((a 1) (b 2)))", "(b 2)"), ("(assq 'z '((a 1)))", "#f"), ("(assv 2 '((1 . one) (2 . two)))", "(2 . two)"),
            ("(assoc \"k\" '((\"j\" . 1) (\"k\" . 2)))", '("k" . 2)'), ("(assv 1.0 '((1 . x)))", "#f"),
            ("(assoc '(a) '(((a) . found)))", "((a) . found)"), ("(assq 'a '())", "#f"), ("(assq 'a '((a . 1) 5))", "(a . 1)")])
    def test_assoc(self, source, expected):
        assert show(source) == expected

    def test_returns_the_pair_itself(self):
        assert show("(define al (list (cons 'k 1))) (eq? (assq 'k al) (car al))") == "#t"

    def test_non_pair_element(self):
        with pytest.raises(LispTypeError, match="assv: expected pair, got 5"):
            ev("(assv 'x '((a . 1) 5))")

    def test_improper_alist(self):
        with pytest.raises(LispTypeError, match="assoc: expected proper list"):
            ev("(assoc 'x '((a . 1) . 7))")
