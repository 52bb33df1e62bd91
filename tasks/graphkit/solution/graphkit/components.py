"""Connectivity: connected and strongly connected components, condensation,
bridges and articulation points.

Unless stated otherwise, a list of components is ordered by the node order of each
component's first node, and the nodes inside a component follow node order too,
so results do not depend on the algorithm used.
"""

from __future__ import annotations

from typing import Any

from graphkit.graph import Graph


def _order_components(g: Graph, comp_of: dict[Any, int]) -> list[list[Any]]:
    groups: dict[int, list[Any]] = {}
    for n in g.nodes():
        groups.setdefault(comp_of[n], []).append(n)
    return list(groups.values())


def connected_components(g: Graph) -> list[list[Any]]:
    """The connected components of ``g`` (weakly connected ones when directed:
    edge directions are ignored). Isolated nodes form their own components."""
    undirected: dict[Any, set] = {n: set() for n in g.nodes()}
    for u, v, _ in g.edges():
        undirected[u].add(v)
        undirected[v].add(u)
    comp_of: dict[Any, int] = {}
    for i, root in enumerate(g.nodes()):
        if root in comp_of:
            continue
        comp_of[root] = i
        stack = [root]
        while stack:
            u = stack.pop()
            for v in undirected[u]:
                if v not in comp_of:
                    comp_of[v] = i
                    stack.append(v)
    return _order_components(g, comp_of)


def strongly_connected_components(g: Graph) -> list[list[Any]]:
    """The strongly connected components of a directed graph.

    Two nodes are in the same component when each can reach the other. For an
    undirected graph the result equals :func:`connected_components`. Must not
    recurse (long paths must work).
    """
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    on_stack: set = set()
    stack: list[Any] = []
    comp_of: dict[Any, int] = {}
    counter = 0
    ncomp = 0
    for root in g.nodes():
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(g.neighbors(root)))]
        while work:
            u, it = work[-1]
            for v in it:
                if v not in index:
                    index[v] = low[v] = counter
                    counter += 1
                    stack.append(v)
                    on_stack.add(v)
                    work.append((v, iter(g.neighbors(v))))
                    break
                if v in on_stack:
                    low[u] = min(low[u], index[v])
            else:
                work.pop()
                if work:
                    p = work[-1][0]
                    low[p] = min(low[p], low[u])
                if low[u] == index[u]:
                    while True:
                        x = stack.pop()
                        on_stack.discard(x)
                        comp_of[x] = ncomp
                        if x == u:
                            break
                    ncomp += 1
    return _order_components(g, comp_of)


def condensation(g: Graph) -> tuple[Graph, dict[Any, int]]:
    """The condensation of ``g``: the directed acyclic graph of its strongly
    connected components.

    Returns ``(dag, component_of)``. Component ``i`` is the ``i``-th list of
    :func:`strongly_connected_components`; ``dag`` has the nodes ``0 .. k-1`` in
    that order, and one edge ``i -> j`` (weight 1) whenever some edge of ``g`` goes
    from component ``i`` to a different component ``j``, added in the order such
    edges are first met in :meth:`Graph.edges`. ``component_of`` maps every node of
    ``g`` to its component index.
    """
    comps = strongly_connected_components(g)
    comp_of = {n: i for i, comp in enumerate(comps) for n in comp}
    dag = Graph(directed=True)
    for i in range(len(comps)):
        dag.add_node(i)
    for u, v, _ in g.edges():
        a, b = comp_of[u], comp_of[v]
        if a != b and not dag.has_edge(a, b):
            dag.add_edge(a, b)
    return dag, comp_of


def bridges(g: Graph) -> list[tuple[Any, Any, float]]:
    """The bridges of an undirected graph: edges whose removal increases the number
    of connected components.

    Returned as ``(u, v, weight)`` tuples exactly as they appear in
    :meth:`Graph.edges`, in that order. Self-loops are never bridges. Must not
    recurse (long paths must work). Raises ValueError for a directed graph.
    """
    if g.directed:
        raise ValueError("bridges needs an undirected graph")
    disc: dict[Any, int] = {}
    low: dict[Any, int] = {}
    found: set = set()
    t = 0
    for root in g.nodes():
        if root in disc:
            continue
        disc[root] = low[root] = t
        t += 1
        work = [(root, None, iter(g.neighbors(root)))]
        while work:
            u, parent, it = work[-1]
            for v in it:
                if v == u:
                    continue
                if v not in disc:
                    disc[v] = low[v] = t
                    t += 1
                    work.append((v, u, iter(g.neighbors(v))))
                    break
                if v != parent:
                    low[u] = min(low[u], disc[v])
            else:
                work.pop()
                if parent is not None:
                    low[parent] = min(low[parent], low[u])
                    if low[u] > disc[parent]:
                        found.add(frozenset((parent, u)))
    return [e for e in g.edges() if e[0] != e[1] and frozenset(e[:2]) in found]


def articulation_points(g: Graph) -> list[Any]:
    """The articulation points (cut vertices) of an undirected graph: nodes whose
    removal, with their edges, increases the number of connected components.

    Returned in node order. Must not recurse (long paths must work). Raises
    ValueError for a directed graph.
    """
    if g.directed:
        raise ValueError("articulation_points needs an undirected graph")
    disc: dict[Any, int] = {}
    low: dict[Any, int] = {}
    cut: set = set()
    t = 0
    for root in g.nodes():
        if root in disc:
            continue
        disc[root] = low[root] = t
        t += 1
        root_children = 0
        work = [(root, None, iter(g.neighbors(root)))]
        while work:
            u, parent, it = work[-1]
            for v in it:
                if v == u:
                    continue
                if v not in disc:
                    disc[v] = low[v] = t
                    t += 1
                    if u == root:
                        root_children += 1
                    work.append((v, u, iter(g.neighbors(v))))
                    break
                if v != parent:
                    low[u] = min(low[u], disc[v])
            else:
                work.pop()
                if parent is not None:
                    low[parent] = min(low[parent], low[u])
                    if parent != root and low[u] >= disc[parent]:
                        cut.add(parent)
        if root_children > 1:
            cut.add(root)
    return [n for n in g.nodes() if n in cut]
