import pytest

from structkit import UnionFind


class TestFind:
    def test_singletons_are_their_own_roots(self):
        uf = UnionFind(["a", "b", 3])
        assert uf.find("a") == "a"
        assert uf.find(3) == 3
        assert uf.count == 3

    def test_unknown_element_raises_key_error(self):
        uf = UnionFind([1, 2])
        with pytest.raises(KeyError):
            uf.find(99)

    def test_find_compresses_whole_path(self):
        uf = UnionFind(range(5))
        # hand-built chain 4 -> 3 -> 2 -> 1 -> 0 (not reachable with union by size)
        for child, parent in [(1, 0), (2, 1), (3, 2), (4, 3)]:
            uf._parent[child] = parent
        assert uf.find(4) == 0
        assert [uf.parent(x) for x in range(5)] == [0, 0, 0, 0, 0]

    def test_find_on_middle_of_path(self):
        uf = UnionFind("abcd")
        for child, parent in [("b", "a"), ("c", "b"), ("d", "c")]:
            uf._parent[child] = parent
        assert uf.find("c") == "a"
        assert uf.parent("c") == "a"
        assert uf.parent("b") == "a"
        assert uf.parent("d") == "c"  # not on the path, untouched


class TestUnion:
    def test_union_merges_and_reports(self):
        uf = UnionFind("abc")
        assert uf.union("a", "b") is True
        assert uf.union("b", "a") is False
        assert uf.count == 2
        assert uf.connected("a", "b")
        assert not uf.connected("a", "c")

    def test_tie_attaches_b_under_a(self):
        uf = UnionFind("xy")
        uf.union("x", "y")
        assert uf.parent("y") == "x"
        assert uf.parent("x") == "x"

    def test_smaller_set_goes_under_larger(self):
        uf = UnionFind("abcd")
        uf.union("b", "c")  # c under b, size 2
        uf.union("a", "b")  # a's set is smaller: a under b
        assert uf.parent("a") == "b"
        assert uf.find("d") == "d"
        assert uf.set_size("a") == 3

    def test_union_compresses_paths(self):
        uf = UnionFind("abcdef")
        uf.union("a", "b")
        uf.union("c", "d")
        uf.union("a", "c")  # tie: c under a, so d -> c -> a
        assert uf.parent("d") == "c"
        uf.union("e", "f")
        uf.union("d", "e")  # finds root of d, compressing d -> a
        assert uf.parent("d") == "a"
        assert uf.parent("e") == "a"

    def test_unknown_elements_raise(self):
        uf = UnionFind([1])
        with pytest.raises(KeyError):
            uf.union(1, 2)

    def test_many_unions(self):
        uf = UnionFind(range(100))
        for i in range(0, 100, 2):
            uf.union(i, i + 1)
        assert uf.count == 50
        for i in range(0, 98, 4):
            uf.union(i, i + 2)
        assert uf.count == 25
        assert uf.set_size(0) == 4
        assert uf.connected(97, 99)


class TestGroups:
    def test_groups_in_insertion_order(self):
        uf = UnionFind(["d", "a", "c", "b", "e"])
        uf.union("b", "d")
        uf.union("c", "e")
        assert uf.groups() == [["d", "b"], ["a"], ["c", "e"]]

    def test_all_singletons(self):
        assert UnionFind([3, 1, 2]).groups() == [[3], [1], [2]]

    def test_empty(self):
        assert UnionFind().groups() == []

    def test_added_elements_join_groups(self):
        uf = UnionFind([1, 2])
        uf.add(3)
        assert uf.add(3) is False
        uf.union(3, 1)
        assert uf.groups() == [[1, 3], [2]]
