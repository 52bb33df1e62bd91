"""Layer 4: string builtins and format."""

import io

import pytest

from lispy.datatypes import VOID
from lispy.errors import EvalError, LispTypeError
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


class TestStringAppend:
    @check([("(string-append)", '""'), ('(string-append "a")', '"a"'), ('(string-append "foo" "" "bar")', '"foobar"'),
            ('(string-append "\\n" "x")', '"\\nx"')])
    def test_string_append(self, source, expected):
        assert show(source) == expected

    @pytest.mark.parametrize("source, message", [('(string-append "a" \'b)', "string-append: expected string, got b"),
                                                 ('(string-append 1 "a")', "string-append: expected string, got 1")])
    def test_type_errors(self, source, message):
        with pytest.raises(LispTypeError) as info:
            ev(source)
        assert str(info.value) == message


class TestSubstring:
    @check([('(substring "hello" 1 3)', '"el"'), ('(substring "hello" 2)', '"llo"'), ('(substring "hello" 0 0)', '""'),
            ('(substring "hello" 5)', '""'), ('(substring "hello" 0 5)', '"hello"')])
    def test_substring(self, source, expected):
        assert show(source) == expected

    @pytest.mark.parametrize("source", ['(substring "abc" 2 1)', '(substring "abc" -1 2)', '(substring "abc" 0 4)', '(substring "abc" 4)'])
    def test_out_of_range(self, source):
        with pytest.raises(EvalError, match="substring: index out of range"):
            ev(source)

    @pytest.mark.parametrize("source, message", [("(substring 'abc 0 1)", "substring: expected string"),
                                                 ('(substring "abc" 0.0 1)', "substring: expected integer"),
                                                 ('(substring "abc" 0 #t)', "substring: expected integer")])
    def test_type_errors(self, source, message):
        with pytest.raises(LispTypeError, match=message):
            ev(source)


class TestStringSplit:
    @check([('(string-split "a b  c")', '("a" "b" "c")'), ('(string-split "  padded  ")', '("padded")'), ('(string-split "")', "()"),
            ('(string-split "a,,b" ",")', '("a" "" "b")'), ('(string-split "" ",")', '("")'), ('(string-split "a--b--c" "--")', '("a" "b" "c")'),
            ('(string-split "abc" "x")', '("abc")'), ('(string-split "tab\\tand\\nnewline")', '("tab" "and" "newline")')])
    def test_string_split(self, source, expected):
        assert show(source) == expected

    def test_empty_separator(self):
        with pytest.raises(EvalError, match="string-split: empty separator"):
            ev('(string-split "abc" "")')

    def test_type_error(self):
        with pytest.raises(LispTypeError, match="string-split: expected string"):
            ev("(string-split 'abc)")


class TestStringJoin:
    @check([("(string-join '(\"a\" \"b\" \"c\"))", '"a b c"'), ("(string-join '(\"a\" \"b\") \", \")", '"a, b"'), ("(string-join '())", '""'),
            ("(string-join '(\"solo\") \"-\")", '"solo"'), ("(string-join '(\"x\" \"y\") \"\")", '"xy"')])
    def test_string_join(self, source, expected):
        assert show(source) == expected

    @pytest.mark.parametrize("source, message", [("(string-join '(\"a\" 1))", "string-join: expected string, got 1"),
                                                 ("(string-join '(\"a\") 'sep)", "string-join: expected string, got sep"),
                                                 ("(string-join '(\"a\" . \"b\"))", "string-join: expected proper list")])
    def test_type_errors(self, source, message):
        with pytest.raises(LispTypeError, match=message):
            ev(source)


class TestStringCompare:
    @check([('(string=? "a" "a")', "#t"), ('(string=? "a" "b")', "#f"), ('(string=? "x" "x" "x")', "#t"), ('(string<? "abc" "abd")', "#t"),
            ('(string<? "ab" "abc")', "#t"), ('(string<? "Z" "a")', "#t"), ('(string>? "b" "a")', "#t"), ('(string<=? "a" "a" "b")', "#t"),
            ('(string>=? "a" "b")', "#f"), ('(string<? "a" "c" "b")', "#f"), ('(string=? "solo")', "#t")])
    def test_compare(self, source, expected):
        assert show(source) == expected

    def test_type_error(self):
        with pytest.raises(LispTypeError) as info:
            ev('(string<? "a" 1)')
        assert str(info.value) == "string<?: expected string, got 1"

    def test_all_arguments_checked(self):
        with pytest.raises(LispTypeError, match="string=\\?: expected string"):
            ev('(string=? "a" "b" \'c)')


class TestFormat:
    @check([('(format "plain")', '"plain"'), ('(format "~a + ~a = ~a" 1 2 3)', '"1 + 2 = 3"'), ('(format "~s" "q")', '"\\"q\\""'),
            ('(format "~a" "q")', '"q"'), ('(format "line~%")', '"line\\n"'), ('(format "100~~")', '"100~"'),
            ("(format \"~a and ~s\" '(1 \"x\") '(1 \"x\"))", '"(1 x) and (1 \\"x\\")"'), ('(format "~A~S" 1 "b")', '"1\\"b\\""'),
            ('(format "")', '""')])
    def test_format(self, source, expected):
        assert show(source) == expected

    @pytest.mark.parametrize("source, message", [('(format "~a ~a" 1)', "format: too few arguments"),
                                                 ('(format "~a" 1 2)', "format: too many arguments"),
                                                 ('(format "~q" 1)', "format: unknown directive ~q"),
                                                 ('(format "oops~")', "format: incomplete directive")])
    def test_errors(self, source, message):
        with pytest.raises(EvalError, match=message):
            ev(source)

    def test_template_must_be_a_string(self):
        with pytest.raises(LispTypeError, match="format: expected string"):
            ev("(format 'x)")
