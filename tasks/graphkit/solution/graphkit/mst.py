"""Minimum spanning trees (forests) of undirected weighted graphs."""

from __future__ import annotations

import heapq
from collections.abc import Hashable
from typing import Any

from graphkit.graph import Graph


def _require_undirected(g: Graph, what: str) -> None:
    if g.directed:
        raise ValueError(f"{what} needs an undirected graph")


def kruskal_mst(g: Graph) -> list[tuple[Any, Any, float]]:
    """A minimum spanning forest by Kruskal's algorithm.

    The edges of :meth:`Graph.edges` are considered by increasing weight, equal
    weights keeping their ``edges()`` order (a stable sort); an edge is taken when
    it joins two different trees. Self-loops are never taken. Returns the taken
    edges in the order they were taken, each as the ``(u, v, weight)`` tuple from
    ``edges()``. A disconnected graph gives a spanning forest (``len(g) - k`` edges
    for ``k`` components).

    Raises ValueError for a directed graph.
    """
    _require_undirected(g, "kruskal_mst")
    parent = {n: n for n in g.nodes()}

    def find(x: Any) -> Any:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    out = []
    for u, v, w in sorted(g.edges(), key=lambda e: e[2]):
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[rv] = ru
            out.append((u, v, w))
    return out


def prim_mst(g: Graph, start: Hashable | None = None) -> list[tuple[Any, Any, float]]:
    """A minimum spanning tree of the component containing ``start`` (Prim).

    ``start`` defaults to the first node; an empty graph gives ``[]``. The tree
    grows one edge at a time: the next edge is the cheapest edge from a tree node
    ``u`` to a non-tree node ``v``; among equally cheap candidates, the one that
    became a candidate first wins (candidates are the edges scanned from each newly
    added tree node in neighbour order). Returns the edges in the order they were
    added, each as ``(u, v, weight)`` with ``u`` the node already in the tree.

    Raises ValueError for a directed graph and KeyError if ``start`` is given but
    is not a node.
    """
    _require_undirected(g, "prim_mst")
    if start is None:
        if len(g) == 0:
            return []
        start = g.nodes()[0]
    elif start not in g:
        raise KeyError(start)
    in_tree = {start}
    counter = 0
    heap: list[tuple[float, int, Any, Any]] = []

    def scan(u: Any) -> None:
        nonlocal counter
        for v in g.neighbors(u):
            if v not in in_tree:
                heapq.heappush(heap, (g.weight(u, v), counter, u, v))
                counter += 1

    scan(start)
    out = []
    while heap:
        w, _, u, v = heapq.heappop(heap)
        if v in in_tree:
            continue
        in_tree.add(v)
        out.append((u, v, w))
        scan(v)
    return out
