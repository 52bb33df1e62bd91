"""Layer 4: builtins that call back into Lisp (apply, map, folds, sort)."""

import io

import pytest

from lispy.datatypes import VOID
from lispy.errors import ArityError, LispTypeError
from lispy.evaluator import evaluate
from lispy.globals import standard_env
from lispy.printer import to_string
from lispy.reader import read_all


def run_env(source):
    out = io.StringIO()
    env = standard_env(out)
    value = VOID
    for form in read_all(source):
        value = evaluate(form, env)
    return value, out.getvalue()


def ev(source):
    return run_env(source)[0]


def show(source):
    return to_string(ev(source))


def check(cases):
    return pytest.mark.parametrize("source, expected", cases)


class TestApply:
    @check([("(apply + '(1 2 3))", "6"), ("(apply + 1 2 '(3 4))", "10"), ("(apply list '())", "()"), ("(apply list 1 '(2))", "(1 2)"),
            ("(apply (lambda (a b) (- a b)) '(10 4))", "6"), ("(apply max 3 '(9 2))", "9"), ("(apply apply (list + (list 1 2)))", "3")])
    def test_apply(self, source, expected):
        assert show(source) == expected

    @pytest.mark.parametrize("source", ["(apply + 1 2)", "(apply + '(1 . 2))", "(apply +)"])
    def test_last_argument_must_be_list(self, source):
        with pytest.raises(LispTypeError, match="apply: expected proper list"):
            ev(source)

    def test_arity_errors_of_the_procedure(self):
        with pytest.raises(ArityError):
            ev("(apply (lambda (x) x) '(1 2))")

    def test_not_a_procedure(self):
        with pytest.raises(LispTypeError, match="not a procedure: 5"):
            ev("(apply 5 '(1))")


class TestMap:
    @check([("(map (lambda (x) (* x x)) '(1 2 3))", "(1 4 9)"), ("(map car '((a 1) (b 2)))", "(a b)"), ("(map + '(1 2) '(10 20))", "(11 22)"),
            ("(map + '(1 2 3) '(10 20))", "(11 22)"), ("(map list '())", "()"), ("(map list '(1 2) '(a b) '(x y))", "((1 a x) (2 b y))")])
    def test_map(self, source, expected):
        assert show(source) == expected

    def test_calls_in_order(self):
        _, out = run_env("(map (lambda (x) (display x) x) '(1 2 3))")
        assert out == "123"

    def test_result_is_new_list(self):
        assert show("(define l (list 1 2)) (eq? l (map (lambda (x) x) l))") == "#f"

    def test_improper_list(self):
        with pytest.raises(LispTypeError, match="map: expected proper list"):
            ev("(map car '(1 . 2))")

    def test_lists_checked_before_calling(self):
        with pytest.raises(LispTypeError):
            run_env("(map (lambda (x y) (display x)) '(1 2) 5)")


class TestForEach:
    def test_for_each_effects_in_order(self):
        value, out = run_env("(for-each (lambda (x) (display x) (display \",\")) '(a b c))")
        assert value is VOID and out == "a,b,c,"

    def test_several_lists(self):
        _, out = run_env("(for-each (lambda (a b) (display (+ a b))) '(1 2) '(10 20 30))")
        assert out == "1122"

    def test_empty_list(self):
        value, out = run_env("(for-each car '())")
        assert value is VOID and out == ""

    def test_improper_list(self):
        with pytest.raises(LispTypeError, match="for-each: expected proper list"):
            ev("(for-each car 5)")


class TestFilter:
    @check([("(filter odd? '(1 2 3 4 5))", "(1 3 5)"), ("(filter (lambda (x) #f) '(1 2))", "()"), ("(filter pair? '(1 (2) () (3 . 4)))", "((2) (3 . 4))"),
            ("(filter (lambda (x) 0) '(a b))", "(a b)"), ("(filter odd? '())", "()")])
    def test_filter(self, source, expected):
        assert show(source) == expected

    def test_improper_list(self):
        with pytest.raises(LispTypeError, match="filter: expected proper list"):
            ev("(filter odd? '(1 . 3))")


class TestFoldLeft:
    @check([("(fold-left + 0 '(1 2 3))", "6"), ("(fold-left cons '() '(1 2))", "((() . 1) . 2)"), ("(fold-left - 10 '(1 2 3))", "4"),
            ("(fold-left (lambda (acc a b) (+ acc (* a b))) 0 '(1 2 3) '(4 5 6))", "32"), ("(fold-left + 7 '())", "7"),
            ("(fold-left list 'z '(a b) '(1 2 3))", "((z a 1) b 2)")])
    def test_fold_left(self, source, expected):
        assert show(source) == expected

    def test_improper_list(self):
        with pytest.raises(LispTypeError, match="fold-left: expected proper list"):
            ev("(fold-left + 0 7)")


class TestFoldRight:
    @check([("(fold-right cons '() '(1 2 3))", "(1 2 3)"), ("(fold-right - 10 '(1 2 3))", "-8"), ("(fold-right list 'z '(a b))", "(a (b z))"),
            ("(fold-right (lambda (a b acc) (cons (+ a b) acc)) '() '(1 2) '(10 20 30))", "(11 22)"), ("(fold-right + 7 '())", "7")])
    def test_fold_right(self, source, expected):
        assert show(source) == expected

    def test_improper_list(self):
        with pytest.raises(LispTypeError, match="fold-right: expected proper list"):
            ev("(fold-right + 0 '(1 . 2))")


class TestReduce:
    @check([("(reduce + 0 '(1 2 3))", "6"), ("(reduce + 0 '())", "0"), ("(reduce - 0 '(1 2 3 4))", "2"), ("(reduce list 'none '(a b c))", "(c (b a))"),
            ("(reduce max 'empty '(3 9 2))", "9")])
    def test_reduce(self, source, expected):
        assert show(source) == expected

    def test_single_element_does_not_call(self):
        assert show("(reduce (lambda (a b) (car 5)) 0 '(42))") == "42"

    def test_improper_list(self):
        with pytest.raises(LispTypeError, match="reduce: expected proper list"):
            ev("(reduce + 0 'x)")


class TestSort:
    @check([("(sort '(3 1 2) <)", "(1 2 3)"), ("(sort '() <)", "()"), ("(sort '(1) >)", "(1)"), ("(sort '(5 3 9 1 7 2 8) >)", "(9 8 7 5 3 2 1)"),
            ("(sort '(\"pear\" \"apple\" \"fig\") string<?)", '("apple" "fig" "pear")'), ("(sort '(2 1 2 1) <)", "(1 1 2 2)")])
    def test_sort(self, source, expected):
        assert show(source) == expected

    def test_stable(self):
        src = "(sort '((b . 1) (a . 2) (c . 1) (d . 0) (e . 2)) (lambda (x y) (< (cdr x) (cdr y))))"
        assert show(src) == "((d . 0) (b . 1) (c . 1) (a . 2) (e . 2))"

    def test_argument_not_modified(self):
        assert show("(define l (list 3 1 2)) (sort l <) l") == "(3 1 2)"

    def test_longer_list(self):
        nums = " ".join(str((i * 37) % 101) for i in range(101))
        assert show(f"(sort '({nums}) <)") == "(" + " ".join(str(i) for i in range(101)) + ")"

    def test_improper_list(self):
        with pytest.raises(LispTypeError, match="sort: expected proper list"):
            ev("(sort 5 <)")
