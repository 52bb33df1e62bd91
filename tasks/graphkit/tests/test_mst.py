import itertools
import random

import pytest

from graphkit import Graph, kruskal_mst, prim_mst


def components_count(nodes, edges):
    parent = {n: n for n in nodes}

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    count = len(nodes)
    for u, v, *_ in edges:
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
            count -= 1
    return count


def brute_force_msf_weight(g):
    edges = [e for e in g.edges() if e[0] != e[1]]
    target = components_count(g.nodes(), edges)
    k = len(g) - target
    best = None
    for combo in itertools.combinations(edges, k):
        if components_count(g.nodes(), combo) == target:
            w = sum(e[2] for e in combo)
            best = w if best is None else min(best, w)
    return best if best is not None else 0


def weighted_graph():
    return Graph.from_edges(
        [
            ("a", "b", 4),
            ("a", "h", 8),
            ("b", "c", 8),
            ("b", "h", 11),
            ("c", "d", 7),
            ("c", "f", 4),
            ("c", "i", 2),
            ("d", "e", 9),
            ("d", "f", 14),
            ("e", "f", 10),
            ("f", "g", 2),
            ("g", "h", 1),
            ("g", "i", 6),
            ("h", "i", 7),
        ]
    )


def random_graph(seed, n=7, m=12):
    rng = random.Random(seed)
    g = Graph()
    for i in range(n):
        g.add_node(i)
    while g.num_edges() < m:
        u, v = rng.sample(range(n), 2)
        g.add_edge(u, v, rng.randint(1, 9))
    return g


class TestKruskal:
    def test_classic_example(self):
        tree = kruskal_mst(weighted_graph())
        assert sum(w for _, _, w in tree) == 37
        assert len(tree) == 8
        # edges() lists h before g and c before f (node order)
        assert tree[:3] == [("h", "g", 1), ("c", "i", 2), ("f", "g", 2)]

    def test_edges_are_edges_of_graph_and_span(self):
        g = weighted_graph()
        tree = kruskal_mst(g)
        assert all(e in g.edges() for e in tree)
        assert components_count(g.nodes(), tree) == 1

    def test_tie_break_by_edge_order(self):
        g = Graph.from_edges([(1, 2, 1), (2, 3, 1), (1, 3, 1)])
        # edges() order is (1, 2), (1, 3), (2, 3)
        assert kruskal_mst(g) == [(1, 2, 1), (1, 3, 1)]

    def test_forest_and_self_loops(self):
        g = Graph.from_edges([(1, 2, 5), (3, 4, 1), (4, 4, 0)], nodes=[0])
        assert kruskal_mst(g) == [(3, 4, 1), (1, 2, 5)]

    @pytest.mark.parametrize("seed", range(5))
    def test_matches_brute_force(self, seed):
        g = random_graph(seed)
        assert sum(w for *_, w in kruskal_mst(g)) == brute_force_msf_weight(g)

    def test_directed_rejected(self):
        with pytest.raises(ValueError):
            kruskal_mst(Graph(directed=True))


class TestPrim:
    def test_classic_example(self):
        tree = prim_mst(weighted_graph())
        assert sum(w for _, _, w in tree) == 37
        assert tree[:4] == [("a", "b", 4), ("a", "h", 8), ("h", "g", 1), ("g", "f", 2)]

    def test_edges_oriented_from_tree(self):
        g = Graph.from_edges([(1, 2, 3), (2, 3, 1), (3, 4, 2)])
        assert prim_mst(g, start=4) == [(4, 3, 2), (3, 2, 1), (2, 1, 3)]

    def test_only_start_component(self):
        g = Graph.from_edges([(1, 2, 5), (3, 4, 1)])
        assert prim_mst(g) == [(1, 2, 5)]
        assert prim_mst(g, start=4) == [(4, 3, 1)]

    def test_tie_break_first_candidate(self):
        g = Graph.from_edges([("s", "x", 1), ("s", "y", 1), ("x", "y", 1)])
        assert prim_mst(g) == [("s", "x", 1), ("s", "y", 1)]

    @pytest.mark.parametrize("seed", range(5))
    def test_matches_brute_force_on_connected(self, seed):
        g = random_graph(seed + 100, n=6, m=11)
        if len(prim_mst(g)) == len(g) - 1:
            assert sum(w for *_, w in prim_mst(g)) == brute_force_msf_weight(g)
        else:
            assert components_count(g.nodes(), g.edges()) > 1

    def test_errors_and_empty(self):
        assert prim_mst(Graph()) == []
        with pytest.raises(KeyError):
            prim_mst(Graph.from_edges([(1, 2)]), start=3)
        with pytest.raises(ValueError):
            prim_mst(Graph.from_edges([(1, 2)], directed=True))
