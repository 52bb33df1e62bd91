import random

import pytest

from textkit import Hunk, PatchError, apply_patch, parse_patch, unified_diff

TEN = "".join(f"{w}\n" for w in "one two three four five six seven eight nine ten".split())

TWO_HUNKS = (
    "--- old.txt\n"
    "+++ new.txt\n"
    "@@ -1,3 +1,3 @@\n"
    " one\n"
    "-two\n"
    "+TWO\n"
    " three\n"
    "@@ -8,3 +8,4 @@\n"
    " eight\n"
    "-nine\n"
    "+NINE\n"
    "+NINE AND A HALF\n"
    " ten\n"
)


class TestParsePatch:
    def test_two_hunks(self):
        first, second = parse_patch(TWO_HUNKS)
        assert first == Hunk(1, 3, 1, 3, [(" ", "one\n"), ("-", "two\n"), ("+", "TWO\n"), (" ", "three\n")])
        assert (second.old_start, second.old_count, second.new_start, second.new_count) == (8, 3, 8, 4)
        assert second.lines[-1] == (" ", "ten\n")

    def test_default_count_is_one(self):
        [h] = parse_patch("@@ -2 +2 @@\n-b\n+c\n")
        assert (h.old_start, h.old_count, h.new_start, h.new_count) == (2, 1, 2, 1)

    def test_text_after_header_ignored(self):
        [h] = parse_patch("@@ -1 +1 @@ def main():\n-a\n+b\n")
        assert h.lines == [("-", "a\n"), ("+", "b\n")]

    def test_no_newline_marker(self):
        [h] = parse_patch("@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n")
        assert h.lines == [("-", "x"), ("+", "y")]

    def test_bare_newline_is_empty_context_line(self):
        [h] = parse_patch("@@ -1,2 +1,2 @@\n\n-a\n+b\n")
        assert h.lines == [(" ", "\n"), ("-", "a\n"), ("+", "b\n")]

    def test_last_line_without_newline(self):
        [h] = parse_patch("@@ -1 +1 @@\n-a\n+b")
        assert h.lines == [("-", "a\n"), ("+", "b\n")]

    def test_no_hunks(self):
        assert parse_patch("") == []
        assert parse_patch("--- a\n+++ b\n") == []

    @pytest.mark.parametrize(
        "patch",
        [
            "@@ -1 +1\n-a\n+b\n",  # malformed header
            "@@ -1,2 +1,2 @@\n-a\n+b\n",  # truncated
            "@@ -1 +1 @@\n-a\n-b\n+c\n",  # more old lines than announced
            "@@ -1 +1 @@\n*a\n+b\n",  # unknown tag
            "@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+b\n",  # marker first
        ],
    )
    def test_malformed(self, patch):
        with pytest.raises(PatchError):
            parse_patch(patch)

    def test_error_names_line_number(self):
        with pytest.raises(PatchError, match="line 4"):
            parse_patch("--- a\n+++ b\n@@ -1 +1 @@\n?a\n")

    def test_patch_error_is_value_error(self):
        assert issubclass(PatchError, ValueError)


class TestApplyPatch:
    def test_apply_two_hunks(self):
        new = TEN.replace("two", "TWO").replace("nine", "NINE\nNINE AND A HALF")
        assert apply_patch(TEN, TWO_HUNKS) == new

    def test_simple(self):
        assert apply_patch("a\nb\n", "@@ -2 +2 @@\n-b\n+c\n") == "a\nc\n"

    def test_insert_at_top_and_after_line(self):
        assert apply_patch("a\nb\n", "@@ -0,0 +1 @@\n+top\n") == "top\na\nb\n"
        assert apply_patch("a\nb\n", "@@ -1,0 +2 @@\n+mid\n") == "a\nmid\nb\n"

    def test_delete_everything(self):
        assert apply_patch("a\nb\n", "@@ -1,2 +0,0 @@\n-a\n-b\n") == ""

    def test_no_newline_at_end(self):
        patch = "@@ -1 +1 @@\n-x\n+y\n\\ No newline at end of file\n"
        assert apply_patch("x\n", patch) == "y"

    def test_empty_patch_returns_original(self):
        assert apply_patch(TEN, "") == TEN

    def test_mismatch(self):
        with pytest.raises(PatchError, match="hunk 2"):
            apply_patch(TEN.replace("nine", "NEUN"), TWO_HUNKS)

    def test_beyond_end(self):
        with pytest.raises(PatchError):
            apply_patch("a\n", "@@ -5,0 +6 @@\n+z\n")

    def test_overlapping_hunks(self):
        patch = "@@ -2 +2 @@\n-b\n+B\n@@ -1 +1 @@\n-a\n+A\n"
        with pytest.raises(PatchError):
            apply_patch("a\nb\n", patch)

    def test_newlines_must_match(self):
        with pytest.raises(PatchError):
            apply_patch("a", "@@ -1 +1 @@\n-a\n+b\n")


class TestRoundTrip:
    def test_unified_diff_then_apply(self):
        new = TEN.replace("three", "3").replace("seven\n", "")
        assert apply_patch(TEN, unified_diff(TEN, new)) == new

    def test_random_texts(self):
        rng = random.Random(3)
        for _ in range(150):
            a = "".join(rng.choice("abcd") + "\n" for _ in range(rng.randint(0, 15)))
            b = "".join(rng.choice("abcd") + "\n" for _ in range(rng.randint(0, 15)))
            a += rng.choice(["", "tail"])
            b += rng.choice(["", "tail", "end"])
            for context in (0, 1, 3):
                assert apply_patch(a, unified_diff(a, b, context=context)) == b
