"""Reading and applying unified patches."""

from __future__ import annotations

import re

from textkit._lines import split_lines
from textkit.errors import PatchError
from textkit.unified import Hunk

_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def parse_patch(text: str) -> list[Hunk]:
    """Parse the hunks of a unified diff (as written by `unified_diff`).

    Lines outside hunks (``---``/``+++`` file headers, ``diff`` lines, blank or
    other text between hunks) are ignored. A hunk starts with a header
    ``@@ -OLD +NEW @@`` (anything after the closing ``@@`` is ignored), where each
    range is ``start,count`` or ``start`` (count 1). The body lines that follow are
    read until the old and new counts are reached: ``" "`` lines count for both
    sides, ``"-"`` lines for the old side and ``"+"`` lines for the new side; a line
    that is just ``"\\n"`` is taken as an empty context line. The text of each body
    line (after the tag) keeps its ``"\\n"``; a body line at the very end of the
    patch without a newline is read as if it had one. A ``\\ No newline at end of
    file`` marker (any line starting with a backslash) directly after a body line
    removes the ``"\\n"`` from that line's text.

    Returns the hunks in order, as `Hunk` objects; ``[]`` for a text without hunks.

    Raises:
        PatchError: for a line starting with ``@@`` that is not a valid header, a
            body line with an unknown tag, a hunk with more lines than its header
            announces on either side, a backslash marker with no line before it,
            or a patch that ends before a hunk is complete. Messages give the
            1-based line number in the patch.
    """
    lines = split_lines(text)
    hunks: list[Hunk] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("@@"):
            i += 1
            continue
        m = _HEADER.match(line)
        if m is None:
            raise PatchError(f"line {i + 1}: malformed hunk header {line.rstrip()!r}")
        old_start, new_start = int(m[1]), int(m[3])
        old_count = int(m[2]) if m[2] is not None else 1
        new_count = int(m[4]) if m[4] is not None else 1
        header_line = i + 1
        i += 1
        body: list[tuple[str, str]] = []
        old_seen = new_seen = 0
        while old_seen < old_count or new_seen < new_count:
            if i >= len(lines):
                raise PatchError(f"line {header_line}: hunk ends before all its lines")
            line = lines[i]
            if line.startswith("\\"):
                if not body:
                    raise PatchError(f"line {i + 1}: no-newline marker without a line")
                tag, t = body[-1]
                body[-1] = (tag, t.removesuffix("\n"))
                i += 1
                continue
            if not line.endswith("\n"):
                line += "\n"
            tag, t = (" ", "\n") if line == "\n" else (line[0], line[1:])
            if tag not in (" ", "-", "+"):
                raise PatchError(f"line {i + 1}: unexpected line in hunk: {line.rstrip()!r}")
            if tag != "+":
                old_seen += 1
            if tag != "-":
                new_seen += 1
            if old_seen > old_count or new_seen > new_count:
                raise PatchError(f"line {i + 1}: hunk has more lines than its header says")
            body.append((tag, t))
            i += 1
        if i < len(lines) and lines[i].startswith("\\"):
            if not body:
                raise PatchError(f"line {i + 1}: no-newline marker without a line")
            tag, t = body[-1]
            body[-1] = (tag, t.removesuffix("\n"))
            i += 1
        hunks.append(Hunk(old_start, old_count, new_start, new_count, body))
    return hunks


def apply_patch(original: str, patch: str) -> str:
    """Apply the unified diff `patch` to the text `original` and return the new text.

    The patch is read with `parse_patch`. Hunks are applied in order, exactly (no
    fuzz, no offset search): the old side of a hunk (its ``" "`` and ``"-"`` lines,
    with their newlines) must equal the lines of `original` starting at line
    `old_start` (1-based; for a hunk with no old lines, the new lines are inserted
    after line `old_start`, 0 meaning the top). The old side is replaced by the new
    side (``" "`` and ``"+"`` lines). Lines of `original` outside any hunk are
    copied unchanged. A patch without hunks returns `original` unchanged.

    Raises:
        PatchError: if the patch is malformed (see `parse_patch`), if a hunk starts
            before the end of the previous hunk or beyond the end of `original`, or
            if a hunk's old lines do not match `original`; the message names the
            hunk by its 1-based number (e.g. ``"hunk 2 does not apply at line 14"``).

    >>> apply_patch("a\\nb\\n", "@@ -2 +2 @@\\n-b\\n+c\\n")
    'a\\nc\\n'
    """
    src = split_lines(original)
    out: list[str] = []
    cursor = 0
    for n, hunk in enumerate(parse_patch(patch), 1):
        old = [t for tag, t in hunk.lines if tag != "+"]
        new = [t for tag, t in hunk.lines if tag != "-"]
        pos = hunk.old_start - 1 if hunk.old_count else hunk.old_start
        if pos < cursor:
            raise PatchError(f"hunk {n} overlaps the previous hunk or is out of order")
        if pos > len(src) or src[pos : pos + len(old)] != old:
            raise PatchError(f"hunk {n} does not apply at line {hunk.old_start}")
        out.extend(src[cursor:pos])
        out.extend(new)
        cursor = pos + len(old)
    out.extend(src[cursor:])
    return "".join(out)
