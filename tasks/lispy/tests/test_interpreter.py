"""Layer 5: the Interpreter class, run() transcripts and the REPL helpers."""

import pytest

from lispy.datatypes import VOID
from lispy.errors import LispRaise, ParseError, UnboundVariable
from lispy.interpreter import Interpreter, is_complete, repl_session, run


class TestInterpreterEval:
    def test_value_of_last_form(self):
        assert Interpreter(prelude=False).eval("1 2 (+ 1 2)") == 3

    def test_empty_source(self):
        assert Interpreter(prelude=False).eval("") is VOID

    def test_definitions_persist(self):
        interp = Interpreter(prelude=False)
        interp.eval("(define (sq x) (* x x))")
        assert interp.eval("(sq 7)") == 49

    def test_output_is_buffered(self):
        interp = Interpreter(prelude=False)
        interp.eval('(display "hi") (newline) (write "q")')
        assert interp.take_output() == 'hi\n"q"'
        assert interp.take_output() == ""

    def test_syntax_error_means_nothing_runs(self):
        interp = Interpreter(prelude=False)
        with pytest.raises(ParseError):
            interp.eval("(define x 1) (oops")
        with pytest.raises(UnboundVariable):
            interp.eval("x")

    def test_errors_propagate_after_earlier_effects(self):
        interp = Interpreter(prelude=False)
        with pytest.raises(LispRaise):
            interp.eval('(define y 5) (error "stop") (define y 6)')
        assert interp.eval("y") == 5

    def test_prelude_loaded_by_default(self):
        assert Interpreter().eval("(cadr '(1 2))") == 2

    def test_prelude_can_be_skipped(self):
        with pytest.raises(UnboundVariable):
            Interpreter(prelude=False).eval("(cadr '(1 2))")

    def test_eval_builtin_uses_global_environment(self):
        assert Interpreter(prelude=False).eval("(define z 4) (eval (list '* 'z 'z))") == 16

    def test_separate_interpreters_are_independent(self):
        a, b = Interpreter(prelude=False), Interpreter(prelude=False)
        a.eval("(define only-a 1)")
        with pytest.raises(UnboundVariable):
            b.eval("only-a")


class TestInterpreterRun:
    @pytest.mark.parametrize(
        "source, transcript",
        [
            ("", ""),
            ("42", "42\n"),
            ("1 2", "1\n2\n"),
            ("(define x 2)", ""),
            ('(define x 2) (display "x=") (* x 21)', "x=42\n"),
            ('"str"', '"str"\n'),
            ("'(a \"b\")", '(a "b")\n'),
            ('(display "no newline")', "no newline"),
            ("(newline)", "\n"),
            ("(car '()) 5", "error: car: expected pair, got ()\n5\n"),
            ('(display "before") (car 1)', "before" + "error: car: expected pair, got 1\n"),
            ("(+ 1", "error: unclosed '(' at line 1, column 1\n"),
            ("1 )", "error: unexpected ')' at line 1, column 3\n"),
            ('(error "custom" 1 "two")', 'error: custom 1 "two"\n'),
            ("undefined-x", "error: unbound variable: undefined-x\n"),
            ("(if #f #f)", ""),
            ("car", "#<builtin car>\n"),
            ("(lambda (x) x)", "#<procedure>\n"),
            ("#t #f '()", "#t\n#f\n()\n"),
        ],
    )
    def test_transcripts(self, source, transcript):
        assert Interpreter(prelude=False).run(source) == transcript

    def test_state_kept_between_runs(self):
        interp = Interpreter(prelude=False)
        interp.run("(define counter 0)")
        interp.run("(set! counter (+ counter 1))")
        assert interp.run("counter") == "1\n"

    def test_deep_non_tail_recursion_is_reported(self):
        src = "(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1))))) (count 100000) 'after"
        assert Interpreter(prelude=False).run(src) == "error: maximum recursion depth exceeded\nafter\n"

    def test_module_level_run_uses_fresh_interpreter_with_prelude(self):
        assert run("(define q 1) (cadr '(1 2))") == "2\n"
        assert run("q") == "error: unbound variable: q\n"

    def test_module_level_run_without_prelude(self):
        assert run("(iota 3)", prelude=False) == "error: unbound variable: iota\n"


class TestIsComplete:
    @pytest.mark.parametrize("source", ["", "   ", "; just a comment", "42", "(+ 1 2)", "(a (b) c) (d)", '"done"', "'x", "#| c |#",
                                        "(a ; comment with ( paren\n)"])
    def test_complete(self, source):
        assert is_complete(source) is True

    @pytest.mark.parametrize("source", ["(", "(define (f x)\n  (+ x", '"unterminated', "#| open", "'", "(a) `", "#;", '(display "a)"'])
    def test_incomplete(self, source):
        assert is_complete(source) is False

    @pytest.mark.parametrize("source", [")", "(a))", "(. a)", "#bad"])
    def test_unfixable_errors_raise(self, source):
        with pytest.raises(ParseError):
            is_complete(source)


class TestReplSession:
    def test_single_lines(self):
        assert repl_session(["(+ 1 2)", "(define x 5)", "x"], prelude=False) == "> (+ 1 2)\n3\n> (define x 5)\n> x\n5\n"

    def test_continuation_lines(self):
        lines = ["(define (sq x)", "  (* x x))", "(sq 4)"]
        assert repl_session(lines, prelude=False) == "> (define (sq x)\n...   (* x x))\n> (sq 4)\n16\n"

    def test_multiline_string(self):
        assert repl_session(['(display "a', 'b")'], prelude=False) == '> (display "a\n... b")\na\nb'

    def test_parse_error_discards_pending_input(self):
        out = repl_session(["(+ 1", "2))", "7"], prelude=False)
        assert out == "> (+ 1\n... 2))\nerror: unexpected ')' at line 2, column 3\n> 7\n7\n"

    def test_runtime_error_continues(self):
        out = repl_session(["(car '())", "'ok"], prelude=False)
        assert out == "> (car '())\nerror: car: expected pair, got ()\n> 'ok\nok\n"

    def test_incomplete_input_at_end(self):
        assert repl_session(["(list 1"], prelude=False) == "> (list 1\nerror: incomplete input\n"

    def test_blank_line(self):
        assert repl_session(["", "1"], prelude=False) == "> \n> 1\n1\n"

    def test_several_forms_on_one_line(self):
        assert repl_session(['(display "x") 1 2'], prelude=False) == '> (display "x") 1 2\nx1\n2\n'

    def test_prelude_available_by_default(self):
        assert repl_session(["(iota 3)"]) == "> (iota 3)\n(0 1 2)\n"
