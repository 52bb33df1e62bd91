"""The :class:`Graph` class shared by every algorithm in graphkit.

A graph stores its nodes in insertion order and, for every node, its outgoing
edges in insertion order, so that every algorithm that walks "the neighbours of a
node" does so in a well-defined order. Nodes may be any hashable values.

In an undirected graph an edge ``u - v`` is stored in both adjacency maps, and
``neighbors(u)`` includes ``v`` and ``neighbors(v)`` includes ``u``. A self-loop
``u - u`` is stored once.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from typing import Any


class Graph:
    """A weighted, directed or undirected graph without parallel edges.

    >>> g = Graph.from_edges([("a", "b", 2), ("b", "c")])
    >>> g.nodes(), g.neighbors("b"), g.weight("a", "b")
    (['a', 'b', 'c'], ['a', 'c'], 2)
    """

    def __init__(self, directed: bool = False) -> None:
        """Create an empty graph, directed when ``directed`` is true."""
        self._directed = bool(directed)
        self._adj: dict[Any, dict[Any, float]] = {}

    @classmethod
    def from_edges(
        cls,
        edges: Iterable[tuple],
        directed: bool = False,
        nodes: Iterable[Hashable] = (),
    ) -> Graph:
        """Build a graph: first ``nodes`` are added in order, then every edge.

        Each edge is ``(u, v)`` (weight 1) or ``(u, v, weight)``.
        """
        g = cls(directed=directed)
        for n in nodes:
            g.add_node(n)
        for e in edges:
            if len(e) == 2:
                g.add_edge(e[0], e[1])
            elif len(e) == 3:
                g.add_edge(e[0], e[1], e[2])
            else:
                raise ValueError(f"an edge is (u, v) or (u, v, weight), got {e!r}")
        return g

    @property
    def directed(self) -> bool:
        """True for a directed graph."""
        return self._directed

    def add_node(self, n: Hashable) -> None:
        """Add node ``n``; nothing happens if it already exists."""
        if n not in self._adj:
            self._adj[n] = {}

    def add_edge(self, u: Hashable, v: Hashable, weight: float = 1) -> None:
        """Add the edge ``u -> v`` (``u - v`` when undirected) with ``weight``.

        Missing endpoints are added as nodes (``u`` first). Adding an existing edge
        replaces its weight and keeps its position in the neighbour order.
        """
        self.add_node(u)
        self.add_node(v)
        self._adj[u][v] = weight
        if not self._directed:
            self._adj[v][u] = weight

    def __contains__(self, n: object) -> bool:
        return n in self._adj

    def __len__(self) -> int:
        """Number of nodes."""
        return len(self._adj)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._adj))

    def nodes(self) -> list[Any]:
        """All nodes in insertion order."""
        return list(self._adj)

    def neighbors(self, u: Hashable) -> list[Any]:
        """The nodes ``v`` with an edge ``u -> v`` (``u - v``), in insertion order.

        Raises KeyError if ``u`` is not a node.
        """
        return list(self._adj[u])

    def has_edge(self, u: Hashable, v: Hashable) -> bool:
        """True if the edge ``u -> v`` (``u - v``) exists."""
        return u in self._adj and v in self._adj[u]

    def weight(self, u: Hashable, v: Hashable) -> float:
        """The weight of edge ``u -> v``. Raises KeyError if there is no such edge."""
        return self._adj[u][v]

    def edges(self) -> list[tuple[Any, Any, float]]:
        """All edges as ``(u, v, weight)``.

        Ordered by ``u`` in node order, then by ``v`` in ``u``'s neighbour order.
        In an undirected graph each edge appears once, from the endpoint that comes
        first in that order.
        """
        out = []
        seen: set = set()
        for u, nbrs in self._adj.items():
            for v, w in nbrs.items():
                if not self._directed:
                    key = frozenset((u, v))
                    if key in seen:
                        continue
                    seen.add(key)
                out.append((u, v, w))
        return out

    def num_edges(self) -> int:
        """Number of edges (each undirected edge counted once)."""
        return len(self.edges())

    def copy(self) -> Graph:
        """An independent copy with the same nodes, edges and orders."""
        g = Graph(self._directed)
        g._adj = {u: dict(nbrs) for u, nbrs in self._adj.items()}
        return g

    def __repr__(self) -> str:
        kind = "directed" if self._directed else "undirected"
        return f"<Graph {kind}, {len(self)} nodes, {self.num_edges()} edges>"

    def reversed(self) -> Graph:
        """A new graph with every edge ``u -> v`` replaced by ``v -> u`` (same weight).

        The nodes keep their order. The edges are added by scanning ``u`` in node
        order and ``v`` in ``u``'s neighbour order, so in the result the neighbours
        of each node appear in that scan order. An undirected graph is returned as a
        copy. The original graph is not modified.
        """
        if not self._directed:
            return self.copy()
        g = Graph(directed=True)
        for u in self._adj:
            g.add_node(u)
        for u, nbrs in self._adj.items():
            for v, w in nbrs.items():
                g.add_edge(v, u, w)
        return g
