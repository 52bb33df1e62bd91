"""A double-ended queue on a growable circular array.

The elements live in a list of ``capacity`` slots. ``_head`` is the slot of the
first element and ``_size`` the number of elements, so the element at logical
position ``i`` is in slot ``(_head + i) % capacity``. Empty slots hold None.
When an append finds the array full, the capacity doubles (see ``_grow``); the
array never shrinks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

MIN_CAPACITY = 8


class ArrayDeque:
    """A deque with O(1) amortised appends and pops at both ends and O(1) indexing.

    >>> d = ArrayDeque([1, 2, 3])
    >>> d.appendleft(0); d.append(4)
    >>> d.popleft(), d.pop(), list(d)
    (0, 4, [1, 2, 3])
    """

    def __init__(self, items: Iterable[Any] = (), capacity: int = MIN_CAPACITY) -> None:
        """Create a deque holding ``items`` (first item at the front).

        The initial capacity is the smallest power of two that is at least
        ``capacity``, at least ``len(items)`` and at least ``MIN_CAPACITY`` (8).
        The items occupy slots ``0 .. len(items) - 1`` (``_head`` is 0).
        """
        items = list(items)
        cap = MIN_CAPACITY
        while cap < capacity or cap < len(items):
            cap *= 2
        self._buf: list[Any] = items + [None] * (cap - len(items))
        self._head = 0
        self._size = len(items)

    @property
    def capacity(self) -> int:
        """The number of slots in the underlying array."""
        return len(self._buf)

    def __len__(self) -> int:
        """Number of elements."""
        return self._size

    def __iter__(self) -> Iterator[Any]:
        """Iterate from the front to the back."""
        cap = len(self._buf)
        for i in range(self._size):
            yield self._buf[(self._head + i) % cap]

    def __repr__(self) -> str:
        return f"ArrayDeque({list(self)!r})"

    def __getitem__(self, index: int) -> Any:
        """The element at position ``index`` (0 is the front, -1 the back).

        Raises TypeError if ``index`` is not an int and IndexError if it is out of
        range.
        """
        if not isinstance(index, int):
            raise TypeError(f"deque indices must be int, not {type(index).__name__}")
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError("deque index out of range")
        return self._buf[(self._head + index) % len(self._buf)]

    def _grow(self) -> None:
        """Double the capacity, moving the elements to slots 0 .. len - 1."""
        items = list(self)
        self._buf = items + [None] * (2 * len(self._buf) - len(items))
        self._head = 0

    def append(self, item: Any) -> None:
        """Add ``item`` at the back.

        If the array is full it first grows with ``_grow`` (capacity doubles and
        the elements move to slots ``0 .. len - 1``); then the item is written to
        slot ``(_head + len) % capacity``.
        """
        if self._size == len(self._buf):
            self._grow()
        self._buf[(self._head + self._size) % len(self._buf)] = item
        self._size += 1

    def appendleft(self, item: Any) -> None:
        """Add ``item`` at the front.

        If the array is full it first grows with ``_grow``; then ``_head`` moves one
        slot to the left, wrapping from slot 0 to slot ``capacity - 1``, and the
        item is written there.
        """
        if self._size == len(self._buf):
            self._grow()
        self._head = (self._head - 1) % len(self._buf)
        self._buf[self._head] = item
        self._size += 1

    def pop(self) -> Any:
        """Remove and return the back element; its slot is reset to None.

        Raises IndexError if the deque is empty.
        """
        if self._size == 0:
            raise IndexError("pop from an empty deque")
        slot = (self._head + self._size - 1) % len(self._buf)
        item = self._buf[slot]
        self._buf[slot] = None
        self._size -= 1
        return item

    def popleft(self) -> Any:
        """Remove and return the front element; its slot is reset to None and
        ``_head`` advances one slot (wrapping around).

        Raises IndexError if the deque is empty.
        """
        if self._size == 0:
            raise IndexError("pop from an empty deque")
        item = self._buf[self._head]
        self._buf[self._head] = None
        self._head = (self._head + 1) % len(self._buf)
        self._size -= 1
        return item

    def rotate(self, n: int = 1) -> None:
        """Rotate the deque ``n`` steps to the right (to the left when ``n`` is
        negative), like ``collections.deque.rotate``: after ``rotate(1)`` the back
        element is at the front. Rotating an empty deque does nothing.
        The capacity does not change.
        """
        size = self._size
        if size == 0:
            return
        n %= size
        if n == 0:
            return
        items = list(self)
        items = items[-n:] + items[:-n]
        cap = len(self._buf)
        for i, x in enumerate(items):
            self._buf[(self._head + i) % cap] = x
