import pytest

from graphkit import CycleError, Graph, find_cycle, topological_sort


def is_cycle(g, cyc):
    return bool(cyc) and all(g.has_edge(cyc[i], cyc[(i + 1) % len(cyc)]) for i in range(len(cyc))) and len(
        set(cyc)
    ) == len(cyc)


class TestTopologicalSort:
    def test_respects_edges(self):
        g = Graph.from_edges(
            [("shirt", "tie"), ("tie", "jacket"), ("pants", "shoes"), ("pants", "belt"), ("belt", "jacket")],
            directed=True,
            nodes=["socks"],
        )
        order = topological_sort(g)
        pos = {n: i for i, n in enumerate(order)}
        assert sorted(order) == sorted(g.nodes())
        assert all(pos[u] < pos[v] for u, v, _ in g.edges())

    def test_tie_break_by_insertion_order(self):
        g = Graph(directed=True)
        for n in ["c", "b", "a", "d"]:
            g.add_node(n)
        g.add_edge("a", "d")
        g.add_edge("c", "a")
        assert topological_sort(g) == ["c", "b", "a", "d"]

    def test_smallest_available_first(self):
        g = Graph.from_edges([(3, 1), (2, 1)], directed=True, nodes=[1, 2, 3])
        # 1 waits for 2 and 3; 2 comes before 3 in node order
        assert topological_sort(g) == [2, 3, 1]

    def test_cycle_raises_with_unordered_nodes(self):
        g = Graph.from_edges([("a", "b"), ("b", "c"), ("c", "b"), ("c", "d"), ("e", "a")], directed=True)
        with pytest.raises(CycleError) as info:
            topological_sort(g)
        assert info.value.nodes == ["b", "c", "d"]
        assert isinstance(info.value, ValueError)

    def test_self_loop_is_cycle(self):
        g = Graph.from_edges([(1, 1)], directed=True)
        with pytest.raises(CycleError):
            topological_sort(g)

    def test_undirected_rejected(self):
        with pytest.raises(ValueError):
            topological_sort(Graph.from_edges([(1, 2)]))

    def test_empty(self):
        assert topological_sort(Graph(directed=True)) == []


class TestFindCycle:
    def test_acyclic(self):
        g = Graph.from_edges([(1, 2), (1, 3), (2, 4), (3, 4)], directed=True)
        assert find_cycle(g) is None

    def test_finds_simple_cycle_from_back_edge_target(self):
        g = Graph.from_edges([("s", "a"), ("a", "b"), ("b", "c"), ("c", "a")], directed=True)
        assert find_cycle(g) == ["a", "b", "c"]

    def test_self_loop(self):
        g = Graph.from_edges([(1, 2), (2, 2)], directed=True)
        assert find_cycle(g) == [2]

    def test_cross_edges_are_not_cycles(self):
        # 3 is finished (black) when reached again from 4: no cycle there
        g = Graph.from_edges([(1, 2), (2, 3), (1, 4), (4, 3), (4, 5), (5, 1)], directed=True)
        cyc = find_cycle(g)
        assert cyc == [1, 4, 5]
        assert is_cycle(g, cyc)

    def test_cycle_in_later_component(self):
        g = Graph.from_edges([("x", "y"), ("p", "q"), ("q", "r"), ("r", "p")], directed=True)
        cyc = find_cycle(g)
        assert is_cycle(g, cyc)
        assert set(cyc) == {"p", "q", "r"}

    def test_long_cycle_without_recursion(self):
        n = 10_000
        g = Graph.from_edges([(i, (i + 1) % n) for i in range(n)], directed=True)
        cyc = find_cycle(g)
        assert cyc == list(range(n))

    def test_undirected_rejected(self):
        with pytest.raises(ValueError):
            find_cycle(Graph())
