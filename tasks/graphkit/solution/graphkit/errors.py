"""Exceptions raised by graphkit algorithms."""

from __future__ import annotations

from typing import Any


class CycleError(ValueError):
    """A directed graph has a cycle where an acyclic one is required.

    ``nodes`` holds the nodes that could not be ordered (every node that lies on a
    cycle or can only be reached through one), in the graph's insertion order.
    """

    def __init__(self, nodes: list[Any]) -> None:
        super().__init__(f"graph has a cycle through {len(nodes)} unordered node(s)")
        self.nodes = nodes


class NegativeCycleError(ValueError):
    """A cycle of negative total weight makes shortest distances undefined."""


class NoPathError(LookupError):
    """There is no path between two nodes."""

    def __init__(self, source: Any, target: Any) -> None:
        super().__init__(f"no path from {source!r} to {target!r}")
        self.source = source
        self.target = target
