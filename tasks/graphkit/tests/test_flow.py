import random

import pytest

from graphkit import Graph, max_flow, min_cut


def clrs_network():
    return Graph.from_edges(
        [
            ("s", "v1", 16),
            ("s", "v2", 13),
            ("v1", "v3", 12),
            ("v2", "v1", 4),
            ("v2", "v4", 14),
            ("v3", "v2", 9),
            ("v3", "t", 20),
            ("v4", "v3", 7),
            ("v4", "t", 4),
        ],
        directed=True,
    )


def check_flow(g, s, t, value, flow):
    assert set(flow) == {(u, v) for u, v, _ in g.edges()}
    for (u, v), f in flow.items():
        assert 0 <= f <= g.weight(u, v)
    for n in g.nodes():
        out = sum(f for (u, _), f in flow.items() if u == n)
        inn = sum(f for (_, v), f in flow.items() if v == n)
        if n == s:
            assert out - inn == value
        elif n == t:
            assert inn - out == value
        else:
            assert out == inn


def brute_min_cut(g, s, t):
    others = [n for n in g.nodes() if n not in (s, t)]
    best = None
    for mask in range(1 << len(others)):
        side = {s} | {others[i] for i in range(len(others)) if mask >> i & 1}
        cap = sum(w for u, v, w in g.edges() if u in side and v not in side)
        best = cap if best is None else min(best, cap)
    return best


def random_network(seed, n=7, m=16):
    rng = random.Random(seed)
    g = Graph(directed=True)
    for i in range(n):
        g.add_node(i)
    while g.num_edges() < m:
        u, v = rng.sample(range(n), 2)
        g.add_edge(u, v, rng.randint(1, 10))
    return g


class TestMaxFlow:
    def test_clrs_example(self):
        g = clrs_network()
        value, flow = max_flow(g, "s", "t")
        assert value == 23
        check_flow(g, "s", "t", value, flow)

    def test_single_path_bottleneck(self):
        g = Graph.from_edges([(1, 2, 5), (2, 3, 2), (3, 4, 9)], directed=True)
        value, flow = max_flow(g, 1, 4)
        assert value == 2
        assert flow == {(1, 2): 2, (2, 3): 2, (3, 4): 2}

    def test_needs_flow_cancellation(self):
        # the shortest path s-a1-b3-t blocks both long paths; only pushing flow back
        # along b3 -> a1 reaches the maximum of 2
        g = Graph.from_edges(
            [
                ("s", "a1", 1), ("a1", "a2", 1), ("a2", "a3", 1), ("a3", "t", 1),
                ("s", "b1", 1), ("b1", "b2", 1), ("b2", "b3", 1), ("b3", "t", 1),
                ("a1", "b3", 1),
            ],
            directed=True,
        )
        value, flow = max_flow(g, "s", "t")
        assert value == 2
        assert flow[("a1", "b3")] == 0
        check_flow(g, "s", "t", value, flow)

    def test_antiparallel_edges(self):
        g = Graph.from_edges([("s", "a", 3), ("a", "s", 2), ("a", "t", 2), ("t", "a", 5)], directed=True)
        value, flow = max_flow(g, "s", "t")
        assert value == 2
        check_flow(g, "s", "t", value, flow)

    def test_unreachable_sink(self):
        g = Graph.from_edges([(1, 2, 3)], directed=True, nodes=[3])
        assert max_flow(g, 1, 3) == (0, {(1, 2): 0})

    @pytest.mark.parametrize("seed", range(6))
    def test_matches_brute_force_cut(self, seed):
        g = random_network(seed)
        value, flow = max_flow(g, 0, 6)
        check_flow(g, 0, 6, value, flow)
        assert value == brute_min_cut(g, 0, 6)

    def test_errors(self):
        g = clrs_network()
        with pytest.raises(ValueError):
            max_flow(g, "s", "s")
        with pytest.raises(KeyError):
            max_flow(g, "s", "nope")
        with pytest.raises(KeyError):
            max_flow(g, "nope", "t")
        with pytest.raises(ValueError):
            max_flow(Graph.from_edges([(1, 2, 1)]), 1, 2)
        with pytest.raises(ValueError):
            max_flow(Graph.from_edges([(1, 2, -1)], directed=True), 1, 2)


class TestMinCut:
    def test_clrs_cut(self):
        value, side, cut = min_cut(clrs_network(), "s", "t")
        assert value == 23
        assert side == ["s", "v1", "v2", "v4"]
        assert cut == [("v1", "v3"), ("v4", "v3"), ("v4", "t")]

    def test_cut_capacity_equals_value(self):
        for seed in range(4):
            g = random_network(seed + 50)
            value, side, cut = min_cut(g, 0, 6)
            assert 0 in side and 6 not in side
            assert sum(g.weight(u, v) for u, v in cut) == value
            assert value == brute_min_cut(g, 0, 6)

    def test_disconnected(self):
        g = Graph.from_edges([("s", "a", 4), ("b", "t", 4)], directed=True)
        assert min_cut(g, "s", "t") == (0, ["s", "a"], [])

    def test_errors(self):
        with pytest.raises(ValueError):
            min_cut(Graph.from_edges([(1, 2, 1)]), 1, 2)
