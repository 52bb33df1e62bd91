"""Two-colouring of graphs."""

from __future__ import annotations

from collections import deque
from typing import Any

from graphkit.graph import Graph


def bipartition(g: Graph) -> tuple[list[Any], list[Any]] | None:
    """Split the nodes into two sides so that every edge joins the two sides.

    Edge directions are ignored. Each connected component is coloured by
    breadth-first search from its first node (in node order), which goes to the
    left side; nodes at odd distance go to the right side. Both lists follow node
    order. Returns None when no such split exists (an odd cycle, or any
    self-loop). An empty graph gives ``([], [])``.
    """
    undirected: dict[Any, list] = {n: [] for n in g.nodes()}
    for u, v, _ in g.edges():
        if u == v:
            return None
        undirected[u].append(v)
        undirected[v].append(u)
    side: dict[Any, int] = {}
    for root in g.nodes():
        if root in side:
            continue
        side[root] = 0
        queue = deque([root])
        while queue:
            u = queue.popleft()
            for v in undirected[u]:
                if v not in side:
                    side[v] = 1 - side[u]
                    queue.append(v)
                elif side[v] == side[u]:
                    return None
    left = [n for n in g.nodes() if side[n] == 0]
    right = [n for n in g.nodes() if side[n] == 1]
    return left, right
