"""The public API: compile() and the Pattern methods, end to end.

Expected values agree with Python's `re` module (with re.ASCII) except where
noted: tinyregex's `$` matches only at the very end of the text.
"""

import pytest

import tinyregex
from tinyregex import Match, Pattern, RegexError, compile


def spans(pattern, text, pos=0):
    return [m.span() for m in compile(pattern).finditer(text, pos)]


class TestCompile:
    def test_attributes(self):
        p = compile(r"(\w+)-(\d+)")
        assert isinstance(p, Pattern)
        assert p.pattern == r"(\w+)-(\d+)"
        assert p.groups == 2

    def test_cached(self):
        assert compile("abc+") is compile("abc+")

    def test_pattern_passthrough(self):
        p = compile("x")
        assert compile(p) is p

    def test_type_error(self):
        with pytest.raises(TypeError):
            compile(b"abc")

    @pytest.mark.parametrize("pattern, msg, pos", [
        ("a)", "unbalanced parenthesis", 1),
        ("(a", "missing ), unterminated subpattern", 0),
        ("[a", "unterminated character set", 0),
        ("a**", "multiple repeat", 2),
        ("*", "nothing to repeat", 0),
        (r"\q", r"bad escape \q", 0),
        ("a{3,1}", "min repeat greater than max repeat", 1),
    ])
    def test_errors(self, pattern, msg, pos):
        with pytest.raises(RegexError) as info:
            compile(pattern)
        assert (info.value.msg, info.value.pos) == (msg, pos)


class TestMatch:
    def test_literal(self):
        m = compile("abc").match("abcdef")
        assert isinstance(m, Match)
        assert m.span() == (0, 3) and m.group() == "abc"

    def test_must_start_at_pos(self):
        assert compile("abc").match("xabc") is None
        assert compile("b+").match("abbc", 1).span() == (1, 3)

    def test_caret_only_at_string_start(self):
        assert compile("^b").match("ab", 1) is None
        assert compile("^a").match("ab").span() == (0, 1)

    def test_greedy(self):
        assert compile("a+").match("aab").span() == (0, 2)
        assert compile("a.*b").match("axbxbx").group() == "axbxb"

    def test_lazy(self):
        assert compile("a.*?b").match("axbxbx").group() == "axb"
        assert compile("a+?").match("aaa").group() == "a"
        assert compile("a{2,4}?").match("aaaa").group() == "aa"

    def test_counted(self):
        assert compile("a{2,3}").match("aaaa").group() == "aaa"
        assert compile("a{2}").match("a") is None
        assert compile("(?:ab){2,}").match("abababx").group() == "ababab"
        assert compile("x{,2}").match("xxx").group() == "xx"

    def test_alternation_order(self):
        assert compile("a|ab").match("ab").group() == "a"
        assert compile("ab|a").match("ab").group() == "ab"

    def test_groups(self):
        m = compile(r"(\d+)-(\d+)").match("10-20x")
        assert m.groups() == ("10", "20")
        assert m.span(2) == (3, 5)

    def test_optional_group_not_taken(self):
        m = compile("(a)?b").match("b")
        assert m.span(1) == (-1, -1) and m.group(1) is None

    def test_group_in_loop_keeps_last_iteration(self):
        m = compile("(a|b)*").match("abba")
        assert m.span(1) == (3, 4)
        assert m.group(1) == "a"

    def test_nested_groups(self):
        m = compile(r"((\w)(\w))+").match("abcd")
        assert m.groups() == ("cd", "c", "d")

    def test_dot_excludes_newline(self):
        assert compile("a.c").match("a\nc") is None
        assert compile("a.c").match("a-c").group() == "a-c"

    def test_classes(self):
        assert compile("[a-c]+").match("abcd").group() == "abc"
        assert compile("[^a-c]+").match("xyzab").group() == "xyz"
        assert compile(r"\w+\s+\d+").match("abc_1  42!").group() == "abc_1  42"

    def test_empty_pattern(self):
        assert compile("").match("abc").span() == (0, 0)

    def test_pos_is_clamped(self):
        assert compile("").match("ab", 10).span() == (2, 2)
        assert compile("a").match("ab", -5).span() == (0, 1)

    def test_match_keeps_pattern_and_string(self):
        p = compile("b")
        m = p.match("b")
        assert m.re is p and m.string == "b"


class TestSearch:
    def test_finds_first(self):
        assert compile("b+").search("aabbbcbb").span() == (2, 5)

    def test_leftmost_wins_over_longer(self):
        assert compile("a|ab").search("xab").span() == (1, 2)
        assert compile("b|aaa").search("xaaab").span() == (1, 4)

    def test_word_boundary(self):
        assert compile(r"\bcat\b").search("concat cat").span() == (7, 10)
        assert compile(r"\Bcat").search("cat concat").span() == (7, 10)

    def test_dollar(self):
        assert compile("a$").search("aba").span() == (2, 3)
        assert compile(r"\d+$").search("a1b22").group() == "22"

    def test_dollar_only_at_very_end(self):
        # differs from Python's re, where $ also matches before a final newline
        assert compile("a$").search("a\n") is None

    def test_not_found(self):
        assert compile("z").search("abc") is None
        assert compile("^b").search("ab") is None

    def test_pos(self):
        assert compile("a").search("aXa", 1).span() == (2, 3)

    def test_empty_match(self):
        assert compile("x*").search("abc").span() == (0, 0)

    def test_email_like(self):
        m = compile(r"(\w+)@(\w+)\.com").search("mail bob@example.com now")
        assert m.group(0, 1, 2) == ("bob@example.com", "bob", "example")

    def test_no_catastrophic_backtracking(self):
        assert compile("(a|aa)*b").search("a" * 2000) is None
        assert compile("(a*)*c").search("a" * 2000) is None

    def test_module_level_helpers(self):
        assert tinyregex.search(r"\d", "ab3").group() == "3"
        assert tinyregex.match("a", "ba") is None


class TestFullmatch:
    def test_prefers_alternative_that_fits(self):
        assert compile("a|ab").fullmatch("ab").span() == (0, 2)

    def test_must_reach_end(self):
        assert compile("a+").fullmatch("aab") is None
        assert compile(r"\d{3}-\d{4}").fullmatch("555-1234").group() == "555-1234"
        assert compile(r"\d{3}-\d{4}").fullmatch("555-12345") is None

    def test_pos(self):
        assert compile("bc").fullmatch("abc", 1).span() == (1, 3)

    def test_groups(self):
        m = compile("(a*)(a*)").fullmatch("aaa")
        assert (m.span(1), m.span(2)) == ((0, 3), (3, 3))
        m = compile("(a*?)(a*)").fullmatch("aaa")
        assert (m.group(1), m.group(2)) == ("", "aaa")

    def test_lazy_extends_when_needed(self):
        assert compile("(a+?)").fullmatch("aaa").group(1) == "aaa"

    def test_empty(self):
        assert compile("a*").fullmatch("").span() == (0, 0)
        assert compile("a").fullmatch("") is None
        assert tinyregex.fullmatch("x?", "") is not None


class TestFinditer:
    def test_empty_matches_between(self):
        assert spans("a*", "baa") == [(0, 0), (1, 3), (3, 3)]

    def test_nonempty_after_empty_at_same_position(self):
        assert spans("a*|b", "b") == [(0, 0), (0, 1), (1, 1)]

    def test_simple(self):
        assert spans(r"\d+", "a1b22c333") == [(1, 2), (3, 5), (6, 9)]

    def test_non_overlapping(self):
        assert spans("aa", "aaaaa") == [(0, 2), (2, 4)]

    def test_start_position(self):
        assert spans("a", "aaa", 1) == [(1, 2), (2, 3)]

    def test_word_boundaries(self):
        assert spans(r"\b", "ab cd") == [(0, 0), (2, 2), (3, 3), (5, 5)]

    def test_empty_string(self):
        assert spans("x*", "") == [(0, 0)]
        assert spans("x", "") == []

    def test_is_lazy_iterator(self):
        it = compile("a").finditer("aaa")
        assert iter(it) is it
        assert next(it).span() == (0, 1)

    def test_yields_match_objects(self):
        groups = [m.groups() for m in compile(r"(\w)(\d)?").finditer("a1b")]
        assert groups == [("a", "1"), ("b", None)]


class TestFindall:
    def test_no_groups(self):
        assert compile(r"\d+").findall("a1b22c") == ["1", "22"]

    def test_one_group(self):
        assert compile(r"(\w)=\d").findall("a=1 b=2") == ["a", "b"]

    def test_several_groups(self):
        assert compile(r"(\w)=(\d)").findall("a=1, b=2") == [("a", "1"), ("b", "2")]

    def test_unset_groups_are_empty_strings(self):
        assert compile("(a)|(b)").findall("ab") == [("a", ""), ("", "b")]
        assert compile("(a)?b").findall("bab") == ["", "a"]

    def test_empty_matches(self):
        assert compile("x*").findall("ab") == ["", "", ""]
        assert compile(r"a*|b").findall("b") == ["", "b", ""]

    def test_non_capturing(self):
        assert compile("(?:ab)+").findall("ababxab") == ["abab", "ab"]

    def test_nothing(self):
        assert compile("z").findall("abc") == []

    def test_pos(self):
        assert compile(r"\w").findall("abc", 2) == ["c"]

    def test_module_level(self):
        assert tinyregex.findall(r"[aeiou]", "regular") == ["e", "u", "a"]


class TestSub:
    def test_empty_matches(self):
        assert compile("x*").sub("-", "abxd") == "-a-b--d-"

    def test_group_references(self):
        assert compile(r"(\w+)@(\w+)").sub(r"\2 at \1", "bob@home, al@work") == "home at bob, work at al"

    def test_whole_match_reference(self):
        assert compile(r"\d+").sub(r"<\g<0>>", "a1b22") == "a<1>b<22>"

    def test_count(self):
        assert compile("a").sub("b", "aaaa", count=2) == "bbaa"
        assert compile("a").sub("b", "aaaa", 0) == "bbbb"

    def test_callable(self):
        double = compile(r"\d+").sub(lambda m: str(int(m.group()) * 2), "3 apples, 10 pears")
        assert double == "6 apples, 20 pears"

    def test_no_match(self):
        assert compile("z").sub("y", "abc") == "abc"

    def test_negative_count(self):
        with pytest.raises(ValueError):
            compile("a").sub("b", "a", count=-1)

    def test_template_errors(self):
        with pytest.raises(RegexError, match="invalid group reference 2"):
            compile("(a)").sub(r"\2", "a")

    def test_module_level(self):
        assert tinyregex.sub(r"\s+", " ", "a  b \t c") == "a b c"
