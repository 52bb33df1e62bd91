"""Longest common subsequence by dynamic programming."""

from __future__ import annotations

from collections.abc import Sequence


def lcs_matches(a: Sequence, b: Sequence) -> list[tuple[int, int]]:
    """Return the index pairs ``(i, j)`` of a longest common subsequence of `a` and `b`.

    Each pair satisfies ``a[i] == b[j]``; the pairs are strictly increasing in both
    ``i`` and ``j``, and there are as many of them as the length of a longest common
    subsequence. Elements are compared with ``==``.

    The choice among equally long subsequences is fixed: let ``L[i][j]`` be the LCS
    length of the suffixes ``a[i:]`` and ``b[j:]``. Starting from ``(0, 0)``: if
    ``a[i] == b[j]`` the pair is taken and both indices advance; otherwise ``i``
    advances when ``L[i + 1][j] >= L[i][j + 1]``, else ``j`` advances.

    >>> lcs_matches("abc", "xbc")
    [(1, 1), (2, 2)]
    """
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = table[i], table[i + 1]
        for j in range(m - 1, -1, -1):
            if a[i] == b[j]:
                row[j] = below[j + 1] + 1
            else:
                row[j] = max(below[j], row[j + 1])
    pairs = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            pairs.append((i, j))
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs
