"""The pattern parser, level by level."""

import pytest

from tinyregex.errors import RegexError
from tinyregex.nodes import (
    Alternate, Anchor, AnyChar, CharClass, Concat, Empty, Group, Literal, Repeat,
)
from tinyregex.parser import Parser, parse

a, b, c = Literal("a"), Literal("b"), Literal("c")


def error_of(pattern, method):
    with pytest.raises(RegexError) as info:
        getattr(Parser(pattern), method)()
    return info.value.msg, info.value.pos


class TestParseEscape:
    @pytest.mark.parametrize("letter", list("dDwWsS"))
    def test_categories(self, letter):
        p = Parser("\\" + letter + "x")
        assert p.parse_escape() == CharClass(categories=(letter,))
        assert p.pos == 2

    @pytest.mark.parametrize("letter, char", [("n", "\n"), ("t", "\t"), ("r", "\r"), ("f", "\f"), ("v", "\v")])
    def test_control_characters(self, letter, char):
        assert Parser("\\" + letter).parse_escape() == Literal(char)

    @pytest.mark.parametrize("char", list(".*+?()[]{}|^$\\/- #"))
    def test_escaped_punctuation(self, char):
        assert Parser("\\" + char).parse_escape() == Literal(char)

    def test_word_boundary(self):
        assert Parser(r"\b").parse_escape() == Anchor("b")
        assert Parser(r"\B").parse_escape() == Anchor("B")

    def test_starts_at_current_position(self):
        p = Parser(r"ab\dc")
        p.pos = 2
        assert p.parse_escape() == CharClass(categories=("d",))
        assert p.pos == 4

    def test_end_of_pattern(self):
        p = Parser("ab\\")
        p.pos = 2
        with pytest.raises(RegexError) as info:
            p.parse_escape()
        assert (info.value.msg, info.value.pos) == ("bad escape (end of pattern)", 2)

    @pytest.mark.parametrize("pattern", [r"\q", r"\1", r"\A", r"\Z", r"\x"])
    def test_bad_escape(self, pattern):
        assert error_of(pattern, "parse_escape") == (f"bad escape {pattern}", 0)

    def test_word_boundary_not_allowed_in_class(self):
        with pytest.raises(RegexError) as info:
            Parser(r"\b").parse_escape(in_class=True)
        assert info.value.msg == r"bad escape \b"

    def test_in_class_categories_still_work(self):
        assert Parser(r"\w").parse_escape(in_class=True) == CharClass(categories=("w",))


class TestParseClass:
    def test_simple(self):
        p = Parser("[abc]x")
        assert p.parse_class() == CharClass((("a", "a"), ("b", "b"), ("c", "c")))
        assert p.pos == 5

    def test_ranges(self):
        assert Parser("[a-z0-9_]").parse_class() == CharClass((("a", "z"), ("0", "9"), ("_", "_")))

    def test_negated(self):
        assert Parser("[^ab]").parse_class() == CharClass((("a", "a"), ("b", "b")), negated=True)

    def test_docstring_example(self):
        assert Parser(r"[^a-c_\d]").parse_class() == CharClass((("a", "c"), ("_", "_")), ("d",), True)

    def test_categories(self):
        assert Parser(r"[\s\W]").parse_class() == CharClass((), ("s", "W"))

    def test_leading_bracket_is_literal(self):
        assert Parser("[]a]").parse_class() == CharClass((("]", "]"), ("a", "a")))
        assert Parser("[^]]").parse_class() == CharClass((("]", "]"),), negated=True)

    def test_literal_dashes(self):
        assert Parser("[-a]").parse_class() == CharClass((("-", "-"), ("a", "a")))
        assert Parser("[a-]").parse_class() == CharClass((("a", "a"), ("-", "-")))
        assert Parser("[a-c-e]").parse_class() == CharClass((("a", "c"), ("-", "-"), ("e", "e")))

    def test_special_characters_are_literal(self):
        assert Parser("[.*(]").parse_class() == CharClass(((".", "."), ("*", "*"), ("(", "(")))

    def test_escapes(self):
        assert Parser(r"[\]\\\n]").parse_class() == CharClass((("]", "]"), ("\\", "\\"), ("\n", "\n")))

    def test_escaped_range_ends(self):
        assert Parser(r"[\t-\r]").parse_class() == CharClass((("\t", "\r"),))

    def test_caret_not_first_is_literal(self):
        assert Parser("[a^]").parse_class() == CharClass((("a", "a"), ("^", "^")))

    @pytest.mark.parametrize("pattern", ["[abc", "[", "[]", "[^]", "[a-"])
    def test_unterminated(self, pattern):
        assert error_of(pattern, "parse_class") == ("unterminated character set", 0)

    def test_reversed_range(self):
        assert error_of("[az-a]", "parse_class") == ("bad character range z-a", 2)

    def test_category_in_range(self):
        assert error_of(r"[\d-z]", "parse_class") == (r"bad character range \d-z", 1)
        assert error_of(r"[a-\w]", "parse_class") == (r"bad character range a-\w", 1)

    def test_bad_escape_inside(self):
        assert error_of(r"[a\q]", "parse_class") == (r"bad escape \q", 2)


class TestParseBraces:
    @pytest.mark.parametrize("text, result, pos", [
        ("{3}", (3, 3), 3),
        ("{2,}", (2, None), 4),
        ("{2,5}", (2, 5), 5),
        ("{,4}", (0, 4), 4),
        ("{,}", (0, None), 3),
        ("{0}", (0, 0), 3),
        ("{12,345}x", (12, 345), 8),
    ])
    def test_forms(self, text, result, pos):
        p = Parser(text)
        assert p.parse_braces() == result
        assert p.pos == pos

    @pytest.mark.parametrize("text", ["{", "{}", "{a}", "{1,2", "{ 1}", "{1 }", "{-1}", "x{1}", ""])
    def test_not_a_quantifier(self, text):
        p = Parser(text)
        assert p.parse_braces() is None
        assert p.pos == 0

    def test_min_greater_than_max(self):
        assert error_of("{3,2}", "parse_braces") == ("min repeat greater than max repeat", 0)

    def test_too_large(self):
        assert Parser("{1000}").parse_braces() == (1000, 1000)
        assert error_of("{1001}", "parse_braces") == ("repeat count too large", 0)
        assert error_of("{1,2000}", "parse_braces") == ("repeat count too large", 0)


class TestParseAtom:
    def test_literal(self):
        p = Parser("ab")
        assert p.parse_atom() == a
        assert p.pos == 1

    def test_dot_and_anchors(self):
        assert Parser(".").parse_atom() == AnyChar()
        assert Parser("^").parse_atom() == Anchor("^")
        assert Parser("$").parse_atom() == Anchor("$")

    def test_class_and_escape(self):
        assert Parser("[ab]").parse_atom() == CharClass((("a", "a"), ("b", "b")))
        assert Parser(r"\d").parse_atom() == CharClass(categories=("d",))
        assert Parser(r"\.").parse_atom() == Literal(".")

    def test_closing_brackets_are_literal(self):
        assert Parser("]").parse_atom() == Literal("]")
        assert Parser("}").parse_atom() == Literal("}")

    def test_brace_that_is_not_a_quantifier(self):
        p = Parser("{a}")
        assert p.parse_atom() == Literal("{")
        assert p.pos == 1

    @pytest.mark.parametrize("pattern", ["*a", "+", "?", "{2}", "{1,}"])
    def test_nothing_to_repeat(self, pattern):
        p = Parser(pattern)
        with pytest.raises(RegexError) as info:
            p.parse_atom()
        assert (info.value.msg, info.value.pos) == ("nothing to repeat", 0)
        assert p.pos == 0

    def test_no_atom_here(self):
        assert error_of(")", "parse_atom") == ("unbalanced parenthesis", 0)
        assert error_of("|", "parse_atom") == ("unexpected |", 0)
        assert error_of("", "parse_atom") == ("unexpected end of pattern", 0)

    def test_unknown_extension(self):
        assert error_of("(?=a)", "parse_atom") == ("unknown extension ?=", 0)
        assert error_of("(?", "parse_atom") == ("unknown extension ?", 0)


class TestParseRepeat:
    @pytest.mark.parametrize("suffix, lo, hi", [("*", 0, None), ("+", 1, None), ("?", 0, 1), ("{2,3}", 2, 3), ("{4}", 4, 4), ("{1}", 1, 1)])
    def test_quantifiers(self, suffix, lo, hi):
        assert Parser("a" + suffix).parse_repeat() == Repeat(a, lo, hi, True)

    @pytest.mark.parametrize("suffix, lo, hi", [("*?", 0, None), ("+?", 1, None), ("??", 0, 1), ("{2,}?", 2, None)])
    def test_lazy(self, suffix, lo, hi):
        assert Parser("a" + suffix).parse_repeat() == Repeat(a, lo, hi, False)

    def test_no_quantifier(self):
        p = Parser("ab")
        assert p.parse_repeat() == a
        assert p.pos == 1

    def test_quantified_class_and_escape(self):
        assert Parser(r"\d+").parse_repeat() == Repeat(CharClass(categories=("d",)), 1, None)
        assert Parser("[ab]*").parse_repeat() == Repeat(CharClass((("a", "a"), ("b", "b"))), 0, None)

    def test_brace_literal_after_atom(self):
        p = Parser("a{x}")
        assert p.parse_repeat() == a
        assert p.pos == 1

    def test_stops_after_quantifier(self):
        p = Parser("a+b")
        p.parse_repeat()
        assert p.pos == 2

    @pytest.mark.parametrize("pattern, pos", [("a**", 2), ("a+*", 2), ("a{2}{3}", 4), ("a*??", 3), ("a?+", 2), ("a{2}*", 4)])
    def test_multiple_repeat(self, pattern, pos):
        assert error_of(pattern, "parse_repeat") == ("multiple repeat", pos)

    @pytest.mark.parametrize("pattern, pos", [("^*", 1), ("$+", 1), (r"\b?", 2), ("^{2}", 1)])
    def test_anchor_cannot_repeat(self, pattern, pos):
        assert error_of(pattern, "parse_repeat") == ("nothing to repeat", pos)


class TestParseSequence:
    def test_concat(self):
        assert Parser("abc").parse_sequence() == Concat((a, b, c))

    def test_single_item(self):
        assert Parser("a*").parse_sequence() == Repeat(a, 0, None)

    def test_empty(self):
        assert Parser("").parse_sequence() == Empty()

    def test_stops_at_bar_and_paren(self):
        p = Parser("ab|c")
        assert p.parse_sequence() == Concat((a, b))
        assert p.pos == 2
        p = Parser("a)")
        assert p.parse_sequence() == a
        assert p.pos == 1
        assert Parser("|a").parse_sequence() == Empty()

    def test_mixed(self):
        assert Parser(r"^a.\d+$").parse_sequence() == Concat(
            (Anchor("^"), a, AnyChar(), Repeat(CharClass(categories=("d",)), 1, None), Anchor("$"))
        )

    def test_quantifier_binds_to_last_atom(self):
        assert Parser("ab*").parse_sequence() == Concat((a, Repeat(b, 0, None)))


class TestParseAlternation:
    def test_alternatives(self):
        assert Parser("a|b|c").parse_alternation() == Alternate((a, b, c))

    def test_no_bar(self):
        assert Parser("ab").parse_alternation() == Concat((a, b))

    def test_empty_alternatives(self):
        assert Parser("a|").parse_alternation() == Alternate((a, Empty()))
        assert Parser("|").parse_alternation() == Alternate((Empty(), Empty()))

    def test_sequences_bind_tighter(self):
        assert Parser("ab|c").parse_alternation() == Alternate((Concat((a, b)), c))

    def test_group(self):
        p = Parser("(a|b)c")
        assert p.parse_alternation() == Concat((Group(Alternate((a, b)), 1), c))
        assert p.group_count == 1

    def test_group_numbering_by_opening_parenthesis(self):
        assert Parser("((a)(b))").parse_alternation() == Group(Concat((Group(a, 2), Group(b, 3))), 1)

    def test_non_capturing_group(self):
        p = Parser("(?:ab)+(c)")
        assert p.parse_alternation() == Concat((Repeat(Group(Concat((a, b)), None), 1, None), Group(c, 1)))
        assert p.group_count == 1

    def test_empty_group(self):
        assert Parser("()").parse_alternation() == Group(Empty(), 1)

    def test_unterminated_group(self):
        assert error_of("a(b(c)", "parse_alternation") == ("missing ), unterminated subpattern", 1)

    def test_stops_at_unmatched_paren(self):
        p = Parser("a)b")
        assert p.parse_alternation() == a
        assert p.pos == 1


class TestParse:
    def test_result(self):
        assert parse(r"(\w+)@(\w+)") == (
            Concat((
                Group(Repeat(CharClass(categories=("w",)), 1, None), 1),
                Literal("@"),
                Group(Repeat(CharClass(categories=("w",)), 1, None), 2),
            )),
            2,
        )

    def test_empty_pattern(self):
        assert parse("") == (Empty(), 0)

    def test_unbalanced(self):
        with pytest.raises(RegexError) as info:
            parse("a)b")
        assert (info.value.msg, info.value.pos) == ("unbalanced parenthesis", 1)

    def test_error_string(self):
        with pytest.raises(RegexError) as info:
            parse("ab**")
        assert str(info.value) == "multiple repeat at position 3"
        assert info.value.pattern == "ab**"

    def test_regex_error_is_value_error(self):
        assert issubclass(RegexError, ValueError)
