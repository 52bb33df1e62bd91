import random

import pytest

from graphkit import (
    Graph,
    articulation_points,
    bridges,
    condensation,
    connected_components,
    strongly_connected_components,
)


def reach(g, s, skip_node=None, skip_edge=None):
    seen = {s}
    stack = [s]
    while stack:
        u = stack.pop()
        for v in g.neighbors(u):
            if v == skip_node or v in seen:
                continue
            if skip_edge is not None and {u, v} == set(skip_edge):
                continue
            seen.add(v)
            stack.append(v)
    return seen


def count_components(g, skip_node=None, skip_edge=None):
    seen = set()
    count = 0
    for n in g.nodes():
        if n == skip_node or n in seen:
            continue
        count += 1
        seen |= reach(g, n, skip_node, skip_edge)
    return count


def random_undirected(seed, n=12, m=14):
    rng = random.Random(seed)
    g = Graph()
    for i in range(n):
        g.add_node(i)
    for _ in range(m):
        u, v = rng.sample(range(n), 2)
        g.add_edge(u, v)
    return g


class TestConnectedComponents:
    def test_components_in_node_order(self):
        g = Graph.from_edges([(5, 1), (2, 3), (1, 4)], nodes=[3, 9])
        assert connected_components(g) == [[3, 2], [9], [5, 1, 4]]

    def test_directed_is_weak(self):
        g = Graph.from_edges([("a", "b"), ("c", "b"), ("d", "e")], directed=True)
        assert connected_components(g) == [["a", "b", "c"], ["d", "e"]]

    def test_empty(self):
        assert connected_components(Graph()) == []

    def test_long_path(self):
        g = Graph.from_edges([(i, i + 1) for i in range(5000)])
        assert connected_components(g) == [list(range(5001))]


class TestStronglyConnected:
    def test_classic(self):
        g = Graph.from_edges(
            [("a", "b"), ("b", "c"), ("c", "a"), ("b", "d"), ("d", "e"), ("e", "f"), ("f", "d"), ("g", "f"), ("g", "h"), ("h", "g")],
            directed=True,
        )
        assert strongly_connected_components(g) == [["a", "b", "c"], ["d", "e", "f"], ["g", "h"]]

    def test_dag_gives_singletons(self):
        g = Graph.from_edges([(3, 1), (1, 2), (3, 2)], directed=True)
        assert strongly_connected_components(g) == [[3], [1], [2]]

    def test_matches_mutual_reachability(self):
        rng = random.Random(5)
        g = Graph(directed=True)
        for i in range(15):
            g.add_node(i)
        for _ in range(25):
            g.add_edge(rng.randrange(15), rng.randrange(15))
        reachable = {n: reach(g, n) for n in g.nodes()}
        for comp in strongly_connected_components(g):
            for u in comp:
                assert {v for v in g.nodes() if v in reachable[u] and u in reachable[v]} == set(comp)

    def test_long_cycle_without_recursion(self):
        n = 5000
        g = Graph.from_edges([(i, (i + 1) % n) for i in range(n)] + [(n - 1, "tail")], directed=True)
        assert strongly_connected_components(g) == [list(range(n)), ["tail"]]

    def test_undirected_equals_connected(self):
        g = Graph.from_edges([(1, 2), (3, 4)], nodes=[0])
        assert strongly_connected_components(g) == [[0], [1, 2], [3, 4]]


class TestCondensation:
    def test_dag_of_components(self):
        g = Graph.from_edges(
            [("a", "b"), ("b", "a"), ("b", "c"), ("c", "d"), ("d", "c"), ("a", "d"), ("e", "a")],
            directed=True,
        )
        dag, comp = condensation(g)
        assert comp == {"a": 0, "b": 0, "c": 1, "d": 1, "e": 2}
        assert dag.nodes() == [0, 1, 2]
        assert dag.edges() == [(0, 1, 1), (2, 0, 1)]
        assert dag.directed

    def test_single_component_has_no_edges(self):
        g = Graph.from_edges([(1, 2), (2, 3), (3, 1)], directed=True)
        dag, comp = condensation(g)
        assert dag.nodes() == [0]
        assert dag.edges() == []
        assert set(comp.values()) == {0}

    def test_result_is_acyclic(self):
        rng = random.Random(9)
        g = Graph(directed=True)
        for _ in range(40):
            g.add_edge(rng.randrange(20), rng.randrange(20))
        dag, comp = condensation(g)
        assert len(comp) == len(g)
        for u, v, _ in dag.edges():
            assert u != v
            assert u not in reach(dag, v)


class TestBridges:
    def test_bridges_of_two_triangles(self):
        g = Graph.from_edges([(1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 6), (6, 4), (6, 7)])
        assert bridges(g) == [(3, 4, 1), (6, 7, 1)]

    def test_tree_all_edges_are_bridges(self):
        g = Graph.from_edges([("r", "a", 2), ("r", "b", 3), ("a", "c", 4)])
        assert bridges(g) == g.edges()

    def test_cycle_and_self_loop_have_none(self):
        g = Graph.from_edges([(1, 2), (2, 3), (3, 1), (2, 2)])
        assert bridges(g) == []

    @pytest.mark.parametrize("seed", range(4))
    def test_matches_brute_force(self, seed):
        g = random_undirected(seed)
        base = count_components(g)
        expected = [e for e in g.edges() if count_components(g, skip_edge=e[:2]) > base]
        assert bridges(g) == expected

    def test_long_path_without_recursion(self):
        g = Graph.from_edges([(i, i + 1) for i in range(4000)])
        assert len(bridges(g)) == 4000

    def test_directed_rejected(self):
        with pytest.raises(ValueError):
            bridges(Graph(directed=True))


class TestArticulationPoints:
    def test_two_triangles(self):
        g = Graph.from_edges([(1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 6), (6, 4), (6, 7)])
        assert articulation_points(g) == [3, 4, 6]

    def test_root_with_two_children(self):
        g = Graph.from_edges([("hub", "a"), ("hub", "b"), ("a", "x")])
        assert articulation_points(g) == ["hub", "a"]

    def test_cycle_has_none(self):
        g = Graph.from_edges([(i, (i + 1) % 5) for i in range(5)])
        assert articulation_points(g) == []

    @pytest.mark.parametrize("seed", range(4))
    def test_matches_brute_force(self, seed):
        g = random_undirected(seed + 10)
        base = count_components(g)
        expected = [n for n in g.nodes() if count_components(g, skip_node=n) > base]
        assert articulation_points(g) == expected

    def test_directed_rejected(self):
        with pytest.raises(ValueError):
            articulation_points(Graph(directed=True))
