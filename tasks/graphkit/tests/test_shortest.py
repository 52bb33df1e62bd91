import math

import pytest

from graphkit import (
    Graph,
    NegativeCycleError,
    NoPathError,
    bellman_ford,
    dijkstra,
    floyd_warshall,
    reconstruct_path,
    shortest_path,
)


def city_graph():
    return Graph.from_edges(
        [
            ("A", "B", 4),
            ("A", "C", 2),
            ("C", "B", 1),
            ("B", "D", 5),
            ("C", "D", 8),
            ("C", "E", 10),
            ("D", "E", 2),
            ("D", "F", 6),
            ("E", "F", 2),
        ],
        directed=True,
    )


class TestDijkstra:
    def test_distances(self):
        dist, _ = dijkstra(city_graph(), "A")
        assert dist == {"A": 0, "B": 3, "C": 2, "D": 8, "E": 10, "F": 12}

    def test_predecessors(self):
        _, prev = dijkstra(city_graph(), "A")
        assert prev == {"C": "A", "B": "C", "D": "B", "E": "D", "F": "E"}

    def test_unreachable_nodes_absent(self):
        g = city_graph()
        g.add_node("Z")
        dist, prev = dijkstra(g, "D")
        assert dist == {"D": 0, "E": 2, "F": 4}
        assert "Z" not in dist and "A" not in prev

    def test_equal_paths_keep_first_predecessor(self):
        g = Graph.from_edges([("s", "a", 1), ("s", "b", 1), ("a", "t", 1), ("b", "t", 1)])
        _, prev = dijkstra(g, "s")
        assert prev["t"] == "a"

    def test_undirected_and_zero_weights(self):
        g = Graph.from_edges([(1, 2, 0), (2, 3, 5), (1, 3, 7)])
        dist, prev = dijkstra(g, 3)
        assert dist == {3: 0, 1: 5, 2: 5}
        assert prev == {2: 3, 1: 2}

    def test_negative_weight_rejected(self):
        g = Graph.from_edges([(1, 2, 3), (3, 4, -1)], directed=True)
        with pytest.raises(ValueError):
            dijkstra(g, 1)

    def test_unknown_source(self):
        with pytest.raises(KeyError):
            dijkstra(city_graph(), "nowhere")

    def test_float_weights(self):
        g = Graph.from_edges([("a", "b", 0.5), ("b", "c", 0.25), ("a", "c", 1.0)])
        dist, _ = dijkstra(g, "a")
        assert dist["c"] == pytest.approx(0.75)


class TestReconstructPath:
    def test_follows_predecessors(self):
        prev = {"b": "a", "c": "b", "d": "c", "x": "a"}
        assert reconstruct_path(prev, "a", "d") == ["a", "b", "c", "d"]
        assert reconstruct_path(prev, "a", "x") == ["a", "x"]

    def test_source_equals_target(self):
        assert reconstruct_path({}, 7, 7) == [7]

    def test_missing_chain_raises_no_path(self):
        with pytest.raises(NoPathError) as info:
            reconstruct_path({"b": "a"}, "a", "z")
        assert info.value.source == "a" and info.value.target == "z"
        assert isinstance(info.value, LookupError)

    def test_chain_ending_elsewhere(self):
        with pytest.raises(NoPathError):
            reconstruct_path({"c": "b"}, "a", "c")

    def test_looping_chain(self):
        with pytest.raises(ValueError):
            reconstruct_path({"b": "c", "c": "b"}, "a", "b")


class TestShortestPath:
    def test_cost_and_path(self):
        assert shortest_path(city_graph(), "A", "F") == (12, ["A", "C", "B", "D", "E", "F"])

    def test_trivial_path(self):
        assert shortest_path(city_graph(), "B", "B") == (0, ["B"])

    def test_unreachable(self):
        with pytest.raises(NoPathError):
            shortest_path(city_graph(), "F", "A")

    def test_unknown_target(self):
        with pytest.raises(KeyError):
            shortest_path(city_graph(), "A", "Q")


class TestBellmanFord:
    def test_negative_edges(self):
        g = Graph.from_edges(
            [("s", "a", 4), ("s", "b", 5), ("b", "a", -3), ("a", "c", 2), ("c", "d", -1)], directed=True
        )
        dist, prev = bellman_ford(g, "s")
        assert dist == {"s": 0, "a": 2, "b": 5, "c": 4, "d": 3}
        assert prev == {"a": "b", "b": "s", "c": "a", "d": "c"}

    def test_matches_dijkstra_distances_on_positive_graph(self):
        dist, _ = bellman_ford(city_graph(), "A")
        assert dist == {"A": 0, "B": 3, "C": 2, "D": 8, "E": 10, "F": 12}

    def test_negative_cycle_detected(self):
        g = Graph.from_edges([(1, 2, 1), (2, 3, -2), (3, 2, 1), (3, 4, 1)], directed=True)
        with pytest.raises(NegativeCycleError):
            bellman_ford(g, 1)

    def test_unreachable_negative_cycle_ignored(self):
        g = Graph.from_edges([(1, 2, 1), (3, 4, -2), (4, 3, 1)], directed=True)
        dist, _ = bellman_ford(g, 1)
        assert dist == {1: 0, 2: 1}

    def test_undirected_negative_edge_is_cycle(self):
        g = Graph.from_edges([(1, 2, 2), (2, 3, -1)])
        with pytest.raises(NegativeCycleError):
            bellman_ford(g, 1)

    def test_undirected_positive(self):
        g = Graph.from_edges([(1, 2, 2), (2, 3, 1), (1, 3, 5)])
        dist, prev = bellman_ford(g, 3)
        assert dist == {3: 0, 2: 1, 1: 3}
        assert prev == {2: 3, 1: 2}

    def test_unknown_source(self):
        with pytest.raises(KeyError):
            bellman_ford(Graph(directed=True), 0)


class TestFloydWarshall:
    def test_all_pairs(self):
        g = Graph.from_edges([(1, 2, 3), (2, 3, -1), (1, 3, 5), (3, 1, 2)], directed=True)
        d = floyd_warshall(g)
        assert d[1] == {1: 0, 2: 3, 3: 2}
        assert d[2] == {1: 1, 2: 0, 3: -1}
        assert d[3] == {1: 2, 2: 5, 3: 0}

    def test_unreachable_is_inf(self):
        g = Graph.from_edges([("a", "b", 1)], directed=True, nodes=["c"])
        d = floyd_warshall(g)
        assert d["b"]["a"] == math.inf
        assert d["c"] == {"c": 0, "a": math.inf, "b": math.inf}

    def test_undirected_symmetric(self):
        g = Graph.from_edges([(1, 2, 1), (2, 3, 2), (3, 4, 3), (1, 4, 10)])
        d = floyd_warshall(g)
        assert d[1][4] == 6 and d[4][1] == 6
        assert all(d[u][v] == d[v][u] for u in g.nodes() for v in g.nodes())

    def test_negative_cycle(self):
        g = Graph.from_edges([(1, 2, 1), (2, 1, -2)], directed=True)
        with pytest.raises(NegativeCycleError):
            floyd_warshall(g)

    def test_empty(self):
        assert floyd_warshall(Graph()) == {}
