import pytest

from textkit import diff_lines, diff_words, render_word_diff


def _sides(ops):
    old = [x for tag, x in ops if tag != "+"]
    new = [x for tag, x in ops if tag != "-"]
    return old, new


class TestDiffLines:
    @pytest.mark.parametrize("algorithm", ["myers", "lcs"])
    def test_replacement(self, algorithm):
        assert diff_lines(["a", "b", "c"], ["a", "x", "c"], algorithm) == [
            (" ", "a"),
            ("-", "b"),
            ("+", "x"),
            (" ", "c"),
        ]

    @pytest.mark.parametrize("algorithm", ["myers", "lcs"])
    def test_insertion_and_deletion(self, algorithm):
        assert diff_lines(["a", "b"], ["a", "b", "c"], algorithm) == [(" ", "a"), (" ", "b"), ("+", "c")]
        assert diff_lines(["a", "b", "c"], ["b", "c"], algorithm) == [("-", "a"), (" ", "b"), (" ", "c")]

    def test_deletions_before_insertions(self):
        ops = diff_lines(["a", "b", "c"], ["x", "y", "c"])
        assert ops == [("-", "a"), ("-", "b"), ("+", "x"), ("+", "y"), (" ", "c")]

    def test_empty_sides(self):
        assert diff_lines([], []) == []
        assert diff_lines([], ["a", "b"]) == [("+", "a"), ("+", "b")]
        assert diff_lines(["a"], []) == [("-", "a")]

    @pytest.mark.parametrize("algorithm", ["myers", "lcs"])
    def test_sides_reconstruct_inputs(self, algorithm):
        a = "the cat sat on the mat with a hat".split()
        b = "a cat sat on my mat with the hat today".split()
        ops = diff_lines(a, b, algorithm)
        assert _sides(ops) == (a, b)
        assert sum(1 for tag, _ in ops if tag == " ") == 6

    def test_unknown_algorithm(self):
        with pytest.raises(ValueError):
            diff_lines(["a"], ["b"], "patience")


class TestDiffWords:
    def test_merges_runs(self):
        assert diff_words("the quick brown fox", "the quick red fox") == [
            (" ", "the quick"),
            ("-", "brown"),
            ("+", "red"),
            (" ", "fox"),
        ]

    def test_whitespace_differences_ignored(self):
        assert diff_words("a  b\nc", " a b c ") == [(" ", "a b c")]

    def test_multiple_words_changed(self):
        assert diff_words("one two three four", "one 2 3 four", "lcs") == [
            (" ", "one"),
            ("-", "two three"),
            ("+", "2 3"),
            (" ", "four"),
        ]

    def test_empty(self):
        assert diff_words("", "") == []
        assert diff_words("", "new words") == [("+", "new words")]

    def test_unknown_algorithm(self):
        with pytest.raises(ValueError):
            diff_words("a", "b", "nope")


class TestRenderWordDiff:
    def test_render(self):
        ops = [(" ", "the quick"), ("-", "brown"), ("+", "red"), (" ", "fox")]
        assert render_word_diff(ops) == "the quick [-brown-] {+red+} fox"

    def test_empty(self):
        assert render_word_diff([]) == ""

    def test_only_changes(self):
        assert render_word_diff([("-", "a b"), ("+", "c")]) == "[-a b-] {+c+}"

    def test_unknown_tag(self):
        with pytest.raises(ValueError):
            render_word_diff([("?", "x")])
