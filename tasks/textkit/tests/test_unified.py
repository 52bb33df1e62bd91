import pytest

from textkit import Hunk, format_hunk_header, group_hunks, unified_diff

TEN = "".join(f"{w}\n" for w in "one two three four five six seven eight nine ten".split())


def _ops(spec):
    """'  a|- b|+ c' style helper: a list of (tag, text + newline)."""
    return [(item[0], item[1:] + "\n") for item in spec.split("|")]


class TestGroupHunks:
    def test_no_changes(self):
        assert group_hunks(_ops(" a| b")) == []
        assert group_hunks([]) == []

    def test_single_hunk_with_context(self):
        ops = _ops(" 1| 2| 3| 4|-5|+X| 6| 7| 8| 9")
        [h] = group_hunks(ops, context=2)
        assert (h.old_start, h.old_count, h.new_start, h.new_count) == (3, 5, 3, 5)
        assert h.lines == ops[2:8]

    def test_context_clipped_at_edges(self):
        ops = _ops("-1| 2| 3")
        [h] = group_hunks(ops, context=3)
        assert (h.old_start, h.old_count, h.new_start, h.new_count) == (1, 3, 1, 2)
        assert h.lines == ops

    def test_close_changes_share_a_hunk(self):
        ops = _ops("-a| 1| 2| 3| 4|+b")
        assert len(group_hunks(ops, context=2)) == 1

    def test_distant_changes_split(self):
        ops = _ops("-a| 1| 2| 3| 4| 5|+b")
        first, second = group_hunks(ops, context=2)
        assert (first.old_start, first.old_count, first.new_start, first.new_count) == (1, 3, 1, 2)
        assert first.lines == ops[:3]
        assert (second.old_start, second.old_count, second.new_start, second.new_count) == (5, 2, 4, 3)
        assert second.lines == ops[4:]

    def test_zero_context(self):
        ops = _ops(" 1|-2| 3|+4")
        first, second = group_hunks(ops, context=0)
        assert (first.old_start, first.old_count, first.new_start, first.new_count) == (2, 1, 1, 0)
        assert (second.old_start, second.old_count, second.new_start, second.new_count) == (3, 0, 3, 1)

    def test_empty_old_side_starts_at_zero(self):
        [h] = group_hunks(_ops("+a|+b"))
        assert (h.old_start, h.old_count, h.new_start, h.new_count) == (0, 0, 1, 2)

    def test_invalid(self):
        with pytest.raises(ValueError):
            group_hunks(_ops("-a"), context=-1)
        with pytest.raises(ValueError):
            group_hunks([("*", "a\n")])


class TestFormatHunkHeader:
    def test_counts(self):
        assert format_hunk_header(Hunk(3, 5, 3, 6)) == "@@ -3,5 +3,6 @@"

    def test_count_of_one_is_omitted(self):
        assert format_hunk_header(Hunk(7, 1, 7, 1)) == "@@ -7 +7 @@"
        assert format_hunk_header(Hunk(3, 1, 3, 2)) == "@@ -3 +3,2 @@"

    def test_empty_side(self):
        assert format_hunk_header(Hunk(0, 0, 1, 2)) == "@@ -0,0 +1,2 @@"
        assert format_hunk_header(Hunk(4, 2, 3, 0)) == "@@ -4,2 +3,0 @@"


class TestUnifiedDiff:
    def test_identical(self):
        assert unified_diff(TEN, TEN) == ""
        assert unified_diff("", "") == ""

    def test_two_hunks(self):
        new = TEN.replace("two", "TWO").replace("nine", "NINE")
        assert unified_diff(TEN, new, "old.txt", "new.txt", context=1) == (
            "--- old.txt\n"
            "+++ new.txt\n"
            "@@ -1,3 +1,3 @@\n"
            " one\n"
            "-two\n"
            "+TWO\n"
            " three\n"
            "@@ -8,3 +8,3 @@\n"
            " eight\n"
            "-nine\n"
            "+NINE\n"
            " ten\n"
        )

    def test_default_context_is_three(self):
        new = TEN.replace("five", "5")
        out = unified_diff(TEN, new)
        assert out.splitlines()[2] == "@@ -2,7 +2,7 @@"
        assert out.count("\n ") == 6

    def test_insertion_at_top_and_deletion_at_end(self):
        assert unified_diff("", "a\n") == "--- a\n+++ b\n@@ -0,0 +1 @@\n+a\n"
        assert unified_diff("a\nb\n", "a\n", context=0) == "--- a\n+++ b\n@@ -2 +1,0 @@\n-b\n"

    def test_missing_final_newline(self):
        assert unified_diff("x", "y") == (
            "--- a\n+++ b\n@@ -1 +1 @@\n"
            "-x\n\\ No newline at end of file\n"
            "+y\n\\ No newline at end of file\n"
        )

    def test_adding_final_newline_is_a_change(self):
        out = unified_diff("a\nb", "a\nb\n")
        assert out.endswith("-b\n\\ No newline at end of file\n+b\n")

    def test_only_newline_splits_lines(self):
        out = unified_diff("a\rb\n", "a\rc\n")
        assert "-a\rb\n+a\rc\n" in out

    def test_invalid_context(self):
        with pytest.raises(ValueError):
            unified_diff("a\n", "b\n", context=-2)
