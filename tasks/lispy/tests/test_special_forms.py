"""Layer 3: the core special forms.

A small environment of Python callables stands in for the real builtins, so
these tests only need the reader, printer, environments and the evaluator.
"""

import math

import pytest

from lispy.datatypes import NIL, VOID, Pair, Symbol
from lispy.environment import Environment
from lispy.errors import EvalError, LispSyntaxError, UnboundVariable
from lispy.evaluator import evaluate
from lispy.printer import to_string
from lispy.procedures import Procedure
from lispy.reader import read_all

S = Symbol
DEEP = 1200  # a non-tail-call evaluator needs 2+ Python frames per iteration: far past the default limit of 1000


def L(*items):
    result = NIL
    for item in reversed(items):
        result = Pair(item, result)
    return result


def base_env():
    env = Environment()
    log = []
    prims = {
        "+": lambda *a: sum(a),
        "-": lambda a, *b: a - sum(b) if b else -a,
        "*": lambda *a: math.prod(a),
        "=": lambda a, b: a == b,
        "<": lambda a, b: a < b,
        ">": lambda a, b: a > b,
        "cons": Pair,
        "car": lambda p: p.car,
        "cdr": lambda p: p.cdr,
        "list": lambda *a: L(*a),
        "null?": lambda x: x is NIL,
        "eqv?": lambda a, b: a is b or (type(a) is type(b) and a == b),
        "note": lambda x: log.append(x) or x,
        "log": lambda: L(*log),
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


def show(source):
    return to_string(ev(source))


def check(cases):
    return pytest.mark.parametrize("source, expected", cases)


class TestQuote:
    @check([("'x", "x"), ("'(1 2 3)", "(1 2 3)"), ("(quote (a . b))", "(a . b)"), ("'()", "()"), ("''a", "(quote a)"),
            ("'if", "if"), ("'(+ 1 2)", "(+ 1 2)"), ("'\"s\"", '"s"'), ("'#t", "#t")])
    def test_quote(self, source, expected):
        assert show(source) == expected

    def test_returns_the_datum_itself(self):
        (form,) = read_all("'(a b)")
        assert evaluate(form, base_env()) is form.cdr.car

    def test_quoted_symbol_is_interned(self):
        assert ev("'hello") is S("hello")

    @pytest.mark.parametrize("source", ["(quote)", "(quote a b)", "(quote . a)"])
    def test_bad_syntax(self, source):
        with pytest.raises(LispSyntaxError, match="quote: bad syntax"):
            ev(source)


class TestIf:
    @check([("(if #t 1 2)", "1"), ("(if #f 1 2)", "2"), ("(if 0 'yes 'no)", "yes"), ("(if '() 'yes 'no)", "yes"),
            ('(if "" 1 2)', "1"), ("(if (< 1 2) (+ 1 1) 0)", "2"), ("(if #f 1)", "#<void>"), ("(if #t 1)", "1")])
    def test_if(self, source, expected):
        assert show(source) == expected

    def test_only_chosen_branch_is_evaluated(self):
        assert ev("(if #t 1 (undefined-procedure))") == 1
        assert ev("(if #f (undefined-procedure) 2)") == 2

    def test_test_evaluated_once(self):
        assert show("(if (note 1) (note 2) (note 3)) (log)") == "(1 2)"

    @pytest.mark.parametrize("source", ["(if)", "(if #t)", "(if 1 2 3 4)"])
    def test_bad_syntax(self, source):
        with pytest.raises(LispSyntaxError, match="if: bad syntax"):
            ev(source)

    def test_branches_are_tail_positions(self):
        src = "(define (down n) (if (= n 0) 'done (down (- n 1)))) (down %d)" % DEEP
        assert show(src) == "done"


class TestDefine:
    def test_define_variable(self):
        assert ev("(define x (+ 2 3)) x") == 5

    def test_define_returns_void(self):
        assert ev("(define x 1)") is VOID

    def test_procedure_shorthand(self):
        assert ev("(define (sq n) (* n n)) (sq 9)") == 81

    def test_procedure_shorthand_is_named(self):
        assert show("(define (sq n) (* n n)) sq") == "#<procedure sq>"

    def test_variadic_shorthand(self):
        assert show("(define (f . args) args) (f 1 2 3)") == "(1 2 3)"

    def test_rest_shorthand(self):
        assert show("(define (f a b . more) (list a b more)) (f 1 2 3 4)") == "(1 2 (3 4))"

    def test_multiple_body_forms(self):
        assert show("(define (f x) (note x) (* x 2)) (list (f 5) (log))") == "(10 (5))"

    def test_redefinition_replaces(self):
        assert ev("(define x 1) (define x 2) x") == 2

    def test_internal_define_is_local(self):
        env = base_env()
        assert ev("(define (f) (define inner 41) (+ inner 1)) (f)", env) == 42
        with pytest.raises(UnboundVariable):
            ev("inner", env)

    def test_internal_define_shadows_global(self):
        assert ev("(define x 'global) (define (f) (define x 'local) x) (f) x") is S("global")

    def test_lambda_value_gets_the_name(self):
        assert show("(define g (lambda (x) x)) g") == "#<procedure g>"

    def test_existing_name_is_kept(self):
        assert show("(define (g x) x) (define h g) h") == "#<procedure g>"

    def test_closure_sees_later_global_definitions(self):
        assert ev("(define (f) (helper)) (define (helper) 7) (f)") == 7

    @pytest.mark.parametrize("source", ["(define)", "(define 5 1)", "(define x 1 2)", "(define x)", "(define (f))",
                                        '(define ("f") 1)'])
    def test_bad_syntax(self, source):
        with pytest.raises(LispSyntaxError, match="define: bad syntax"):
            ev(source)

    def test_bad_parameter_list(self):
        with pytest.raises(LispSyntaxError, match="bad parameter list"):
            ev("(define (f 1) 1)")


class TestSet:
    def test_set_global(self):
        assert ev("(define x 1) (set! x (+ x 10)) x") == 11

    def test_returns_void(self):
        assert ev("(define x 1) (set! x 2)") is VOID

    def test_unbound(self):
        with pytest.raises(UnboundVariable, match="unbound variable: y"):
            ev("(set! y 1)")

    def test_set_captured_variable(self):
        src = """
        (define (make-counter)
          (define n 0)
          (lambda () (set! n (+ n 1)) n))
        (define c1 (make-counter))
        (define c2 (make-counter))
        (c1) (c1) (c2)
        (list (c1) (c2))
        """
        assert show(src) == "(3 2)"

    def test_set_from_inner_scope_changes_outer(self):
        assert ev("(define total 0) (define (add! k) (set! total (+ total k))) (add! 5) (add! 6) total") == 11

    def test_set_parameter_does_not_change_global(self):
        assert ev("(define x 1) (define (f x) (set! x 99) x) (f 5) x") == 1

    @pytest.mark.parametrize("source", ["(set! 1 2)", "(set! x)", "(set! x 1 2)", "(set!)"])
    def test_bad_syntax(self, source):
        with pytest.raises(LispSyntaxError, match="set!: bad syntax"):
            ev("(define x 0) " + source)


class TestLambda:
    @check([("((lambda (x) (* x x)) 5)", "25"), ("((lambda () 42))", "42"), ("((lambda args args) 1 2)", "(1 2)"),
            ("((lambda args args))", "()"), ("((lambda (a . r) (list a r)) 1 2 3)", "(1 (2 3))"),
            ("(((lambda (x) (lambda (y) (+ x y))) 1) 2)", "3"), ("((lambda (x) (note x) (+ x 1)) 1)", "2"),
            ("(lambda (x) x)", "#<procedure>"), ("((lambda (f) (f (f 2))) (lambda (n) (* n n)))", "16")])
    def test_lambda(self, source, expected):
        assert show(source) == expected

    def test_returns_procedure_object(self):
        env = base_env()
        p = ev("(lambda (a b . c) a b)", env)
        assert isinstance(p, Procedure)
        assert (p.params, p.rest, p.env, p.name) == ([S("a"), S("b")], S("c"), env, None)
        assert len(p.body) == 2

    def test_closure_captures_environment_not_value_at_call_site(self):
        src = "(((lambda (x) (lambda () x)) 'captured))"
        assert show(src) == "captured"

    def test_arity_error(self):
        with pytest.raises(EvalError, match="expected 1 argument, got 2"):
            ev("((lambda (x) x) 1 2)")

    @pytest.mark.parametrize("source", ["(lambda)", "(lambda (x))"])
    def test_bad_syntax(self, source):
        with pytest.raises(LispSyntaxError, match="lambda: bad syntax"):
            ev(source)

    @pytest.mark.parametrize("source, message", [("(lambda (1) 1)", "bad parameter list"),
                                                 ("(lambda (x x) 1)", "duplicate parameter: x")])
    def test_bad_parameters(self, source, message):
        with pytest.raises(LispSyntaxError, match=message):
            ev(source)


class TestBegin:
    @check([("(begin 1 2 3)", "3"), ("(begin)", "#<void>"), ("(begin (note 1) (note 2) (log))", "(1 2)"),
            ("(begin 'only)", "only")])
    def test_begin(self, source, expected):
        assert show(source) == expected

    def test_definitions_go_to_current_frame(self):
        assert ev("(begin (define a 1) (define b 2)) (+ a b)") == 3

    def test_last_form_is_tail_position(self):
        src = "(define (down n) (if (= n 0) 'ok (begin (note n) (down (- n 1))))) (down %d)" % DEEP
        assert show(src) == "ok"


class TestLet:
    @check([("(let ((x 1) (y 2)) (+ x y))", "3"), ("(let () 5)", "5"), ("(let ((x 1)) (note x) (+ x 1))", "2"),
            ("(define x 1) (let ((x 2) (y x)) y)", "1"), ("(define x 1) (let ((x 2)) x) x", "1"),
            ("(let ((x 1)) (let ((x 2)) x))", "2"), ("((let ((k 10)) (lambda (n) (* k n))) 3)", "30")])
    def test_let(self, source, expected):
        assert show(source) == expected

    def test_named_let(self):
        src = "(let loop ((i 1) (acc 0)) (if (> i 100) acc (loop (+ i 1) (+ acc i))))"
        assert ev(src) == 5050

    def test_named_let_builds_list(self):
        src = "(let collect ((n 3) (acc '())) (if (= n 0) acc (collect (- n 1) (cons n acc))))"
        assert show(src) == "(1 2 3)"

    def test_named_let_is_tail_recursive(self):
        assert ev("(let loop ((n %d)) (if (= n 0) 'done (loop (- n 1))))" % DEEP) is S("done")

    def test_named_let_procedure_is_named_and_local(self):
        env = base_env()
        assert show("(let me ((n 0)) me)") == "#<procedure me>"
        ev("(let loop ((n 0)) n)", env)
        with pytest.raises(UnboundVariable):
            ev("loop", env)

    def test_named_let_inits_evaluated_outside(self):
        assert ev("(define n 5) (let loop ((n (+ n 1))) n)") == 6

    @pytest.mark.parametrize("source, message", [("(let ((x)) x)", "let: bad binding"), ("(let ((1 2)) 1)", "let: bad binding"),
                                                 ("(let (x) x)", "let: bad binding"),
                                                 ("(let ((x 1) (x 2)) x)", "let: duplicate variable x"),
                                                 ("(let ((x 1)))", "let: bad syntax"), ("(let)", "let: bad syntax"),
                                                 ("(let loop ((i 0)))", "let: bad syntax")])
    def test_errors(self, source, message):
        with pytest.raises(LispSyntaxError, match=message):
            ev(source)


class TestLetStar:
    @check([("(let* ((x 1) (y (+ x 1))) (* x y))", "2"), ("(let* ((x 1) (x (+ x 1))) x)", "2"), ("(let* () 7)", "7"),
            ("(let* ((x 1) (f (lambda () x)) (x 2)) (f))", "1"), ("(define x 10) (let* ((y x) (x 1)) (list x y))", "(1 10)"),
            ("(let* ((a 1) (b (+ a 1)) (c (* b 3))) (list a b c))", "(1 2 6)")])
    def test_let_star(self, source, expected):
        assert show(source) == expected

    def test_body_definitions_do_not_leak(self):
        env = base_env()
        assert ev("(let* () (define z 1) z)", env) == 1
        with pytest.raises(UnboundVariable):
            ev("z", env)

    def test_body_is_tail_position(self):
        src = "(define (down n) (let* ((m (- n 1))) (if (< m 0) 'ok (down m)))) (down %d)" % DEEP
        assert show(src) == "ok"

    @pytest.mark.parametrize("source, message", [("(let* ((x)) x)", "let\\*: bad binding"), ("(let* ((x 1)))", "let\\*: bad syntax")])
    def test_errors(self, source, message):
        with pytest.raises(LispSyntaxError, match=message):
            ev(source)


class TestLetrec:
    def test_mutual_recursion(self):
        src = """
        (letrec ((ev? (lambda (n) (if (= n 0) #t (od? (- n 1)))))
                 (od? (lambda (n) (if (= n 0) #f (ev? (- n 1))))))
          (list (ev? 10) (od? 7) (ev? %d)))
        """ % (DEEP + 1)
        assert show(src) == "(#t #t #f)"

    def test_sequential_inits(self):
        assert show("(letrec ((a 1) (b (+ a 1))) (list a b))") == "(1 2)"

    def test_use_before_initialization(self):
        with pytest.raises(EvalError, match="variable used before initialization: b"):
            ev("(letrec ((a b) (b 1)) a)")

    def test_outer_binding_is_hidden_during_init(self):
        with pytest.raises(EvalError, match="before initialization"):
            ev("(define b 5) (letrec ((a b) (b 1)) a)")

    def test_letrec_star_alias(self):
        assert ev("(letrec* ((x 2) (y (* x x))) y)") == 4

    def test_recursive_lambda(self):
        src = "(letrec ((fact (lambda (n) (if (= n 0) 1 (* n (fact (- n 1))))))) (fact 20))"
        assert ev(src) == 2432902008176640000

    def test_bindings_are_local(self):
        env = base_env()
        ev("(letrec ((hidden 1)) hidden)", env)
        with pytest.raises(UnboundVariable):
            ev("hidden", env)

    @pytest.mark.parametrize("source, message", [("(letrec ((x 1) (x 2)) x)", "letrec: duplicate variable x"),
                                                 ("(letrec ((x 1)))", "letrec: bad syntax"),
                                                 ("(letrec ((x)) 1)", "letrec: bad binding")])
    def test_errors(self, source, message):
        with pytest.raises(LispSyntaxError, match=message):
            ev(source)


class TestCond:
    @check([("(cond (#f 1) (#t 2) (#t 3))", "2"), ("(cond ((< 2 1) 'a) (else 'b))", "b"), ("(cond (#f 1))", "#<void>"),
            ("(cond)", "#<void>"), ("(cond ((+ 1 2)))", "3"), ("(cond (#f 1) (42))", "42"),
            ("(cond ((car (list 5 6)) => (lambda (v) (* v 10))) (else 0))", "50"),
            ("(cond (#t (note 1) (note 2)))", "2"), ("(cond (#t 1) (else undefined))", "1"),
            ("(cond (#f (undefined)) ((note 'x) => list) (else 1))", "(x)")])
    def test_cond(self, source, expected):
        assert show(source) == expected

    def test_arrow_receiver_gets_test_value(self):
        assert show("(cond ((cons 1 2) => cdr))") == "2"

    def test_later_tests_not_evaluated(self):
        assert show("(cond ((note 1) 'a) ((note 2) 'b)) (log)") == "(1)"

    def test_false_tests_all_evaluated_in_order(self):
        assert show("(cond ((note #f) 1) ((note #f) 2) (else (log)))") == "(#f #f)"

    def test_clause_body_is_tail_position(self):
        src = "(define (down n) (cond ((= n 0) 'ok) (else (down (- n 1))))) (down %d)" % DEEP
        assert show(src) == "ok"

    @pytest.mark.parametrize("source, message", [("(cond (else 1) (#t 2))", "else must be the last clause"),
                                                 ("(cond 5)", "cond: bad syntax"), ("(cond ())", "cond: bad syntax"),
                                                 ("(cond (else))", "cond: bad syntax"),
                                                 ("(cond (#t => car cdr))", "cond: bad syntax")])
    def test_errors(self, source, message):
        with pytest.raises(LispSyntaxError, match=message):
            ev(source)


class TestAnd:
    @check([("(and)", "#t"), ("(and 1 2 3)", "3"), ("(and 1 #f 3)", "#f"), ("(and #f (undefined))", "#f"),
            ("(and '() 0)", "0"), ("(and (note 1) (note #f) (note 3)) (log)", "(1 #f)")])
    def test_and(self, source, expected):
        assert show(source) == expected

    def test_last_expression_is_tail_position(self):
        src = "(define (down n) (and #t (if (= n 0) 'ok (down (- n 1))))) (down %d)" % DEEP
        assert show(src) == "ok"


class TestOr:
    @check([("(or)", "#f"), ("(or #f 2 3)", "2"), ("(or #f #f)", "#f"), ("(or 1 (undefined))", "1"),
            ("(or #f '())", "()"), ("(or (note #f) (note 2) (note 3)) (log)", "(#f 2)")])
    def test_or(self, source, expected):
        assert show(source) == expected

    def test_last_expression_is_tail_position(self):
        src = "(define (down n) (or #f (if (= n 0) 'ok (down (- n 1))))) (down %d)" % DEEP
        assert show(src) == "ok"


class TestWhen:
    @check([("(when #t 1 2)", "2"), ("(when #f 1)", "#<void>"), ("(when #f (undefined))", "#<void>"), ("(when 0)", "#<void>"),
            ("(when (< 1 2) (note 'a) (note 'b)) (log)", "(a b)")])
    def test_when(self, source, expected):
        assert show(source) == expected

    def test_body_is_tail_position(self):
        src = "(define (down n) (when #t (if (= n 0) 'ok (down (- n 1))))) (down %d)" % DEEP
        assert show(src) == "ok"

    def test_missing_test(self):
        with pytest.raises(LispSyntaxError, match="when: bad syntax"):
            ev("(when)")


class TestUnless:
    @check([("(unless #f 1 2)", "2"), ("(unless #t 1)", "#<void>"), ("(unless 0 (undefined))", "#<void>"),
            ("(unless (> 1 2) (note 'x) (log))", "(x)")])
    def test_unless(self, source, expected):
        assert show(source) == expected

    def test_body_is_tail_position(self):
        src = "(define (down n) (unless #f (if (= n 0) 'ok (down (- n 1))))) (down %d)" % DEEP
        assert show(src) == "ok"

    def test_missing_test(self):
        with pytest.raises(LispSyntaxError, match="unless: bad syntax"):
            ev("(unless)")


class TestCase:
    @check([("(case 3 ((1 2) 'low) ((3 4) 'mid) (else 'high))", "mid"), ("(case 9 ((1) 'one) (else 'other))", "other"),
            ("(case 9 ((1) 'one))", "#<void>"), ("(case 'b ((a) 1) ((b c) 2))", "2"), ("(case 1 ((1.0) 'float) ((1) 'int))", "int"),
            ("(case #t ((1) 'one) ((#t) 'true))", "true"), ("(case (+ 1 1) ((2) (note 'a) (note 'b)) (else 0))", "b"),
            ("(case 1 (() 'never) (else 'e))", "e"), ("(case '() ((()) 'nil) (else 'no))", "nil")])
    def test_case(self, source, expected):
        assert show(source) == expected

    def test_key_evaluated_once(self):
        assert show("(case (note 2) ((1) 'a) ((2) 'b)) (log)") == "(2)"

    def test_body_is_tail_position(self):
        src = "(define (down n) (case n ((0) 'ok) (else (down (- n 1))))) (down %d)" % DEEP
        assert show(src) == "ok"

    @pytest.mark.parametrize("source, message", [("(case)", "case: bad syntax"), ("(case 1 (else 1) ((1) 2))", "else must be the last"),
                                                 ("(case 1 (1 'x))", "case: bad syntax"), ("(case 1 ((1)))", "case: bad syntax"),
                                                 ("(case 1 5)", "case: bad syntax")])
    def test_errors(self, source, message):
        with pytest.raises(LispSyntaxError, match=message):
            ev(source)


class TestDo:
    @check([("(do ((i 0 (+ i 1)) (acc '() (cons i acc))) ((= i 4) acc))", "(3 2 1 0)"),
            ("(do ((i 0 (+ i 1))) ((= i 3)))", "#<void>"), ("(do ((i 0 (+ i 1))) ((= i 3) 'a 'b))", "b"),
            ("(do ((i 0 (+ i 1))) ((= i 3) (log)) (note i))", "(0 1 2)"),
            ("(do ((i 0 (+ i 1)) (k 10)) ((= i 2) k))", "10"), ("(do () (#t 'immediately))", "immediately"),
            ("(do ((x 1 (* x 2)) (y 0 x)) ((> x 8) (list x y)))", "(16 8)")])
    def test_do(self, source, expected):
        assert show(source) == expected

    def test_fresh_binding_per_iteration(self):
        src = "(do ((i 0 (+ i 1)) (fs '() (cons (lambda () i) fs))) ((= i 3) (list ((car fs)) ((car (cdr (cdr fs)))))))"
        assert show(src) == "(2 0)"

    def test_many_iterations(self):
        assert ev("(do ((i 0 (+ i 1)) (s 0 (+ s i))) ((= i %d) s))" % DEEP) == DEEP * (DEEP - 1) // 2

    @pytest.mark.parametrize("source", ["(do)", "(do ((i 0)))", "(do (i) (#t))", "(do ((1 2)) (#t))", "(do ((i 0 1 2)) (#t))",
                                        "(do ((i 0)) ())"])
    def test_bad_syntax(self, source):
        with pytest.raises(LispSyntaxError, match="do: bad syntax"):
            ev(source)
