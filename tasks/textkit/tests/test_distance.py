import pytest

from textkit import closest_matches, hamming, levenshtein, similarity


class TestLevenshtein:
    @pytest.mark.parametrize(
        "a, b, expected",
        [
            ("kitten", "sitting", 3),
            ("flaw", "lawn", 2),
            ("", "", 0),
            ("", "abc", 3),
            ("abc", "", 3),
            ("same", "same", 0),
            ("abc", "cab", 2),
            ("intention", "execution", 5),
        ],
    )
    def test_known_distances(self, a, b, expected):
        assert levenshtein(a, b) == expected

    def test_symmetric(self):
        assert levenshtein("sunday", "saturday") == levenshtein("saturday", "sunday") == 3

    def test_sequences_of_words(self):
        assert levenshtein("the cat sat".split(), "the dog sat down".split()) == 2


class TestHamming:
    def test_distance(self):
        assert hamming("karolin", "kathrin") == 3
        assert hamming([1, 0, 1], [1, 1, 1]) == 1

    def test_equal_and_empty(self):
        assert hamming("abc", "abc") == 0
        assert hamming("", "") == 0

    def test_length_mismatch(self):
        with pytest.raises(ValueError):
            hamming("abc", "ab")


class TestSimilarity:
    def test_values(self):
        assert similarity("abcd", "abed") == pytest.approx(0.75)
        assert similarity("abc", "xyz") == pytest.approx(0.0)
        assert similarity("kitten", "sitting") == pytest.approx(1 - 3 / 7)

    def test_identical_and_empty(self):
        assert similarity("same", "same") == 1.0
        assert similarity("", "") == 1.0
        assert similarity("", "abc") == 0.0


class TestClosestMatches:
    def test_ordered_by_distance(self):
        assert closest_matches("appl", ["ape", "apple", "peach"], n=2) == ["apple", "ape"]

    def test_ties_keep_input_order(self):
        assert closest_matches("cat", ["bat", "cut", "cart", "hat"], n=3) == ["bat", "cut", "cart"]

    def test_max_distance_filters(self):
        words = ["install", "uninstall", "list", "instal"]
        assert closest_matches("instll", words, n=5, max_distance=1) == ["install", "instal"]

    def test_n_zero_and_negative(self):
        assert closest_matches("a", ["a", "b"], n=0) == []
        with pytest.raises(ValueError):
            closest_matches("a", ["a"], n=-1)

    def test_accepts_any_iterable(self):
        assert closest_matches("ab", iter(["xx", "ab", "abc"]), n=1) == ["ab"]
