import pytest

from graphkit import Graph, bfs, bfs_layers, dfs


def tree():
    #        1
    #      /   \
    #     2     3
    #    / \     \
    #   4   5     6
    return Graph.from_edges([(1, 2), (1, 3), (2, 4), (2, 5), (3, 6)])


class TestBfs:
    def test_level_order(self):
        assert bfs(tree(), 1) == [1, 2, 3, 4, 5, 6]

    def test_from_inner_node(self):
        assert bfs(tree(), 2) == [2, 1, 4, 5, 3, 6]

    def test_directed_reachability_only(self):
        g = Graph.from_edges([("a", "b"), ("c", "a"), ("b", "d")], directed=True)
        assert bfs(g, "a") == ["a", "b", "d"]
        assert bfs(g, "d") == ["d"]

    def test_cycle_and_diamond(self):
        g = Graph.from_edges([(0, 1), (0, 2), (1, 3), (2, 3), (3, 0)], directed=True)
        assert bfs(g, 0) == [0, 1, 2, 3]

    def test_unknown_start(self):
        with pytest.raises(KeyError):
            bfs(tree(), 42)


class TestDfs:
    def test_preorder(self):
        assert dfs(tree(), 1) == [1, 2, 4, 5, 3, 6]

    def test_differs_from_bfs_on_diamond(self):
        g = Graph.from_edges([("s", "a"), ("s", "b"), ("a", "c"), ("b", "c"), ("c", "d")])
        assert dfs(g, "s") == ["s", "a", "c", "b", "d"]

    def test_directed(self):
        g = Graph.from_edges([(1, 2), (2, 3), (3, 1), (1, 4)], directed=True)
        assert dfs(g, 1) == [1, 2, 3, 4]
        assert dfs(g, 4) == [4]

    def test_deep_path_does_not_recurse(self):
        n = 20_000
        g = Graph.from_edges([(i, i + 1) for i in range(n)], directed=True)
        assert dfs(g, 0) == list(range(n + 1))

    def test_unknown_start(self):
        with pytest.raises(KeyError):
            dfs(Graph(), "x")


class TestBfsLayers:
    def test_layers_of_tree(self):
        assert bfs_layers(tree(), 1) == [[1], [2, 3], [4, 5, 6]]

    def test_weights_ignored(self):
        g = Graph.from_edges([("a", "b", 100), ("a", "c", 1), ("c", "b", 1)], directed=True)
        assert bfs_layers(g, "a") == [["a"], ["b", "c"]]

    def test_single_node(self):
        g = Graph()
        g.add_node("x")
        assert bfs_layers(g, "x") == [["x"]]

    def test_cycle(self):
        g = Graph.from_edges([(i, (i + 1) % 6) for i in range(6)])
        assert bfs_layers(g, 0) == [[0], [1, 5], [2, 4], [3]]

    def test_unknown_start(self):
        with pytest.raises(KeyError):
            bfs_layers(tree(), 0)
