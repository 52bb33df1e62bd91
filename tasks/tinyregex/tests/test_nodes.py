"""CharClass.matches: membership in character sets."""

import pytest

from tinyregex.nodes import CharClass


class TestCharClassMatches:
    def test_single_characters(self):
        cls = CharClass((("a", "a"), ("x", "x")))
        assert cls.matches("a") and cls.matches("x")
        assert not cls.matches("b")

    def test_range_is_inclusive(self):
        cls = CharClass((("b", "d"),))
        assert [c for c in "abcde" if cls.matches(c)] == ["b", "c", "d"]

    def test_several_ranges(self):
        cls = CharClass((("a", "c"), ("0", "2")))
        assert [c for c in "ab0z39" if cls.matches(c)] == ["a", "b", "0"]

    def test_negated(self):
        cls = CharClass((("a", "c"),), negated=True)
        assert not cls.matches("b")
        assert cls.matches("z")
        assert cls.matches("\n")

    def test_empty_class_matches_nothing(self):
        assert not CharClass().matches("a")
        assert CharClass(negated=True).matches("a")

    @pytest.mark.parametrize("ch, expected", [("0", True), ("9", True), ("a", False), ("\u0663", False), ("²", False)])
    def test_digit_category(self, ch, expected):
        assert CharClass(categories=("d",)).matches(ch) is expected
        assert CharClass(categories=("D",)).matches(ch) is (not expected)

    @pytest.mark.parametrize("ch, expected", [("a", True), ("Z", True), ("5", True), ("_", True), ("-", False), (" ", False), ("é", False)])
    def test_word_category(self, ch, expected):
        assert CharClass(categories=("w",)).matches(ch) is expected
        assert CharClass(categories=("W",)).matches(ch) is (not expected)

    @pytest.mark.parametrize("ch", [" ", "\t", "\n", "\r", "\f", "\v"])
    def test_space_category(self, ch):
        assert CharClass(categories=("s",)).matches(ch)
        assert not CharClass(categories=("S",)).matches(ch)

    def test_non_space(self):
        assert CharClass(categories=("s",)).matches("x") is False
        assert CharClass(categories=("s",)).matches("\u00a0") is False

    def test_ranges_and_categories_combined(self):
        cls = CharClass((("x", "x"),), ("d",))
        assert cls.matches("x") and cls.matches("7") and not cls.matches("y")

    def test_negated_with_negated_category(self):
        # [^\W_] is "word characters except underscore"
        cls = CharClass((("_", "_"),), ("W",), negated=True)
        assert [c for c in "a_1-" if cls.matches(c)] == ["a", "1"]
