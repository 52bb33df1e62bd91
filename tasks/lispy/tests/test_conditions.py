"""Layer 5: error, raise and guard."""

import io

import pytest

from lispy.conditions import builtin_error
from lispy.datatypes import VOID, ErrorObject, Symbol
from lispy.errors import LispRaise, LispSyntaxError, UnboundVariable
from lispy.evaluator import evaluate
from lispy.globals import standard_env
from lispy.printer import to_string
from lispy.reader import read_all


def ev(source, env=None):
    env = env if env is not None else standard_env(io.StringIO())
    value = VOID
    for form in read_all(source):
        value = evaluate(form, env)
    return value


def show(source):
    return to_string(ev(source))


def check(cases):
    return pytest.mark.parametrize("source, expected", cases)


class TestError:
    def test_raises_error_object(self):
        with pytest.raises(LispRaise) as info:
            builtin_error("bad thing:", 42, "x")
        payload = info.value.payload
        assert isinstance(payload, ErrorObject)
        assert payload.message == "bad thing:" and payload.irritants == [42, "x"]

    def test_text_has_written_irritants(self):
        with pytest.raises(LispRaise) as info:
            builtin_error("bad thing:", 42, "x", Symbol("s"))
        assert str(info.value) == 'bad thing: 42 "x" s'

    def test_message_only(self):
        with pytest.raises(LispRaise) as info:
            builtin_error("plain")
        assert str(info.value) == "plain" and info.value.payload.irritants == []

    def test_symbol_message_is_displayed(self):
        with pytest.raises(LispRaise) as info:
            builtin_error(Symbol("oops"), 1)
        assert info.value.payload.message == "oops" and str(info.value) == "oops 1"

    def test_from_lisp(self):
        with pytest.raises(LispRaise, match=r"^too big: \(1 2\)$"):
            ev("(define (check n) (if (> (length n) 1) (error \"too big:\" n) n)) (check '(1 2))")



class TestGuard:
    @check([
        ("(guard (e (#t 'caught)) (error \"boom\"))", "caught"),
        ("(guard (e (#t (error-object-message e))) (error \"boom\" 1))", '"boom"'),
        ("(guard (e ((symbol? e) (list 'sym e))) (raise 'oops))", "(sym oops)"),
        ("(guard (e ((string? e) 'str) ((number? e) (* e 2))) (raise 21))", "42"),
        ("(guard (e (else 'fallback)) (raise 'x))", "fallback"),
        ("(guard (e ((memq e '(a b c)) => length)) (raise 'b))", "2"),
        ("(guard (e ((assq 'code e) => cdr)) (raise '((code . 404))))", "404"),
        ("(guard (e ((number? e))) (raise 7))", "#t"),
        ("(guard (e (#t 'never)) (+ 1 2))", "3"),
        ("(guard (e (#t 'never)) 1 2 3)", "3"),
        ("(guard (e (#t (error-object-message e))) (car 5))", '"car: expected pair, got 5"'),
        ("(guard (e (#t (error-object-message e))) undefined-thing)", '"unbound variable: undefined-thing"'),
        ("(guard (e ((error-object? e) 'error-object) (else 'raw)) (raise 5))", "raw"),
        ("(guard (e (#t (error-object-irritants e))) (vector-ref 1))", "()"),
        ("(define (f) (error \"deep\")) (define (g) (+ 1 (f))) (guard (e (#t (error-object-message e))) (g))", '"deep"'),
    ])
    def test_guard(self, source, expected):
        assert show(source) == expected

    def test_error_object_accessors(self):
        src = "(guard (e (#t (list (error-object? e) (error-object-message e) (error-object-irritants e)))) (error \"m\" 1 'two))"
        assert show(src) == '(#t "m" (1 two))'

    def test_no_matching_clause_reraises_original(self):
        with pytest.raises(LispRaise) as info:
            ev("(guard (e ((string? e) 'no)) (raise 'sym))")
        assert info.value.payload is Symbol("sym")

    def test_no_matching_clause_for_internal_error(self):
        with pytest.raises(UnboundVariable, match="unbound variable: nope"):
            ev("(guard (e ((string? e) 'no)) nope)")

    def test_nested_guards(self):
        src = """
        (guard (outer (#t (list 'outer outer)))
          (guard (inner ((string? inner) 'inner))
            (raise 'not-a-string)))
        """
        assert show(src) == "(outer not-a-string)"

    def test_reraise_from_handler(self):
        src = "(guard (e (#t (list 'second e))) (guard (e (#t (raise (list 'wrapped e)))) (raise 'first)))"
        assert show(src) == "(second (wrapped first))"

    def test_effects_before_error_persist(self):
        assert show("(define log '()) (guard (e (#t log)) (set! log (cons 1 log)) (error \"x\") (set! log (cons 2 log)))") == "(1)"

    def test_variable_is_local_to_handler(self):
        env = standard_env(io.StringIO())
        ev("(guard (cond-var (#t cond-var)) (raise 1))", env)
        with pytest.raises(UnboundVariable):
            ev("cond-var", env)

    def test_handler_sees_enclosing_scope(self):
        assert show("(let ((fallback 'fb)) (guard (e (#t fallback)) (raise 1)))") == "fb"

    def test_guard_in_a_loop(self):
        src = """
        (define (safe-div a b) (guard (e (#t 'inf)) (if (= b 0) (raise 'div0) (/ a b))))
        (map (lambda (b) (safe-div 12 b)) '(1 0 4))
        """
        assert show(src) == "(12 inf 3)"

    def test_handler_body_is_tail_position(self):
        src = "(define (down n) (guard (e (#t (if (= n 0) 'ok (down (- n 1))))) (raise n))) (down 1200)"
        assert show(src) == "ok"

    @pytest.mark.parametrize("source", ["(guard)", "(guard (e))", "(guard e 1)", "(guard (1 (#t 1)) 2)", "(guard (e 5) (raise 1))"])
    def test_bad_syntax(self, source):
        with pytest.raises(LispSyntaxError, match="guard: bad syntax"):
            ev(source)

    def test_raise_text(self):
        with pytest.raises(LispRaise, match=r'uncaught exception: \(1 "a"\)'):
            ev("(raise (list 1 \"a\"))")
