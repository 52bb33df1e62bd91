"""A fixed-capacity circular buffer that overwrites its oldest element when full.

The elements live in a list of ``capacity`` slots; ``_start`` is the slot of the
oldest element and ``_size`` the number of elements, so the element at logical
position ``i`` (0 = oldest) is in slot ``(_start + i) % capacity``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


class RingBuffer:
    """A bounded FIFO buffer: appending to a full buffer drops the oldest element.

    >>> r = RingBuffer(3, [1, 2, 3])
    >>> r.append(4)        # evicts 1
    1
    >>> r.to_list(), r[0], r[-1]
    ([2, 3, 4], 2, 4)
    """

    def __init__(self, capacity: int, items: Iterable[Any] = ()) -> None:
        """Create a buffer of ``capacity`` slots holding ``items`` in order (only the
        last ``capacity`` of them when there are more).

        Raises ValueError if ``capacity`` is smaller than 1.
        """
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self._buf: list[Any] = [None] * capacity
        items = list(items)[-capacity:]
        self._buf[: len(items)] = items
        self._start = 0
        self._size = len(items)

    @property
    def capacity(self) -> int:
        """The number of slots."""
        return len(self._buf)

    @property
    def full(self) -> bool:
        """True when the buffer holds ``capacity`` elements."""
        return self._size == len(self._buf)

    def __len__(self) -> int:
        """Number of elements held."""
        return self._size

    def __iter__(self) -> Iterator[Any]:
        """Iterate from the oldest element to the newest."""
        cap = len(self._buf)
        for i in range(self._size):
            yield self._buf[(self._start + i) % cap]

    def to_list(self) -> list[Any]:
        """The elements from the oldest to the newest."""
        return list(self)

    def __repr__(self) -> str:
        return f"RingBuffer({self.capacity}, {self.to_list()!r})"

    def append(self, item: Any) -> Any:
        """Add ``item`` as the newest element.

        When the buffer is full the oldest element is overwritten and returned;
        otherwise None is returned.
        """
        cap = len(self._buf)
        if self._size == cap:
            old = self._buf[self._start]
            self._buf[self._start] = item
            self._start = (self._start + 1) % cap
            return old
        self._buf[(self._start + self._size) % cap] = item
        self._size += 1
        return None

    def popleft(self) -> Any:
        """Remove and return the oldest element; its slot is reset to None.

        Raises IndexError if the buffer is empty.
        """
        if self._size == 0:
            raise IndexError("pop from empty ring buffer")
        item = self._buf[self._start]
        self._buf[self._start] = None
        self._start = (self._start + 1) % len(self._buf)
        self._size -= 1
        return item

    def __getitem__(self, index: int) -> Any:
        """The element at logical position ``index``: 0 is the oldest, -1 the newest.

        Raises TypeError if ``index`` is not an int (slices are not supported) and
        IndexError if it is out of range (``-len <= index < len`` is valid).
        """
        if not isinstance(index, int):
            raise TypeError(f"ring buffer indices must be int, not {type(index).__name__}")
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError("ring buffer index out of range")
        return self._buf[(self._start + index) % len(self._buf)]
