"""Myers' O((N+M)D) shortest edit script algorithm."""

from __future__ import annotations

from collections.abc import Sequence


def myers_matches(a: Sequence, b: Sequence) -> list[tuple[int, int]]:
    """Return the index pairs ``(i, j)`` kept by a shortest edit script from `a` to `b`.

    Uses Eugene Myers' greedy algorithm ("An O(ND) Difference Algorithm and Its
    Variations", 1986): explore diagonals ``k = x - y`` for an increasing number of
    edits ``D``, following "snakes" of equal elements, until the end ``(len(a),
    len(b))`` is reached, then backtrack to recover the path.

    The result has the same shape as `textkit.lcs.lcs_matches`: pairs strictly
    increasing in both indices, with ``a[i] == b[j]`` for each, and exactly as many
    pairs as a longest common subsequence (so the number of deleted plus inserted
    elements, ``len(a) + len(b) - 2 * len(result)``, is minimal). When choosing
    between a deletion and an insertion with equal reach, the deletion (moving
    along ``a``) is preferred.

    >>> myers_matches("abc", "abd")
    [(0, 0), (1, 1)]
    """
    n, m = len(a), len(b)
    v = {1: 0}
    trace: list[dict[int, int]] = []
    for d in range(n + m + 1):
        trace.append(dict(v))
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[k - 1] < v[k + 1]):
                x = v[k + 1]
            else:
                x = v[k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            v[k] = x
            if x >= n and y >= m:
                return _backtrack(trace, n, m)
    raise AssertionError("unreachable")  # pragma: no cover


def _backtrack(trace: list[dict[int, int]], n: int, m: int) -> list[tuple[int, int]]:
    pairs = []
    x, y = n, m
    for d in range(len(trace) - 1, -1, -1):
        v = trace[d]
        k = x - y
        if k == -d or (k != d and v[k - 1] < v[k + 1]):
            prev_k = k + 1
        else:
            prev_k = k - 1
        prev_x = v[prev_k]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y:
            x -= 1
            y -= 1
            pairs.append((x, y))
        if d > 0:
            x, y = prev_x, prev_y
    pairs.reverse()
    return pairs
