import pytest

from textkit import fill, justify, wrap

LOREM = "The quick brown fox jumps over the lazy dog and keeps running far away"


class TestWrap:
    def test_greedy_fill(self):
        assert wrap("The quick brown fox", 10) == ["The quick", "brown fox"]

    def test_lines_never_exceed_width(self):
        for width in range(7, 30):
            lines = wrap(LOREM, width)
            assert all(len(line) <= width for line in lines)
            assert " ".join(lines).split() == LOREM.split()

    def test_exact_fit(self):
        assert wrap("aaa bbb", 7) == ["aaa bbb"]
        assert wrap("aaa bbb", 6) == ["aaa", "bbb"]

    def test_whitespace_is_collapsed(self):
        assert wrap("  one\t two\n\nthree   ", 20) == ["one two three"]

    def test_empty_text(self):
        assert wrap("", 10) == []
        assert wrap(" \n\t ", 10) == []

    def test_indents(self):
        lines = wrap("one two three four", 10, initial_indent="* ", subsequent_indent="  ")
        assert lines == ["* one two", "  three", "  four"]

    def test_indent_counts_towards_width(self):
        assert wrap("ab cd", 6, initial_indent="--") == ["--ab", "cd"]

    def test_break_long_word(self):
        assert wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"]

    def test_break_long_word_finishes_current_line_first(self):
        assert wrap("xy abcdefgh", 5) == ["xy", "abcde", "fgh"]

    def test_remainder_of_long_word_can_take_more_words(self):
        assert wrap("supercalifragilistic is long", 8) == ["supercal", "ifragili", "stic is", "long"]

    def test_no_break_long_words(self):
        assert wrap("a supercalifragilistic b", 8, break_long_words=False) == [
            "a",
            "supercalifragilistic",
            "b",
        ]

    def test_break_uses_room_after_indent(self):
        assert wrap("abcdefg", 5, initial_indent="> ", subsequent_indent="> ") == [
            "> abc",
            "> def",
            "> g",
        ]

    @pytest.mark.parametrize("kwargs", [{"width": 0}, {"width": -3}, {"width": 3, "initial_indent": "   "}, {"width": 4, "subsequent_indent": "xxxxx"}])
    def test_invalid_arguments(self, kwargs):
        with pytest.raises(ValueError):
            wrap("some text", **kwargs)


class TestFill:
    def test_single_paragraph(self):
        assert fill("The quick brown fox", 10) == "The quick\nbrown fox"

    def test_paragraphs_separated_by_one_blank_line(self):
        text = "one two three\nfour\n\n\n  \nfive six"
        assert fill(text, 9) == "one two\nthree\nfour\n\nfive six"

    def test_indent_applies_to_each_paragraph(self):
        text = "aa bb cc\n\ndd ee"
        assert fill(text, 6, initial_indent="> ", subsequent_indent="  ") == "> aa\n  bb\n  cc\n\n> dd\n  ee"

    def test_no_trailing_newline_and_empty_text(self):
        assert fill("word\n", 10) == "word"
        assert fill("\n\n  \n", 10) == ""

    def test_break_long_words_option(self):
        assert fill("abcdefgh", 4) == "abcd\nefgh"
        assert fill("abcdefgh", 4, break_long_words=False) == "abcdefgh"

    def test_invalid_width(self):
        with pytest.raises(ValueError):
            fill("text", 0)


class TestJustify:
    def test_gaps_are_widened(self):
        assert justify("a bb ccc dddd eeeee", 10) == ["a  bb  ccc", "dddd eeeee"]

    def test_extra_spaces_go_left_first(self):
        lines = justify("aa b c dddddddddd", 9)
        assert lines == ["aa   b  c", "ddddddddd", "d"]

    def test_all_but_last_line_have_full_width(self):
        lines = justify(LOREM, 16)
        assert all(len(line) == 16 for line in lines[:-1] if " " in line)
        assert lines[-1] == " ".join(lines[-1].split())
        assert " ".join(" ".join(lines).split()) == LOREM

    def test_single_word_lines_not_padded(self):
        assert justify("hello wonderful world", 10) == ["hello", "wonderful", "world"]

    def test_empty(self):
        assert justify("", 10) == []

    def test_invalid_width(self):
        with pytest.raises(ValueError):
            justify("text", 0)
