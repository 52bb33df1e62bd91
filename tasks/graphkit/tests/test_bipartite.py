from graphkit import Graph, bipartition


class TestBipartition:
    def test_even_cycle(self):
        g = Graph.from_edges([(1, 2), (2, 3), (3, 4), (4, 1)])
        assert bipartition(g) == ([1, 3], [2, 4])

    def test_odd_cycle(self):
        g = Graph.from_edges([(1, 2), (2, 3), (3, 1)])
        assert bipartition(g) is None

    def test_each_component_starts_left(self):
        g = Graph.from_edges([("a", "b"), ("c", "d"), ("d", "e")], nodes=["z"])
        assert bipartition(g) == (["z", "a", "c", "e"], ["b", "d"])

    def test_directions_ignored(self):
        g = Graph.from_edges([("x", "y"), ("z", "y"), ("z", "w")], directed=True)
        assert bipartition(g) == (["x", "z"], ["y", "w"])

    def test_directed_odd_cycle(self):
        g = Graph.from_edges([(1, 2), (3, 2), (3, 1)], directed=True)
        assert bipartition(g) is None

    def test_self_loop(self):
        g = Graph.from_edges([(1, 2), (2, 2)])
        assert bipartition(g) is None

    def test_empty_and_isolated(self):
        assert bipartition(Graph()) == ([], [])
        g = Graph.from_edges([], nodes=[1, 2])
        assert bipartition(g) == ([1, 2], [])

    def test_grid_is_bipartite(self):
        edges = []
        for r in range(4):
            for c in range(4):
                if r < 3:
                    edges.append(((r, c), (r + 1, c)))
                if c < 3:
                    edges.append(((r, c), (r, c + 1)))
        left, right = bipartition(Graph.from_edges(edges))
        assert all((r + c) % 2 == 0 for r, c in left)
        assert all((r + c) % 2 == 1 for r, c in right)
        assert len(left) == len(right) == 8
