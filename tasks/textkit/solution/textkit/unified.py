"""Unified diff output: hunks with context and ``@@`` headers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from textkit._lines import split_lines
from textkit.diff import Op, diff_lines

NO_NEWLINE = "\\ No newline at end of file\n"


@dataclass
class Hunk:
    """One hunk of a unified diff.

    `old_start`/`new_start` are 1-based line numbers of the first line of the hunk in
    the old/new text; when the hunk holds no line of that side (its count is 0) the
    start is the number of the line just before the hunk (0 at the top of the file),
    as GNU diff writes it. `lines` holds ``(tag, text)`` pairs with tag ``" "``,
    ``"-"`` or ``"+"``; `text` keeps its ``"\\n"`` (the last line of a file may lack
    it).
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: list[Op] = field(default_factory=list)


def group_hunks(ops: Sequence[Op], context: int = 3) -> list[Hunk]:
    """Group diff operations (as from `diff_lines`) into hunks with `context` lines.

    Each hunk covers a run of changes (``"-"``/``"+"`` operations) plus up to
    `context` unchanged (``" "``) operations before its first change and after its
    last change. Two changes separated by at most ``2 * context`` unchanged
    operations belong to the same hunk; a longer run of unchanged operations starts
    a new hunk. Line numbers and counts follow the `Hunk` conventions: the old side
    counts ``" "`` and ``"-"`` operations, the new side ``" "`` and ``"+"``.

    Returns ``[]`` when there is no change at all.

    Raises:
        ValueError: if `context` is negative or an operation has an unknown tag.

    >>> group_hunks([(" ", "a\\n"), ("-", "b\\n"), ("+", "c\\n")], context=1)
    [Hunk(old_start=1, old_count=2, new_start=1, new_count=2, lines=[(' ', 'a\\n'), ('-', 'b\\n'), ('+', 'c\\n')])]
    """
    if context < 0:
        raise ValueError(f"context must not be negative, got {context}")
    for tag, _ in ops:
        if tag not in (" ", "-", "+"):
            raise ValueError(f"unknown diff tag {tag!r}")
    changes = [p for p, (tag, _) in enumerate(ops) if tag != " "]
    if not changes:
        return []
    groups = [[changes[0], changes[0]]]
    for p in changes[1:]:
        if p - groups[-1][1] - 1 > 2 * context:
            groups.append([p, p])
        else:
            groups[-1][1] = p
    hunks = []
    for first, last in groups:
        start = max(0, first - context)
        end = min(len(ops), last + context + 1)
        lines = list(ops[start:end])
        old_before = sum(1 for tag, _ in ops[:start] if tag != "+")
        new_before = sum(1 for tag, _ in ops[:start] if tag != "-")
        old_count = sum(1 for tag, _ in lines if tag != "+")
        new_count = sum(1 for tag, _ in lines if tag != "-")
        hunks.append(
            Hunk(
                old_start=old_before + 1 if old_count else old_before,
                old_count=old_count,
                new_start=new_before + 1 if new_count else new_before,
                new_count=new_count,
                lines=lines,
            )
        )
    return hunks


def format_hunk_header(hunk: Hunk) -> str:
    """Return the ``@@`` header line of `hunk`, without a line ending.

    The format is ``@@ -OLD +NEW @@`` where each range is written ``start,count``,
    or just ``start`` when the count is exactly 1 (GNU diff convention).

    >>> format_hunk_header(Hunk(3, 1, 3, 2))
    '@@ -3 +3,2 @@'
    """
    def rng(start: int, count: int) -> str:
        return str(start) if count == 1 else f"{start},{count}"

    return f"@@ -{rng(hunk.old_start, hunk.old_count)} +{rng(hunk.new_start, hunk.new_count)} @@"


def unified_diff(
    a: str,
    b: str,
    fromfile: str = "a",
    tofile: str = "b",
    context: int = 3,
    algorithm: str = "myers",
) -> str:
    """Return the unified diff turning text `a` into text `b`.

    The texts are split into lines after each ``"\\n"`` (the newline stays part of
    the line, so ``"x"`` and ``"x\\n"`` are different lines; only ``"\\n"`` ends a
    line). The lines are diffed with `diff_lines(..., algorithm)` and grouped with
    `group_hunks(..., context)`. The output is::

        --- {fromfile}
        +++ {tofile}
        @@ -1,3 +1,3 @@        (format_hunk_header, one per hunk)
         kept line
        -removed line
        +added line

    Every body line is the tag followed by the line text. A line without a final
    newline (the last line of a text that does not end with ``"\\n"``) is followed by
    a newline and the marker line ``\\ No newline at end of file``. Every output line
    ends with ``"\\n"``. Identical texts give ``""``.

    Raises:
        ValueError: for a negative `context` or an unknown `algorithm`.
    """
    hunks = group_hunks(diff_lines(split_lines(a), split_lines(b), algorithm), context)
    if not hunks:
        return ""
    out = [f"--- {fromfile}\n", f"+++ {tofile}\n"]
    for hunk in hunks:
        out.append(format_hunk_header(hunk) + "\n")
        for tag, text in hunk.lines:
            out.append(tag + text)
            if not text.endswith("\n"):
                out.append("\n" + NO_NEWLINE)
    return "".join(out)
