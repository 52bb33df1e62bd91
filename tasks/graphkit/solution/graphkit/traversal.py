"""Breadth-first and depth-first traversals.

Every traversal visits neighbours in the graph's neighbour order (see
:meth:`Graph.neighbors`), so results are fully determined by the graph.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Any

from graphkit.graph import Graph


def bfs(g: Graph, start: Hashable) -> list[Any]:
    """Nodes reachable from ``start`` in breadth-first order (``start`` first).

    Each dequeued node enqueues its not-yet-seen neighbours in neighbour order; a
    node is marked seen when it is enqueued. Raises KeyError if ``start`` is not a
    node.
    """
    if start not in g:
        raise KeyError(start)
    seen = {start}
    order = []
    queue = deque([start])
    while queue:
        u = queue.popleft()
        order.append(u)
        for v in g.neighbors(u):
            if v not in seen:
                seen.add(v)
                queue.append(v)
    return order


def dfs(g: Graph, start: Hashable) -> list[Any]:
    """Nodes reachable from ``start`` in depth-first preorder.

    The order is the one produced by the recursive definition "visit ``u``, then
    for each neighbour ``v`` of ``u`` in neighbour order, if ``v`` is unvisited,
    recurse into ``v``". Must not use recursion: it has to work on paths much
    longer than Python's recursion limit. Raises KeyError if ``start`` is not a
    node.
    """
    if start not in g:
        raise KeyError(start)
    visited = {start}
    order = [start]
    stack = [iter(g.neighbors(start))]
    while stack:
        for v in stack[-1]:
            if v not in visited:
                visited.add(v)
                order.append(v)
                stack.append(iter(g.neighbors(v)))
                break
        else:
            stack.pop()
    return order


def bfs_layers(g: Graph, start: Hashable) -> list[list[Any]]:
    """Group the nodes reachable from ``start`` by their hop distance.

    ``result[k]`` lists the nodes at exactly ``k`` edges from ``start`` (so
    ``result[0] == [start]``), each layer in the order :func:`bfs` visits them.
    Edge weights are ignored. Raises KeyError if ``start`` is not a node.
    """
    if start not in g:
        raise KeyError(start)
    seen = {start}
    layers = [[start]]
    while True:
        nxt = []
        for u in layers[-1]:
            for v in g.neighbors(u):
                if v not in seen:
                    seen.add(v)
                    nxt.append(v)
        if not nxt:
            return layers
        layers.append(nxt)
