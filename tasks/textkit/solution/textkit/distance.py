"""Edit distances between sequences."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def levenshtein(a: Sequence, b: Sequence) -> int:
    """Return the Levenshtein distance between sequences `a` and `b`.

    The distance is the minimum number of single-element insertions, deletions and
    substitutions (each costing 1) that turn `a` into `b`. Works on strings and on
    any sequences of comparable elements (lists of words, tuples, ...).

    >>> levenshtein("kitten", "sitting")
    3
    """
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y))
            )
        previous = current
    return previous[-1]


def hamming(a: Sequence, b: Sequence) -> int:
    """Return the number of positions at which equal-length `a` and `b` differ.

    Raises:
        ValueError: if `a` and `b` have different lengths.

    >>> hamming("karolin", "kathrin")
    3
    """
    if len(a) != len(b):
        raise ValueError(f"sequences differ in length: {len(a)} != {len(b)}")
    return sum(1 for x, y in zip(a, b) if x != y)


def similarity(a: Sequence, b: Sequence) -> float:
    """Return a similarity score in ``[0.0, 1.0]`` based on the Levenshtein distance.

    The score is ``1 - levenshtein(a, b) / max(len(a), len(b))``; two empty
    sequences are identical and score ``1.0``.

    >>> similarity("abcd", "abed")
    0.75
    """
    longest = max(len(a), len(b))
    if longest == 0:
        return 1.0
    return 1.0 - levenshtein(a, b) / longest


def closest_matches(
    word: str, candidates: Iterable[str], n: int = 3, max_distance: int | None = None
) -> list[str]:
    """Return up to `n` candidates closest to `word` by Levenshtein distance.

    Candidates are ordered by increasing distance; candidates at the same distance
    keep their order in `candidates`. When `max_distance` is given, candidates whose
    distance is greater than it are left out. Duplicates in `candidates` are kept.

    Raises:
        ValueError: if `n` is negative.

    >>> closest_matches("appl", ["ape", "apple", "peach"], n=2)
    ['apple', 'ape']
    """
    if n < 0:
        raise ValueError(f"n must not be negative, got {n}")
    scored = []
    for index, cand in enumerate(candidates):
        d = levenshtein(word, cand)
        if max_distance is None or d <= max_distance:
            scored.append((d, index, cand))
    scored.sort()
    return [cand for _, _, cand in scored[:n]]
