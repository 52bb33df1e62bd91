"""graphkit: graph algorithms on a small :class:`Graph` class.

Modules:

* ``graphkit.graph``: the :class:`Graph` class (nodes and edges in insertion order).
* ``graphkit.errors``: :class:`CycleError`, :class:`NegativeCycleError`,
  :class:`NoPathError`.
* ``graphkit.traversal``: :func:`bfs`, :func:`dfs`, :func:`bfs_layers`.
* ``graphkit.topo``: :func:`topological_sort`, :func:`find_cycle`.
* ``graphkit.shortest``: :func:`dijkstra`, :func:`reconstruct_path`,
  :func:`shortest_path`, :func:`bellman_ford`, :func:`floyd_warshall`.
* ``graphkit.mst``: :func:`kruskal_mst`, :func:`prim_mst`.
* ``graphkit.components``: :func:`connected_components`,
  :func:`strongly_connected_components`, :func:`condensation`, :func:`bridges`,
  :func:`articulation_points`.
* ``graphkit.bipartite``: :func:`bipartition`.
* ``graphkit.flow``: :func:`max_flow`, :func:`min_cut`.
"""

from graphkit.bipartite import bipartition
from graphkit.components import (
    articulation_points,
    bridges,
    condensation,
    connected_components,
    strongly_connected_components,
)
from graphkit.errors import CycleError, NegativeCycleError, NoPathError
from graphkit.flow import max_flow, min_cut
from graphkit.graph import Graph
from graphkit.mst import kruskal_mst, prim_mst
from graphkit.shortest import bellman_ford, dijkstra, floyd_warshall, reconstruct_path, shortest_path
from graphkit.topo import find_cycle, topological_sort
from graphkit.traversal import bfs, bfs_layers, dfs

__all__ = [
    "CycleError",
    "Graph",
    "NegativeCycleError",
    "NoPathError",
    "articulation_points",
    "bellman_ford",
    "bfs",
    "bfs_layers",
    "bipartition",
    "bridges",
    "condensation",
    "connected_components",
    "dfs",
    "dijkstra",
    "find_cycle",
    "floyd_warshall",
    "kruskal_mst",
    "max_flow",
    "min_cut",
    "prim_mst",
    "reconstruct_path",
    "shortest_path",
    "strongly_connected_components",
    "topological_sort",
]
