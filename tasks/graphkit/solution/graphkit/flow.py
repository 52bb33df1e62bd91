"""Maximum flow (Edmonds-Karp) and minimum cut in directed graphs.

Edge weights are capacities. A *flow* assigns every edge ``u -> v`` a value with
``0 <= flow <= capacity``, such that at every node other than the source and the
sink, the inflow equals the outflow. Its value is the net outflow of the source.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Any

from graphkit.graph import Graph


def _check_network(g: Graph, source: Hashable, sink: Hashable) -> None:
    if not g.directed:
        raise ValueError("flow networks must be directed graphs")
    if source not in g:
        raise KeyError(source)
    if sink not in g:
        raise KeyError(sink)
    if source == sink:
        raise ValueError("source and sink must differ")
    for u, v, w in g.edges():
        if w < 0:
            raise ValueError(f"negative capacity {w} on edge {u!r} -> {v!r}")


def max_flow(g: Graph, source: Hashable, sink: Hashable) -> tuple[float, dict[tuple[Any, Any], float]]:
    """A maximum flow from ``source`` to ``sink`` by the Edmonds-Karp algorithm.

    Repeatedly finds a shortest (fewest edges) augmenting path in the residual
    network by breadth-first search and pushes as much flow along it as possible.
    An edge ``u -> v`` has residual capacity ``capacity - flow(u, v)`` forwards
    plus ``flow(v, u)`` when the edge ``v -> u`` also exists (pushing against a
    reverse edge first cancels its flow).

    Returns ``(value, flow)`` where ``flow`` maps every edge ``(u, v)`` of ``g`` to
    its flow (0 for unused edges). Raises ValueError for an undirected graph, a
    negative capacity or ``source == sink``, and KeyError if ``source`` or
    ``sink`` is not a node.
    """
    _check_network(g, source, sink)
    flow: dict[tuple[Any, Any], float] = {(u, v): 0 for u, v, _ in g.edges()}
    # residual neighbours: successors and predecessors
    adj: dict[Any, list[Any]] = {n: [] for n in g.nodes()}
    for u, v, _ in g.edges():
        adj[u].append(v)
        if not g.has_edge(v, u):
            adj[v].append(u)

    def residual(u: Any, v: Any) -> float:
        r = 0
        if (u, v) in flow:
            r += g.weight(u, v) - flow[(u, v)]
        if (v, u) in flow:
            r += flow[(v, u)]
        return r

    value = 0
    while True:
        prev: dict[Any, Any] = {source: None}
        queue = deque([source])
        while queue and sink not in prev:
            u = queue.popleft()
            for v in adj[u]:
                if v not in prev and residual(u, v) > 0:
                    prev[v] = u
                    queue.append(v)
        if sink not in prev:
            return value, flow
        path = []
        v = sink
        while prev[v] is not None:
            path.append((prev[v], v))
            v = prev[v]
        push = min(residual(u, v) for u, v in path)
        for u, v in path:
            amount = push
            if (v, u) in flow:
                cancel = min(amount, flow[(v, u)])
                flow[(v, u)] -= cancel
                amount -= cancel
            if amount:
                flow[(u, v)] += amount
        value += push


def min_cut(g: Graph, source: Hashable, sink: Hashable) -> tuple[float, list[Any], list[tuple[Any, Any]]]:
    """A minimum ``source``-``sink`` cut, derived from :func:`max_flow`.

    Returns ``(value, source_side, cut_edges)``: ``source_side`` lists (in node
    order) the nodes reachable from ``source`` in the residual network of the
    maximum flow; ``cut_edges`` lists (in :meth:`Graph.edges` order) the edges
    ``(u, v)`` with ``u`` on the source side and ``v`` not; their capacities add
    up to ``value``, the maximum flow value. Same errors as :func:`max_flow`.
    """
    value, flow = max_flow(g, source, sink)
    seen = {source}
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for v in g.nodes():
            if v in seen:
                continue
            r = 0
            if (u, v) in flow:
                r += g.weight(u, v) - flow[(u, v)]
            if (v, u) in flow:
                r += flow[(v, u)]
            if r > 0:
                seen.add(v)
                queue.append(v)
    side = [n for n in g.nodes() if n in seen]
    cut = [(u, v) for u, v, _ in g.edges() if u in seen and v not in seen]
    return value, side, cut
