"""A least-recently-used (LRU) cache with a fixed capacity.

Entries live in a dict (key -> node) and in a doubly linked list ordered by recency:
the node right after the head sentinel is the most recently used entry, the node
right before the tail sentinel the least recently used one. Every operation is O(1)
(``resize`` is O(number of evictions)).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any


class _Node:
    __slots__ = ("key", "value", "prev", "next")

    def __init__(self, key: Any = None, value: Any = None) -> None:
        self.key = key
        self.value = value
        self.prev: _Node | None = None
        self.next: _Node | None = None


class LRUCache:
    """A mapping of at most ``capacity`` entries that evicts the least recently used.

    An entry is *used* when it is inserted or updated by :meth:`put` or read by
    :meth:`get`. Membership tests (``key in cache``), ``len`` and :meth:`keys` do
    not count as uses.

    >>> c = LRUCache(2)
    >>> c.put("a", 1); c.put("b", 2); c.get("a")
    1
    >>> c.put("c", 3)   # evicts "b", the least recently used
    ('b', 2)
    """

    def __init__(self, capacity: int) -> None:
        """Create an empty cache holding at most ``capacity`` entries.

        Raises ValueError if ``capacity`` is smaller than 1.
        """
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self._capacity = capacity
        self._map: dict[Hashable, _Node] = {}
        self._head = _Node()
        self._tail = _Node()
        self._head.next = self._tail
        self._tail.prev = self._head

    # -- small helpers on the linked list -------------------------------------------

    def _unlink(self, node: _Node) -> None:
        node.prev.next = node.next
        node.next.prev = node.prev
        node.prev = node.next = None

    def _push_front(self, node: _Node) -> None:
        node.prev = self._head
        node.next = self._head.next
        self._head.next.prev = node
        self._head.next = node

    # -- read-only views -------------------------------------------------------------

    @property
    def capacity(self) -> int:
        """The maximum number of entries."""
        return self._capacity

    def __len__(self) -> int:
        """Number of entries currently cached."""
        return len(self._map)

    def __contains__(self, key: object) -> bool:
        """True if ``key`` is cached; does not change recency."""
        return key in self._map

    def keys(self) -> list[Any]:
        """The cached keys, from the most recently used to the least recently used."""
        out = []
        node = self._head.next
        while node is not self._tail:
            out.append(node.key)
            node = node.next
        return out

    # -- operations ------------------------------------------------------------------

    def put(self, key: Hashable, value: Any) -> tuple[Any, Any] | None:
        """Insert or update ``key`` with ``value`` and mark it most recently used.

        If ``key`` is new and the cache is already full, the least recently used
        entry is evicted first, and the evicted ``(key, value)`` pair is returned.
        Otherwise (update of an existing key, or room left) None is returned.
        """
        node = self._map.get(key)
        if node is not None:
            node.value = value
            self._unlink(node)
            self._push_front(node)
            return None
        evicted = None
        if len(self._map) >= self._capacity:
            lru = self._tail.prev
            self._unlink(lru)
            del self._map[lru.key]
            evicted = (lru.key, lru.value)
        node = _Node(key, value)
        self._map[key] = node
        self._push_front(node)
        return evicted

    def get(self, key: Hashable, default: Any = None) -> Any:
        """Return the value cached for ``key`` and mark it most recently used.

        A missing key returns ``default`` and leaves the cache unchanged.
        """
        node = self._map.get(key)
        if node is None:
            return default
        self._unlink(node)
        self._push_front(node)
        return node.value

    def resize(self, capacity: int) -> list[tuple[Any, Any]]:
        """Change the capacity, evicting least recently used entries that no longer fit.

        Returns the evicted ``(key, value)`` pairs, least recently used first (an
        empty list when nothing is evicted). Raises ValueError if ``capacity`` is
        smaller than 1, leaving the cache unchanged.
        """
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self._capacity = capacity
        evicted = []
        while len(self._map) > capacity:
            lru = self._tail.prev
            self._unlink(lru)
            del self._map[lru.key]
            evicted.append((lru.key, lru.value))
        return evicted
