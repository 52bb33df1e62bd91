"""structkit: classic data structures in pure Python.

Every structure lives in its own module and depends on nothing but the standard
library, so each can be read, tested and used on its own:

* :class:`BinaryHeap` (``structkit.heap``): a binary min-heap with an optional key.
* :class:`LRUCache` (``structkit.lru``): a fixed-capacity least-recently-used cache.
* :class:`Trie` (``structkit.trie``): a prefix tree of strings with prefix search.
* :class:`UnionFind` (``structkit.unionfind``): disjoint sets with path compression.
* :class:`IntervalSet` and :func:`merge_intervals` (``structkit.intervals``):
  sorted sets of disjoint half-open integer intervals.
* :class:`RingBuffer` (``structkit.ringbuffer``): a fixed-capacity circular buffer.
* :class:`BitSet` (``structkit.bitset``): a set of small non-negative integers.
* :class:`Treap` (``structkit.treap``): an ordered map with order statistics.
* :class:`ArrayDeque` (``structkit.deque``): a double-ended queue on a circular array.
"""

from structkit.bitset import BitSet
from structkit.deque import ArrayDeque
from structkit.heap import BinaryHeap
from structkit.intervals import IntervalSet, merge_intervals
from structkit.lru import LRUCache
from structkit.ringbuffer import RingBuffer
from structkit.treap import Treap
from structkit.trie import Trie
from structkit.unionfind import UnionFind

__all__ = [
    "ArrayDeque",
    "BinaryHeap",
    "BitSet",
    "IntervalSet",
    "LRUCache",
    "RingBuffer",
    "Treap",
    "Trie",
    "UnionFind",
    "merge_intervals",
]
