"""A set of non-negative integers stored as the bits of one Python int.

Member ``i`` is present exactly when bit ``i`` of the mask is set, so
``BitSet.from_mask(0b1010)`` holds ``{1, 3}``. Python ints are unbounded, so there
is no maximum member.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def _check_index(i: object) -> int:
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"bitset members must be int, not {type(i).__name__}")
    if i < 0:
        raise ValueError(f"bitset members must be non-negative, got {i}")
    return i


class BitSet:
    """A mutable set of non-negative ints.

    >>> b = BitSet([1, 5])
    >>> b.add(3)
    >>> list(b), 3 in b, len(b)
    ([1, 3, 5], True, 3)
    """

    def __init__(self, members: Iterable[int] = ()) -> None:
        """Create a set holding ``members``.

        Raises TypeError for a member that is not an int (bools are rejected) and
        ValueError for a negative member.
        """
        mask = 0
        for i in members:
            mask |= 1 << _check_index(i)
        self._mask = mask

    @classmethod
    def from_mask(cls, mask: int) -> BitSet:
        """A set whose members are the positions of the set bits of ``mask``.

        Raises ValueError if ``mask`` is negative.
        """
        if mask < 0:
            raise ValueError("mask must be non-negative")
        b = cls()
        b._mask = mask
        return b

    @property
    def mask(self) -> int:
        """The bit mask: bit ``i`` is set exactly when ``i`` is a member."""
        return self._mask

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BitSet):
            return NotImplemented
        return self._mask == other._mask

    def __hash__(self) -> int:  # mutable, but equality is by value
        raise TypeError("unhashable type: 'BitSet'")

    def __repr__(self) -> str:
        return f"BitSet.from_mask({bin(self._mask)})"

    def __len__(self) -> int:
        """Number of members (the number of set bits)."""
        return bin(self._mask).count("1")

    def __or__(self, other: BitSet) -> BitSet:
        """Union."""
        return BitSet.from_mask(self._mask | other._mask)

    def __and__(self, other: BitSet) -> BitSet:
        """Intersection."""
        return BitSet.from_mask(self._mask & other._mask)

    def __sub__(self, other: BitSet) -> BitSet:
        """Difference: members of ``self`` not in ``other``."""
        return BitSet.from_mask(self._mask & ~other._mask)

    def add(self, i: int) -> None:
        """Add ``i`` (no effect if already present).

        Raises TypeError if ``i`` is not an int (bools are rejected) and ValueError
        if it is negative.
        """
        self._mask |= 1 << _check_index(i)

    def discard(self, i: int) -> None:
        """Remove ``i`` if present; no error if absent.

        Raises TypeError if ``i`` is not an int (bools are rejected) and ValueError
        if it is negative.
        """
        self._mask &= ~(1 << _check_index(i))

    def __contains__(self, i: object) -> bool:
        """True if ``i`` is a member. Never raises: non-ints, bools and negative
        numbers are simply not members."""
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            return False
        return (self._mask >> i) & 1 == 1

    def __iter__(self) -> Iterator[int]:
        """Iterate over the members in ascending order."""
        mask = self._mask
        while mask:
            low = mask & -mask
            yield low.bit_length() - 1
            mask ^= low

    def next_set_bit(self, start: int) -> int | None:
        """The smallest member that is ``>= start``, or None if there is none.

        Raises ValueError if ``start`` is negative.
        """
        if start < 0:
            raise ValueError(f"start must be non-negative, got {start}")
        rest = self._mask >> start
        if rest == 0:
            return None
        return start + (rest & -rest).bit_length() - 1
