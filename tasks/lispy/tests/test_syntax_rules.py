"""Layer 5: define-syntax / syntax-rules pattern macros."""

import io

import pytest

from lispy.datatypes import VOID, Symbol
from lispy.errors import LispSyntaxError
from lispy.evaluator import evaluate
from lispy.globals import standard_env
from lispy.macros import EllipsisMatch, SyntaxRules, expand_template, match_pattern
from lispy.printer import to_string
from lispy.reader import read, read_all

S = Symbol


def ev(source, env=None):
    env = env if env is not None else standard_env(io.StringIO())
    value = VOID
    for form in read_all(source):
        value = evaluate(form, env)
    return value


def show(source):
    return to_string(ev(source))


def plain(value):
    """Bindings -> comparable Python data (EllipsisMatch -> list, Lisp data -> written text)."""
    if isinstance(value, EllipsisMatch):
        return [plain(v) for v in value]
    return to_string(value)


def match(pattern, form, literals=(), ellipsis=S("...")):
    bindings = {}
    ok = match_pattern(read(pattern), read(form), [S(x) for x in literals], bindings, ellipsis)
    return ok, {k.name: plain(v) for k, v in bindings.items()}


class TestMatchPattern:
    def test_variable_binds_anything(self):
        assert match("x", "(1 2)") == (True, {"x": "(1 2)"})

    def test_list_pattern(self):
        assert match("(a b)", "(1 (2))") == (True, {"a": "1", "b": "(2)"})

    def test_length_mismatch(self):
        assert match("(a b)", "(1 2 3)")[0] is False
        assert match("(a b)", "(1)")[0] is False

    def test_literal_matches_same_symbol_only(self):
        assert match("(x => y)", "(1 => 2)", literals=["=>"]) == (True, {"x": "1", "y": "2"})
        assert match("(x => y)", "(1 -> 2)", literals=["=>"])[0] is False

    def test_underscore_binds_nothing(self):
        assert match("(_ x _)", "(1 2 3)") == (True, {"x": "2"})

    def test_nil_matches_only_nil(self):
        assert match("()", "()")[0] is True
        assert match("()", "(1)")[0] is False

    @pytest.mark.parametrize("pattern, form, ok", [("(1 x)", "(1 5)", True), ("(1 x)", "(2 5)", False), ('("s" x)', '("s" 5)', True),
                                                   ("(#t)", "(#t)", True), ("(#t)", "(1)", False)])
    def test_datum_patterns(self, pattern, form, ok):
        assert match(pattern, form)[0] is ok

    def test_pair_pattern_against_atom(self):
        assert match("(a b)", "5")[0] is False

    def test_ellipsis_many(self):
        assert match("(x ...)", "(1 2 3)") == (True, {"x": ["1", "2", "3"]})

    def test_ellipsis_zero(self):
        assert match("(x ...)", "()") == (True, {"x": []})

    def test_ellipsis_with_fixed_tail(self):
        assert match("(a ... b c)", "(1 2 3 4)") == (True, {"a": ["1", "2"], "b": "3", "c": "4"})

    def test_ellipsis_tail_too_short(self):
        assert match("(a ... b c)", "(1)")[0] is False

    def test_ellipsis_with_dotted_tail(self):
        assert match("(a ... . r)", "(1 2 . 3)") == (True, {"a": ["1", "2"], "r": "3"})

    def test_ellipsis_of_sub_patterns(self):
        assert match("((k v) ...)", "((a 1) (b 2))") == (True, {"k": ["a", "b"], "v": ["1", "2"]})

    def test_ellipsis_element_mismatch(self):
        assert match("((k v) ...)", "((a 1) b)")[0] is False

    def test_nested_ellipsis(self):
        assert match("((x ...) ...)", "((1 2) () (3))") == (True, {"x": [["1", "2"], [], ["3"]]})

    def test_custom_ellipsis(self):
        assert match("(x ::: y)", "(1 2 3)", ellipsis=S(":::")) == (True, {"x": ["1", "2"], "y": "3"})

    def test_literal_in_ellipsis(self):
        assert match("((a => b) ...)", "((1 => 2) (3 => 4))", literals=["=>"]) == (True, {"a": ["1", "3"], "b": ["2", "4"]})


def expand(template, bindings, ellipsis=S("...")):
    return to_string(expand_template(read(template), bindings, ellipsis))


class TestExpandTemplate:
    def test_substitutes_variables(self):
        assert expand("(+ a b)", {S("a"): 1, S("b"): read("(f x)")}) == "(+ 1 (f x))"

    def test_unbound_symbols_are_copied(self):
        assert expand("(let ((tmp a)) tmp)", {S("a"): 5}) == "(let ((tmp 5)) tmp)"

    def test_ellipsis(self):
        assert expand("(list x ...)", {S("x"): EllipsisMatch([1, 2, 3])}) == "(list 1 2 3)"

    def test_ellipsis_empty(self):
        assert expand("(list x ...)", {S("x"): EllipsisMatch([])}) == "(list)"

    def test_ellipsis_followed_by_more(self):
        assert expand("(x ... end)", {S("x"): EllipsisMatch([1, 2])}) == "(1 2 end)"

    def test_ellipsis_sub_template_with_constant(self):
        b = {S("k"): EllipsisMatch([S("a"), S("b")]), S("v"): 0}
        assert expand("((k v) ...)", b) == "((a 0) (b 0))"

    def test_two_variables_in_step(self):
        b = {S("k"): EllipsisMatch([S("a"), S("b")]), S("v"): EllipsisMatch([1, 2])}
        assert expand("((k . v) ...)", b) == "((a . 1) (b . 2))"

    def test_nested_ellipsis(self):
        b = {S("x"): EllipsisMatch([EllipsisMatch([1, 2]), EllipsisMatch([3])])}
        assert expand("((+ x ...) ...)", b) == "((+ 1 2) (+ 3))"

    def test_escaped_ellipsis(self):
        assert expand("(a (... ...))", {}) == "(a ...)"

    def test_missing_ellipsis(self):
        with pytest.raises(LispSyntaxError, match="missing ellipsis after x"):
            expand("(f x)", {S("x"): EllipsisMatch([1])})

    def test_no_variable_before_ellipsis(self):
        with pytest.raises(LispSyntaxError, match="no pattern variable before ellipsis"):
            expand("(f y ...)", {S("y"): 1})

    def test_length_mismatch(self):
        with pytest.raises(LispSyntaxError, match="ellipsis length mismatch"):
            expand("((a b) ...)", {S("a"): EllipsisMatch([1, 2]), S("b"): EllipsisMatch([1])})

    def test_custom_ellipsis(self):
        assert expand("(x ::: ...)", {S("x"): EllipsisMatch([1, 2])}, S(":::")) == "(1 2 ...)"

    def test_bindings_not_modified(self):
        b = {S("x"): EllipsisMatch([1, 2])}
        expand("(x ...)", b)
        assert b == {S("x"): EllipsisMatch([1, 2])}

    def test_non_symbol_data_unchanged(self):
        assert expand('(1 "s" #t ())', {}) == '(1 "s" #t ())'


def rules(spec, literals=()):
    return SyntaxRules("m", [S(x) for x in literals], [(read(p), read(t)) for p, t in spec])


class TestSyntaxRulesExpand:
    def test_first_matching_rule(self):
        m = rules([("(_)", "'none"), ("(_ x)", "'one"), ("(_ x y)", "'two"), ("(_ x ...)", "'many")])
        env = standard_env(io.StringIO())
        results = [to_string(m.expand(read(f), env)) for f in ["(m)", "(m 1)", "(m 1 2)", "(m 1 2 3)"]]
        assert results == ["(quote none)", "(quote one)", "(quote two)", "(quote many)"]

    def test_keyword_position_is_ignored(self):
        m = rules([("(anything x)", "x")])
        assert m.expand(read("(m 5)"), None) == 5

    def test_literals(self):
        m = rules([("(_ a to b)", "(range a b)"), ("(_ a b)", "(pair a b)")], literals=["to"])
        assert to_string(m.expand(read("(m 1 to 5)"), None)) == "(range 1 5)"
        assert to_string(m.expand(read("(m 1 5)"), None)) == "(pair 1 5)"

    def test_no_match(self):
        m = SyntaxRules("strict", [], [(read("(_ x)"), read("x"))])
        with pytest.raises(LispSyntaxError, match="strict: no matching syntax rule"):
            m.expand(read("(strict 1 2)"), None)


class TestDefineSyntax:
    def test_simple_macro(self):
        assert show("(define-syntax my-inc (syntax-rules () ((_ x) (+ x 1)))) (my-inc 41)") == "42"

    def test_returns_void_and_binds(self):
        env = standard_env(io.StringIO())
        assert ev("(define-syntax m (syntax-rules () ((_) 1)))", env) is VOID
        m = env.lookup(S("m"))
        assert isinstance(m, SyntaxRules) and m.name == "m" and m.literals == [] and len(m.rules) == 1

    def test_prints_as_macro(self):
        assert show("(define-syntax m (syntax-rules () ((_) 1))) m") == "#<macro m>"

    def test_recursive_or(self):
        src = """
        (define-syntax my-or
          (syntax-rules ()
            ((_) #f)
            ((_ e) e)
            ((_ e r ...) (let ((t e)) (if t t (my-or r ...))))))
        (list (my-or) (my-or #f 2) (my-or #f #f) (my-or 1 (car 5)))
        """
        assert show(src) == "(#f 2 #f 1)"

    def test_swap(self):
        src = """
        (define-syntax swap! (syntax-rules () ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp)))))
        (define x 1) (define y 2) (swap! x y) (list x y)
        """
        assert show(src) == "(2 1)"

    def test_my_let_with_ellipsis(self):
        src = """
        (define-syntax my-let
          (syntax-rules ()
            ((_ ((name val) ...) body1 body2 ...) ((lambda (name ...) body1 body2 ...) val ...))))
        (my-let ((a 1) (b 2)) (+ a b))
        """
        assert show(src) == "3"

    def test_while_loop(self):
        src = """
        (define-syntax my-while
          (syntax-rules () ((_ c body ...) (let lp () (when c body ... (lp))))))
        (define i 0) (define acc '())
        (my-while (< i 3) (set! acc (cons i acc)) (set! i (+ i 1)))
        acc
        """
        assert show(src) == "(2 1 0)"

    def test_literals_in_use(self):
        src = """
        (define-syntax for-each-in
          (syntax-rules (in)
            ((_ x in lst body ...) (map (lambda (x) body ...) lst))))
        (for-each-in n in '(1 2 3) (* n 10))
        """
        assert show(src) == "(10 20 30)"

    def test_custom_ellipsis(self):
        src = "(define-syntax my-list (syntax-rules ::: () ((_ x :::) (list x :::)))) (my-list 1 2 3)"
        assert show(src) == "(1 2 3)"

    def test_no_matching_rule(self):
        with pytest.raises(LispSyntaxError, match="two: no matching syntax rule"):
            ev("(define-syntax two (syntax-rules () ((_ a b) (list a b)))) (two 1)")

    @pytest.mark.parametrize("source", ["(define-syntax)", "(define-syntax m)", "(define-syntax 5 (syntax-rules ()))",
                                        "(define-syntax m (lambda (x) x))", "(define-syntax m (syntax-rules (1) ((_) 1)))",
                                        "(define-syntax m (syntax-rules () (_ 1)))", "(define-syntax m (syntax-rules () ((_))))",
                                        "(define-syntax m (syntax-rules))"])
    def test_bad_syntax(self, source):
        with pytest.raises(LispSyntaxError, match="define-syntax: bad syntax"):
            ev(source)

    def test_empty_rules_never_match(self):
        with pytest.raises(LispSyntaxError, match="no matching syntax rule"):
            ev("(define-syntax nothing (syntax-rules ())) (nothing)")
