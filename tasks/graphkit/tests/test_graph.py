import pytest

from graphkit import Graph


class TestGraphBasics:
    def test_nodes_and_neighbors_keep_insertion_order(self):
        g = Graph.from_edges([("b", "a"), ("b", "c"), ("a", "c", 5)])
        assert g.nodes() == ["b", "a", "c"]
        assert g.neighbors("b") == ["a", "c"]
        assert g.neighbors("c") == ["b", "a"]
        assert g.weight("c", "a") == 5

    def test_undirected_edges_listed_once(self):
        g = Graph.from_edges([(1, 2, 3), (2, 3), (3, 3, 7)])
        assert g.edges() == [(1, 2, 3), (2, 3, 1), (3, 3, 7)]
        assert g.num_edges() == 3

    def test_directed_edges(self):
        g = Graph.from_edges([(1, 2), (2, 1, 4)], directed=True)
        assert g.edges() == [(1, 2, 1), (2, 1, 4)]
        assert g.has_edge(2, 1)
        assert not Graph.from_edges([(1, 2)], directed=True).has_edge(2, 1)

    def test_readding_edge_replaces_weight(self):
        g = Graph(directed=True)
        g.add_edge("x", "y", 1)
        g.add_edge("x", "z", 1)
        g.add_edge("x", "y", 9)
        assert g.neighbors("x") == ["y", "z"]
        assert g.weight("x", "y") == 9

    def test_unknown_lookups(self):
        g = Graph.from_edges([(1, 2)], nodes=[0])
        assert g.nodes() == [0, 1, 2]
        with pytest.raises(KeyError):
            g.neighbors(9)
        with pytest.raises(KeyError):
            g.weight(0, 1)
        with pytest.raises(ValueError):
            Graph.from_edges([(1,)])


class TestReversed:
    def test_reverses_directed_edges(self):
        g = Graph.from_edges([("a", "b", 2), ("a", "c", 3), ("c", "b", 1)], directed=True)
        r = g.reversed()
        assert r.directed
        assert r.nodes() == ["a", "b", "c"]
        assert sorted(r.edges()) == [("b", "a", 2), ("b", "c", 1), ("c", "a", 3)]
        assert r.neighbors("b") == ["a", "c"]
        assert r.neighbors("a") == []

    def test_original_unchanged(self):
        g = Graph.from_edges([(1, 2)], directed=True)
        g.reversed()
        assert g.edges() == [(1, 2, 1)]

    def test_isolated_nodes_kept(self):
        g = Graph.from_edges([(1, 2)], directed=True, nodes=["lonely"])
        assert g.reversed().nodes() == ["lonely", 1, 2]

    def test_undirected_copy_is_independent(self):
        g = Graph.from_edges([(1, 2), (2, 3)])
        r = g.reversed()
        assert r.edges() == g.edges()
        assert not r.directed
        r.add_edge(3, 4)
        assert 4 not in g

    def test_antiparallel_edges_swap(self):
        g = Graph.from_edges([(1, 2, 5), (2, 1, 7)], directed=True)
        r = g.reversed()
        assert r.weight(2, 1) == 5
        assert r.weight(1, 2) == 7
