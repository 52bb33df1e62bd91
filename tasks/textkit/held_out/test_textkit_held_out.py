"""Held-out tests of textkit: properties the documented behaviour implies, on seeded
random inputs. Never copied into the workspace; scored only by the scorer."""

import random

import pytest

from textkit import (
    apply_patch,
    dedent,
    hamming,
    indent,
    lcs_matches,
    levenshtein,
    myers_matches,
    similarity,
    unified_diff,
    wrap,
)

ALPHABET = "ab c\n"


def texts(seed: int, n: int = 12):
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 40))) for _ in range(n)]


def naive_levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


class TestDistanceHeldOut:
    @pytest.mark.parametrize("seed", range(4))
    def test_levenshtein_matches_the_textbook_recurrence(self, seed):
        words = texts(seed)
        for a, b in zip(words, reversed(words)):
            assert levenshtein(a, b) == naive_levenshtein(a, b)

    def test_levenshtein_is_a_metric(self):
        a, b, c = "kitten", "sitting", "fitting"
        assert levenshtein(a, a) == 0
        assert levenshtein(a, b) == levenshtein(b, a)
        assert levenshtein(a, c) <= levenshtein(a, b) + levenshtein(b, c)

    def test_levenshtein_on_lists(self):
        assert levenshtein([1, 2, 3], [1, 3]) == 1

    def test_hamming_and_similarity(self):
        assert hamming("karolin", "kathrin") == 3
        assert similarity("", "") == 1.0 and similarity("ab", "cd") == 0.0


class TestMatchingHeldOut:
    @pytest.mark.parametrize("seed", range(4))
    def test_lcs_and_myers_keep_equally_many_pairs(self, seed):
        words = texts(100 + seed)
        for a, b in zip(words, words[1:]):
            lcs, myers = lcs_matches(a, b), myers_matches(a, b)
            assert len(lcs) == len(myers)
            for pairs in (lcs, myers):
                assert all(a[i] == b[j] for i, j in pairs)
                assert all(p < q for p, q in zip(pairs, pairs[1:]))


class TestPatchHeldOut:
    @pytest.mark.parametrize("seed", range(4))
    def test_a_unified_diff_applies_back(self, seed):
        words = texts(200 + seed)
        for a, b in zip(words, words[1:]):
            assert apply_patch(a, unified_diff(a, b)) == b

    def test_no_change_is_an_empty_diff(self):
        assert unified_diff("x\ny\n", "x\ny\n") == ""


class TestLayoutHeldOut:
    def test_wrap_keeps_the_words_and_the_width(self):
        text = " ".join(f"w{i}" * (i % 5 + 1) for i in range(60))
        for width in (12, 25, 40):
            lines = wrap(text, width)
            assert all(len(line) <= width for line in lines)
            # Long words are cut, never lost: the characters stay, in order.
            assert "".join(lines).replace(" ", "") == text.replace(" ", "")
            assert all(line == line.strip() for line in lines)

    def test_indent_then_dedent_is_the_identity(self):
        text = "def f():\n    return 1\n"
        assert dedent(indent(text, "    ")) == text
