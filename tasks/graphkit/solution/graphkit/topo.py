"""Topological ordering and cycle detection in directed graphs."""

from __future__ import annotations

import heapq
from typing import Any

from graphkit.errors import CycleError
from graphkit.graph import Graph


def _require_directed(g: Graph, what: str) -> None:
    if not g.directed:
        raise ValueError(f"{what} needs a directed graph")


def topological_sort(g: Graph) -> list[Any]:
    """Order the nodes so that every edge ``u -> v`` has ``u`` before ``v``.

    Kahn's algorithm with a deterministic tie-break: whenever several nodes have no
    remaining incoming edges, the one that comes first in the graph's node order is
    output next. Hence the result is the smallest valid order when nodes are
    compared by insertion position.

    Raises ValueError for an undirected graph, and :class:`CycleError` when the
    graph has a cycle (a self-loop counts); its ``nodes`` attribute lists the
    nodes that could not be ordered, in node order.
    """
    _require_directed(g, "topological_sort")
    nodes = g.nodes()
    index = {n: i for i, n in enumerate(nodes)}
    indeg = dict.fromkeys(nodes, 0)
    for _, v, _ in g.edges():
        indeg[v] += 1
    ready = [index[n] for n in nodes if indeg[n] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        u = nodes[heapq.heappop(ready)]
        order.append(u)
        for v in g.neighbors(u):
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(ready, index[v])
    if len(order) < len(nodes):
        done = set(order)
        raise CycleError([n for n in nodes if n not in done])
    return order


def find_cycle(g: Graph) -> list[Any] | None:
    """Return one directed cycle of ``g``, or None if ``g`` is acyclic.

    Runs a depth-first search from every unvisited node in node order, exploring
    neighbours in neighbour order. The first time an edge ``u -> v`` leads to a
    node ``v`` that is on the current search path, the cycle is the part of the
    path from ``v`` to ``u``: ``[v, ..., u]`` (so consecutive nodes are joined by
    edges, and ``u -> v`` closes it). A self-loop gives ``[u]``.
    Must not recurse (long paths must work). Raises ValueError for an undirected
    graph.
    """
    _require_directed(g, "find_cycle")
    WHITE, GREY, BLACK = 0, 1, 2
    color = dict.fromkeys(g.nodes(), WHITE)
    for root in g.nodes():
        if color[root] != WHITE:
            continue
        path = [root]
        pos = {root: 0}
        color[root] = GREY
        stack = [iter(g.neighbors(root))]
        while stack:
            u = path[-1]
            for v in stack[-1]:
                if color[v] == GREY:
                    return path[pos[v]:]
                if color[v] == WHITE:
                    color[v] = GREY
                    pos[v] = len(path)
                    path.append(v)
                    stack.append(iter(g.neighbors(v)))
                    break
            else:
                stack.pop()
                color[u] = BLACK
                del pos[u]
                path.pop()
    return None
