"""Shortest paths: Dijkstra, Bellman-Ford, Floyd-Warshall and path reconstruction.

Single-source functions return ``(dist, prev)``:

* ``dist`` maps every node reachable from the source to its shortest distance
  (the source maps to 0; unreachable nodes are absent);
* ``prev`` maps every reachable node other than the source to its predecessor on
  one shortest path, so following ``prev`` from a node leads back to the source.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable
from typing import Any

from graphkit.errors import NegativeCycleError, NoPathError
from graphkit.graph import Graph


def dijkstra(g: Graph, source: Hashable) -> tuple[dict[Any, float], dict[Any, Any]]:
    """Single-source shortest paths for non-negative edge weights.

    Nodes are settled in order of distance, ties broken by node order. When a node
    is reached again with exactly the same distance, its predecessor is not
    changed (only strictly shorter paths replace ``prev`` entries).

    Raises KeyError if ``source`` is not a node and ValueError if any edge of the
    graph has a negative weight (checked before searching).
    """
    if source not in g:
        raise KeyError(source)
    for u, v, w in g.edges():
        if w < 0:
            raise ValueError(f"negative weight {w} on edge {u!r} -> {v!r}")
    index = {n: i for i, n in enumerate(g.nodes())}
    dist: dict[Any, float] = {source: 0}
    prev: dict[Any, Any] = {}
    done = set()
    heap = [(0, index[source], source)]
    while heap:
        d, _, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for v in g.neighbors(u):
            nd = d + g.weight(u, v)
            if v not in dist or nd < dist[v]:
                dist[v] = nd
                prev[v] = u
                heapq.heappush(heap, (nd, index[v], v))
    return dist, prev


def reconstruct_path(prev: dict[Any, Any], source: Hashable, target: Hashable) -> list[Any]:
    """The path ``[source, ..., target]`` encoded by a predecessor map.

    Follows ``prev`` back from ``target`` until ``source`` is reached and returns
    the nodes in forward order; ``[source]`` when ``target == source``.
    Raises :class:`NoPathError` when the chain of predecessors ends (a node without
    a ``prev`` entry) before reaching ``source``, and ValueError if the chain loops
    (a node repeats).
    """
    path = [target]
    seen = {target}
    node = target
    while node != source:
        if node not in prev:
            raise NoPathError(source, target)
        node = prev[node]
        if node in seen:
            raise ValueError(f"predecessor map loops at {node!r}")
        seen.add(node)
        path.append(node)
    path.reverse()
    return path


def shortest_path(g: Graph, source: Hashable, target: Hashable) -> tuple[float, list[Any]]:
    """``(cost, path)`` of a cheapest path from ``source`` to ``target``.

    Uses :func:`dijkstra` and :func:`reconstruct_path`, so it has the same
    tie-breaking and errors (KeyError for an unknown source, ValueError for negative
    weights). Raises KeyError if ``target`` is not a node and :class:`NoPathError`
    if it is not reachable.
    """
    if target not in g:
        raise KeyError(target)
    dist, prev = dijkstra(g, source)
    if target not in dist:
        raise NoPathError(source, target)
    return dist[target], reconstruct_path(prev, source, target)


def bellman_ford(g: Graph, source: Hashable) -> tuple[dict[Any, float], dict[Any, Any]]:
    """Single-source shortest paths allowing negative edge weights.

    Relaxes every edge (in :meth:`Graph.edges` order; both directions of an
    undirected edge) up to ``len(g) - 1`` times, stopping early when a round changes
    nothing; only strictly shorter paths update ``dist`` and ``prev``.

    Raises KeyError if ``source`` is not a node, and :class:`NegativeCycleError`
    if a cycle of negative total weight is reachable from ``source`` (in an
    undirected graph any negative edge is such a cycle). Negative cycles that are
    not reachable from ``source`` are ignored.
    """
    if source not in g:
        raise KeyError(source)
    arcs = []
    for u, v, w in g.edges():
        arcs.append((u, v, w))
        if not g.directed and u != v:
            arcs.append((v, u, w))
    dist: dict[Any, float] = {source: 0}
    prev: dict[Any, Any] = {}
    for _ in range(max(len(g) - 1, 0)):
        changed = False
        for u, v, w in arcs:
            if u in dist and (v not in dist or dist[u] + w < dist[v]):
                dist[v] = dist[u] + w
                prev[v] = u
                changed = True
        if not changed:
            break
    for u, v, w in arcs:
        if u in dist and dist[u] + w < dist[v]:
            raise NegativeCycleError(f"negative cycle reachable from {source!r}")
    return dist, prev


def floyd_warshall(g: Graph) -> dict[Any, dict[Any, float]]:
    """All-pairs shortest distances: ``result[u][v]`` for every pair of nodes.

    ``result[u][u]`` is 0 and unreachable pairs are ``math.inf``; negative weights
    are allowed. Raises :class:`NegativeCycleError` if the graph has any cycle of
    negative total weight (in an undirected graph, any negative edge).
    """
    nodes = g.nodes()
    dist = {u: dict.fromkeys(nodes, math.inf) for u in nodes}
    for u in nodes:
        dist[u][u] = 0
    for u, v, w in g.edges():
        if w < dist[u][v]:
            dist[u][v] = w
        if not g.directed and w < dist[v][u]:
            dist[v][u] = w
    for k in nodes:
        dk = dist[k]
        for i in nodes:
            di = dist[i]
            dik = di[k]
            if dik == math.inf:
                continue
            for j in nodes:
                nd = dik + dk[j]
                if nd < di[j]:
                    di[j] = nd
    for u in nodes:
        if dist[u][u] < 0:
            raise NegativeCycleError(f"negative cycle through {u!r}")
    return dist
