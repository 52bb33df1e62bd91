import pytest

from structkit import Trie


class TestInsert:
    def test_insert_new_and_duplicate(self):
        t = Trie()
        assert t.insert("cat") is True
        assert t.insert("cat") is False
        assert len(t) == 1

    def test_shared_prefixes_share_nodes(self):
        t = Trie()
        t.insert("car")
        assert t.node_count() == 4
        t.insert("cart")
        assert t.node_count() == 5
        t.insert("care")
        assert t.node_count() == 6
        assert len(t) == 3

    def test_prefix_of_existing_word_is_new_word(self):
        t = Trie(["cart"])
        assert t.insert("car") is True
        assert t.node_count() == 5
        assert len(t) == 2

    def test_empty_string(self):
        t = Trie()
        assert t.insert("") is True
        assert t.insert("") is False
        assert len(t) == 1
        assert t.node_count() == 1

    def test_rejects_non_strings(self):
        with pytest.raises(TypeError):
            Trie().insert(42)


class TestContains:
    def test_words_and_prefixes(self):
        t = Trie(["car", "cart"])
        assert "car" in t
        assert "cart" in t
        assert "ca" not in t
        assert "carts" not in t
        assert "" not in t

    def test_non_string_is_not_contained(self):
        t = Trie(["1"])
        assert 1 not in t
        assert None not in t

    def test_unicode(self):
        t = Trie(["naïve", "日本"])
        assert "naïve" in t
        assert "日本" in t
        assert "日" not in t


class TestKeysWithPrefix:
    def test_sorted_results(self):
        t = Trie(["cart", "dog", "car", "care", "cat"])
        assert t.keys_with_prefix("car") == ["car", "care", "cart"]
        assert t.keys_with_prefix("ca") == ["car", "care", "cart", "cat"]

    def test_empty_prefix_lists_everything(self):
        words = ["b", "a", "ab", ""]
        assert Trie(words).keys_with_prefix("") == ["", "a", "ab", "b"]

    def test_no_match(self):
        t = Trie(["alpha"])
        assert t.keys_with_prefix("b") == []
        assert t.keys_with_prefix("alphabet") == []

    def test_prefix_that_is_not_a_word(self):
        assert Trie(["abc", "abd"]).keys_with_prefix("ab") == ["abc", "abd"]


class TestLongestPrefixOf:
    def test_longest_match(self):
        t = Trie(["a", "car", "cart", "carton"])
        assert t.longest_prefix_of("cartons") == "carton"
        assert t.longest_prefix_of("carts") == "cart"
        assert t.longest_prefix_of("cat") is None
        assert t.longest_prefix_of("apple") == "a"

    def test_whole_text(self):
        assert Trie(["abc"]).longest_prefix_of("abc") == "abc"

    def test_empty_word_matches_everything(self):
        t = Trie(["", "xy"])
        assert t.longest_prefix_of("q") == ""
        assert t.longest_prefix_of("") == ""
        assert t.longest_prefix_of("xyz") == "xy"

    def test_no_words(self):
        assert Trie().longest_prefix_of("anything") is None


class TestRemove:
    # membership is observed through insert()'s return value, len() and node_count()
    def test_remove_leaf_word_prunes_nodes(self):
        t = Trie(["car", "cart"])
        t.remove("cart")
        assert len(t) == 1
        assert t.node_count() == 4
        assert t.insert("car") is False
        assert t.insert("cart") is True

    def test_remove_prefix_word_keeps_extension(self):
        t = Trie(["car", "cart"])
        t.remove("car")
        assert len(t) == 1
        assert t.node_count() == 5
        assert t.insert("cart") is False
        assert t.insert("car") is True

    def test_remove_everything_leaves_root(self):
        words = ["a", "ab", "abc", "b", ""]
        t = Trie(words)
        for w in words:
            t.remove(w)
        assert len(t) == 0
        assert t.node_count() == 1

    def test_missing_word_raises_key_error(self):
        t = Trie(["cart"])
        with pytest.raises(KeyError):
            t.remove("car")
        with pytest.raises(KeyError):
            t.remove("dog")
        with pytest.raises(KeyError):
            t.remove("carts")
        assert len(t) == 1
        assert t.node_count() == 5

    def test_branch_pruned_only_up_to_fork(self):
        t = Trie(["team", "tea", "ten"])
        t.remove("team")
        assert t.node_count() == 5  # root, t, e, a, n
        assert len(t) == 2
        assert t.insert("tea") is False
        assert t.insert("ten") is False

    def test_remove_twice_raises(self):
        t = Trie(["x"])
        t.remove("x")
        with pytest.raises(KeyError):
            t.remove("x")
