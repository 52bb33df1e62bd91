"""An ordered map implemented as a treap (a randomized balanced binary search tree).

Every node holds a key, a value, a random *priority* and the *size* of its subtree.
The tree is a binary search tree on keys (smaller keys to the left) and a max-heap
on priorities (no child has a higher priority than its parent). Priorities are
drawn from ``random.Random(seed)``, one draw per newly inserted key, so a treap
built with the same seed and the same operations always has the same shape.

Keys must be mutually comparable with ``<``; equal keys are the same entry.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any


class _Node:
    __slots__ = ("key", "value", "priority", "left", "right", "size")

    def __init__(self, key: Any, value: Any, priority: float) -> None:
        self.key = key
        self.value = value
        self.priority = priority
        self.left: _Node | None = None
        self.right: _Node | None = None
        self.size = 1


def _size(node: _Node | None) -> int:
    return node.size if node is not None else 0


def _update(node: _Node) -> None:
    node.size = 1 + _size(node.left) + _size(node.right)


def _rotate_right(node: _Node) -> _Node:
    """Lift ``node.left`` above ``node``; returns the new subtree root."""
    left = node.left
    node.left = left.right
    left.right = node
    _update(node)
    _update(left)
    return left


def _rotate_left(node: _Node) -> _Node:
    """Lift ``node.right`` above ``node``; returns the new subtree root."""
    right = node.right
    node.right = right.left
    right.left = node
    _update(node)
    _update(right)
    return right


class Treap:
    """A sorted map with O(log n) expected insert, delete and order statistics.

    >>> t = Treap(seed=1)
    >>> for k in [5, 1, 9, 3]:
    ...     t.insert(k, str(k))
    True
    True
    True
    True
    >>> list(t), t.kth(1), t.rank(6), t.floor(4)
    ([1, 3, 5, 9], 3, 3, 3)
    """

    def __init__(self, seed: int = 0) -> None:
        """Create an empty treap whose priorities come from ``random.Random(seed)``."""
        self._rng = random.Random(seed)
        self._root: _Node | None = None

    # -- read-only helpers -----------------------------------------------------------

    def __len__(self) -> int:
        """Number of keys."""
        return _size(self._root)

    def __iter__(self) -> Iterator[Any]:
        """Iterate over the keys in ascending order."""
        for k, _ in self.items():
            yield k

    def items(self) -> list[tuple[Any, Any]]:
        """All ``(key, value)`` pairs in ascending key order."""
        out = []
        stack: list[_Node] = []
        node = self._root
        while stack or node is not None:
            while node is not None:
                stack.append(node)
                node = node.left
            node = stack.pop()
            out.append((node.key, node.value))
            node = node.right
        return out

    def get(self, key: Any, default: Any = None) -> Any:
        """The value stored for ``key``, or ``default`` when absent."""
        node = self._root
        while node is not None:
            if key < node.key:
                node = node.left
            elif node.key < key:
                node = node.right
            else:
                return node.value
        return default

    def __contains__(self, key: Any) -> bool:
        sentinel = object()
        return self.get(key, sentinel) is not sentinel

    def height(self) -> int:
        """Number of nodes on the longest root-to-leaf path (0 when empty)."""

        def h(node: _Node | None) -> int:
            return 0 if node is None else 1 + max(h(node.left), h(node.right))

        return h(self._root)

    def structure(self) -> tuple | None:
        """The shape of the tree as nested ``(key, left, right)`` tuples, where
        ``left`` and ``right`` are the same kind of tuple or None (None when the
        treap is empty)."""

        def shape(node: _Node | None) -> tuple | None:
            if node is None:
                return None
            return (node.key, shape(node.left), shape(node.right))

        return shape(self._root)

    def validate(self) -> None:
        """Check the treap invariants (search order, heap order on priorities,
        subtree sizes); raise AssertionError describing the first violation."""

        def check(node: _Node | None, lo: Any, hi: Any, has_lo: bool, has_hi: bool) -> int:
            if node is None:
                return 0
            if has_lo and not lo < node.key:
                raise AssertionError(f"key {node.key!r} breaks search order")
            if has_hi and not node.key < hi:
                raise AssertionError(f"key {node.key!r} breaks search order")
            for child in (node.left, node.right):
                if child is not None and child.priority > node.priority:
                    raise AssertionError(f"priority of {child.key!r} exceeds its parent's")
            n = 1 + check(node.left, lo, node.key, has_lo, True)
            n += check(node.right, node.key, hi, True, has_hi)
            if node.size != n:
                raise AssertionError(f"size of {node.key!r} is {node.size}, expected {n}")
            return n

        check(self._root, None, None, False, False)

    # -- units -----------------------------------------------------------------------

    def insert(self, key: Any, value: Any = None) -> bool:
        """Insert ``key`` with ``value``; return True if the key is new.

        For an existing key the value is replaced, the shape of the tree does not
        change, no priority is drawn, and False is returned. A new key gets a
        priority from ``self._rng.random()``, is added as a leaf by the usual search
        tree descent, and is rotated up while its priority is higher than its
        parent's. Subtree sizes are kept up to date.
        """

        def ins(node: _Node | None) -> tuple[_Node, bool]:
            if node is None:
                return _Node(key, value, self._rng.random()), True
            if key < node.key:
                node.left, new = ins(node.left)
                if new:
                    node.size += 1
                    if node.left.priority > node.priority:
                        node = _rotate_right(node)
                return node, new
            if node.key < key:
                node.right, new = ins(node.right)
                if new:
                    node.size += 1
                    if node.right.priority > node.priority:
                        node = _rotate_left(node)
                return node, new
            node.value = value
            return node, False

        self._root, new = ins(self._root)
        return new

    def delete(self, key: Any) -> Any:
        """Remove ``key`` and return its value.

        The node is rotated down (always lifting the child with the higher
        priority) until it is a leaf, then cut off, so the heap order on
        priorities and the subtree sizes stay valid.
        Raises KeyError(key) if the key is absent.
        """

        def rm(node: _Node | None) -> tuple[_Node | None, Any]:
            if node is None:
                raise KeyError(key)
            if key < node.key:
                node.left, val = rm(node.left)
            elif node.key < key:
                node.right, val = rm(node.right)
            else:
                if node.left is None:
                    return node.right, node.value
                if node.right is None:
                    return node.left, node.value
                if node.left.priority > node.right.priority:
                    node = _rotate_right(node)
                    node.right, val = rm(node.right)
                else:
                    node = _rotate_left(node)
                    node.left, val = rm(node.left)
            _update(node)
            return node, val

        self._root, value = rm(self._root)
        return value

    def kth(self, k: int) -> Any:
        """The key of rank ``k`` in ascending order (``kth(0)`` is the smallest).

        Negative ``k`` counts from the end like list indices (``kth(-1)`` is the
        largest). Uses the subtree sizes (O(height)).
        Raises IndexError unless ``-len(self) <= k < len(self)``.
        """
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("treap index out of range")
        node = self._root
        while True:
            ls = _size(node.left)
            if k < ls:
                node = node.left
            elif k == ls:
                return node.key
            else:
                k -= ls + 1
                node = node.right

    def rank(self, key: Any) -> int:
        """The number of stored keys strictly smaller than ``key`` (``key`` itself
        need not be stored)."""
        r = 0
        node = self._root
        while node is not None:
            if node.key < key:
                r += _size(node.left) + 1
                node = node.right
            else:
                node = node.left
        return r

    def floor(self, key: Any) -> Any:
        """The largest stored key that is ``<= key``, or None when there is none."""
        best = None
        node = self._root
        while node is not None:
            if key < node.key:
                node = node.left
            elif node.key < key:
                best = node.key
                node = node.right
            else:
                return node.key
        return best

    def ceiling(self, key: Any) -> Any:
        """The smallest stored key that is ``>= key``, or None when there is none."""
        best = None
        node = self._root
        while node is not None:
            if node.key < key:
                node = node.right
            elif key < node.key:
                best = node.key
                node = node.left
            else:
                return node.key
        return best
