"""Disjoint sets (union-find) with union by size and full path compression.

Every element has a parent; a *root* is its own parent and represents its set.
The forest is stored in the dict ``_parent`` (element -> direct parent) and the
size of each set in ``_size`` (root -> number of elements); ``parent(x)`` exposes
the direct parent so that the tree shape is observable. The tests build deep trees
by writing ``_parent`` directly, so keep that representation.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any


class UnionFind:
    """A partition of hashable elements into disjoint sets.

    >>> uf = UnionFind("abcd")
    >>> uf.union("a", "b"); uf.union("c", "d")
    True
    True
    >>> uf.connected("a", "b"), uf.connected("a", "c")
    (True, False)
    """

    def __init__(self, elements: Iterable[Hashable] = ()) -> None:
        """Create a partition where each of ``elements`` is alone in its own set
        (duplicates are ignored)."""
        self._parent: dict[Any, Any] = {}
        self._size: dict[Any, int] = {}
        self._count = 0
        for x in elements:
            self.add(x)

    def add(self, x: Hashable) -> bool:
        """Add ``x`` as a new singleton set; return False (and do nothing) if ``x``
        is already an element."""
        if x in self._parent:
            return False
        self._parent[x] = x
        self._size[x] = 1
        self._count += 1
        return True

    def __len__(self) -> int:
        """Number of elements (not sets)."""
        return len(self._parent)

    def __contains__(self, x: object) -> bool:
        return x in self._parent

    @property
    def count(self) -> int:
        """Number of disjoint sets."""
        return self._count

    def parent(self, x: Hashable) -> Any:
        """The direct parent of ``x`` in its tree (``x`` itself for a root).

        Raises KeyError if ``x`` is not an element.
        """
        return self._parent[x]

    def find(self, x: Hashable) -> Any:
        """Return the root (representative) of the set containing ``x``.

        Applies full path compression: afterwards every element on the path from
        ``x`` to the root (``x`` included) has the root as its direct parent.
        Raises KeyError if ``x`` is not an element.
        """
        parent = self._parent
        if x not in parent:
            raise KeyError(x)
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: Hashable, b: Hashable) -> bool:
        """Merge the sets containing ``a`` and ``b``; return False if they already
        were the same set, True otherwise.

        Union by size: the root of the smaller set becomes a child of the root of
        the larger set. On equal sizes, the root of ``b``'s set becomes a child of
        the root of ``a``'s set. Roots are located with :meth:`find` (so paths from
        ``a`` and ``b`` are compressed). Raises KeyError if either is not an element.
        """
        ra = self.find(a)
        rb = self.find(b)
        if ra == rb:
            return False
        if self._size[ra] < self._size[rb]:
            ra, rb = rb, ra
        self._parent[rb] = ra
        self._size[ra] += self._size[rb]
        del self._size[rb]
        self._count -= 1
        return True

    def connected(self, a: Hashable, b: Hashable) -> bool:
        """True if ``a`` and ``b`` are in the same set. Raises KeyError for unknown
        elements."""
        return self.find(a) == self.find(b)

    def set_size(self, x: Hashable) -> int:
        """Number of elements in the set containing ``x``. Raises KeyError for an
        unknown element."""
        return self._size[self.find(x)]

    def groups(self) -> list[list[Any]]:
        """All sets as lists.

        Members of a group appear in the order they were added to the structure, and
        groups are ordered by the insertion position of their earliest-added member.
        """
        by_root: dict[Any, list[Any]] = {}
        for x in self._parent:
            by_root.setdefault(self.find(x), []).append(x)
        return list(by_root.values())
