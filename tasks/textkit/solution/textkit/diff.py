"""Line-level and word-level diffs built on a matching algorithm."""

from __future__ import annotations

from collections.abc import Sequence

from textkit.lcs import lcs_matches
from textkit.myers import myers_matches

Op = tuple[str, str]
"""A diff operation: ``(tag, item)`` with tag ``" "`` (kept), ``"-"`` or ``"+"``."""


def diff_lines(a: Sequence[str], b: Sequence[str], algorithm: str = "myers") -> list[Op]:
    """Diff two sequences of lines and return the operations turning `a` into `b`.

    `algorithm` selects the matcher: ``"myers"`` (`myers_matches`) or ``"lcs"``
    (`lcs_matches`). The matched pairs are kept lines, tagged ``" "``. Between two
    consecutive matches (and before the first / after the last), the unmatched lines
    of `a` are emitted first, tagged ``"-"``, followed by the unmatched lines of `b`,
    tagged ``"+"``. Each operation is a tuple ``(tag, line)``; the lines are returned
    unchanged (with whatever line ending they carried).

    Reading only the ``" "`` and ``"-"`` lines gives back `a`; reading only the
    ``" "`` and ``"+"`` lines gives back `b`.

    Raises:
        ValueError: for an unknown `algorithm`.

    >>> diff_lines(["a", "b", "c"], ["a", "x", "c"])
    [(' ', 'a'), ('-', 'b'), ('+', 'x'), (' ', 'c')]
    """
    if algorithm == "myers":
        matches = myers_matches(a, b)
    elif algorithm == "lcs":
        matches = lcs_matches(a, b)
    else:
        raise ValueError(f"unknown diff algorithm {algorithm!r}")
    ops: list[Op] = []
    i = j = 0
    for mi, mj in [*matches, (len(a), len(b))]:
        ops.extend(("-", a[x]) for x in range(i, mi))
        ops.extend(("+", b[y]) for y in range(j, mj))
        if mi < len(a):
            ops.append((" ", a[mi]))
        i, j = mi + 1, mj + 1
    return ops


def diff_words(a: str, b: str, algorithm: str = "myers") -> list[Op]:
    """Diff two texts word by word.

    Both texts are split into words on whitespace (``str.split()``) and diffed with
    `diff_lines` using `algorithm`. Consecutive operations with the same tag are then
    merged into one, their words joined by single spaces. Two texts with the same
    words give a single ``" "`` operation; two texts without words give ``[]``.

    Raises:
        ValueError: for an unknown `algorithm`.

    >>> diff_words("the quick brown fox", "the quick red fox")
    [(' ', 'the quick'), ('-', 'brown'), ('+', 'red'), (' ', 'fox')]
    """
    merged: list[Op] = []
    for tag, word in diff_lines(a.split(), b.split(), algorithm):
        if merged and merged[-1][0] == tag:
            merged[-1] = (tag, merged[-1][1] + " " + word)
        else:
            merged.append((tag, word))
    return merged


def render_word_diff(ops: Sequence[Op]) -> str:
    """Render word-diff operations (as from `diff_words`) as one line of text.

    Kept text is written as is, deleted text as ``[-text-]`` and inserted text as
    ``{+text+}``; the rendered pieces are joined by single spaces. An empty list
    renders as ``""``.

    Raises:
        ValueError: for a tag other than ``" "``, ``"-"`` or ``"+"``.

    >>> render_word_diff([(" ", "a"), ("-", "b"), ("+", "c")])
    'a [-b-] {+c+}'
    """
    parts = []
    for tag, text in ops:
        if tag == " ":
            parts.append(text)
        elif tag == "-":
            parts.append(f"[-{text}-]")
        elif tag == "+":
            parts.append(f"{{+{text}+}}")
        else:
            raise ValueError(f"unknown diff tag {tag!r}")
    return " ".join(parts)
