"""A binary min-heap stored in a flat Python list.

The element at index ``i`` has its children at ``2*i + 1`` and ``2*i + 2`` and its
parent at ``(i - 1) // 2``. The *heap invariant* is that no element compares smaller
than its parent, where elements are compared by ``key(element)`` (or by the element
itself when the heap has no key). The smallest element is therefore at index 0.

The exact layout of the array after each operation is specified by the method
docstrings, so that two correct implementations always agree element by element.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def _identity(x: Any) -> Any:
    return x


class BinaryHeap:
    """A binary min-heap ordered by an optional key function.

    >>> h = BinaryHeap()
    >>> for x in [5, 1, 4]:
    ...     h.push(x)
    >>> h.pop(), h.pop(), h.pop()
    (1, 4, 5)
    """

    def __init__(self, key: Callable[[Any], Any] | None = None) -> None:
        """Create an empty heap; elements are compared by ``key(element)``
        (by the element itself when ``key`` is None)."""
        self._key = key if key is not None else _identity
        self._items: list[Any] = []

    def __len__(self) -> int:
        """Number of elements in the heap."""
        return len(self._items)

    def __repr__(self) -> str:
        return f"BinaryHeap({self._items!r})"

    def as_list(self) -> list[Any]:
        """A copy of the underlying array, in heap order (index 0 is the minimum)."""
        return list(self._items)

    def peek(self) -> Any:
        """Return the smallest element without removing it.

        Raises IndexError if the heap is empty.
        """
        if not self._items:
            raise IndexError("peek from empty heap")
        return self._items[0]

    def push(self, item: Any) -> None:
        """Add ``item`` to the heap.

        The item is appended at the end of the array and then *sifted up*: while it
        is not at the root and its key is strictly smaller than its parent's key,
        it is swapped with its parent. Equal keys never swap.
        """
        items, key = self._items, self._key
        items.append(item)
        i = len(items) - 1
        k = key(item)
        while i > 0:
            parent = (i - 1) // 2
            if k < key(items[parent]):
                items[i], items[parent] = items[parent], items[i]
                i = parent
            else:
                break

    def pop(self) -> Any:
        """Remove and return the smallest element.

        The last element of the array replaces the root and is then *sifted down*:
        while it has children, it is compared with its smaller child (the left child
        when both children have equal keys) and swapped with it if that child's key
        is strictly smaller; otherwise sifting stops.

        Raises IndexError if the heap is empty.
        """
        items, key = self._items, self._key
        if not items:
            raise IndexError("pop from empty heap")
        last = items.pop()
        if not items:
            return last
        top = items[0]
        items[0] = last
        n = len(items)
        i = 0
        while True:
            left = 2 * i + 1
            if left >= n:
                break
            child = left
            right = left + 1
            if right < n and key(items[right]) < key(items[left]):
                child = right
            if key(items[child]) < key(items[i]):
                items[i], items[child] = items[child], items[i]
                i = child
            else:
                break
        return top

    @classmethod
    def from_iterable(cls, items: Iterable[Any], key: Callable[[Any], Any] | None = None) -> BinaryHeap:
        """Build a heap from ``items`` in linear time (Floyd's bottom-up heapify).

        The items are first copied into the array in their given order. Then every
        internal node, from the last one (index ``n // 2 - 1``) down to the root, is
        sifted down exactly as in :meth:`pop`: swapped with its smaller child (the
        left child on equal keys) while that child's key is strictly smaller.
        The input iterable is not modified.
        """
        heap = cls(key=key)
        arr = list(items)
        k = heap._key
        n = len(arr)
        for start in range(n // 2 - 1, -1, -1):
            i = start
            while True:
                left = 2 * i + 1
                if left >= n:
                    break
                child = left
                if left + 1 < n and k(arr[left + 1]) < k(arr[left]):
                    child = left + 1
                if k(arr[child]) < k(arr[i]):
                    arr[i], arr[child] = arr[child], arr[i]
                    i = child
                else:
                    break
        heap._items = arr
        return heap
