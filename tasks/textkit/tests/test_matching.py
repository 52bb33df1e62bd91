import random

import pytest

from textkit import lcs_matches, myers_matches


def _check_valid(a, b, pairs):
    assert all(a[i] == b[j] for i, j in pairs)
    for (i1, j1), (i2, j2) in zip(pairs, pairs[1:]):
        assert i1 < i2 and j1 < j2


def _lcs_length(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


CASES = [
    ("abcbdab", "bdcaba", 4),
    ("ABCABBA", "CBABAC", 4),
    ("", "abc", 0),
    ("abc", "", 0),
    ("abc", "abc", 3),
    ("abc", "xyz", 0),
]


class TestLcsMatches:
    @pytest.mark.parametrize("a, b, length", CASES)
    def test_length_and_validity(self, a, b, length):
        pairs = lcs_matches(a, b)
        assert len(pairs) == length
        _check_valid(a, b, pairs)

    def test_exact_pairs(self):
        assert lcs_matches("abc", "xbc") == [(1, 1), (2, 2)]
        assert lcs_matches("abc", "abc") == [(0, 0), (1, 1), (2, 2)]

    def test_tie_break_advances_in_a_first(self):
        # "ab" vs "ba": both "a" and "b" are longest; skipping a[0] first keeps "b".
        assert lcs_matches("ab", "ba") == [(1, 0)]

    def test_works_on_lists_of_lines(self):
        a = ["x\n", "y\n", "z\n"]
        b = ["y\n", "z\n", "w\n"]
        assert lcs_matches(a, b) == [(1, 0), (2, 1)]

    def test_random_sequences(self):
        rng = random.Random(7)
        for _ in range(200):
            a = [rng.choice("abc") for _ in range(rng.randint(0, 9))]
            b = [rng.choice("abc") for _ in range(rng.randint(0, 9))]
            pairs = lcs_matches(a, b)
            _check_valid(a, b, pairs)
            assert len(pairs) == _lcs_length(a, b)


class TestMyersMatches:
    @pytest.mark.parametrize("a, b, length", CASES)
    def test_length_and_validity(self, a, b, length):
        pairs = myers_matches(a, b)
        assert len(pairs) == length
        _check_valid(a, b, pairs)

    def test_exact_pairs(self):
        assert myers_matches("abc", "abd") == [(0, 0), (1, 1)]
        assert myers_matches("", "") == []

    def test_prefers_deletion_on_ties(self):
        # Deleting "a" first, then matching "b", then inserting "a".
        assert myers_matches("ab", "ba") == [(1, 0)]

    def test_edit_count_is_minimal(self):
        a, b = "ABCABBA", "CBABAC"
        pairs = myers_matches(a, b)
        assert len(a) + len(b) - 2 * len(pairs) == 5

    def test_random_sequences(self):
        rng = random.Random(11)
        for _ in range(200):
            a = [rng.choice("abcd") for _ in range(rng.randint(0, 10))]
            b = [rng.choice("abcd") for _ in range(rng.randint(0, 10))]
            pairs = myers_matches(a, b)
            _check_valid(a, b, pairs)
            assert len(pairs) == _lcs_length(a, b)

    def test_long_similar_sequences(self):
        a = [f"line {i}\n" for i in range(2000)]
        b = list(a)
        b[500] = "changed\n"
        del b[1500]
        pairs = myers_matches(a, b)
        assert len(pairs) == 1998
        _check_valid(a, b, pairs)
