"""Removing and adding indentation."""

from __future__ import annotations

from collections.abc import Callable


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def dedent(text: str) -> str:
    """Remove the longest common leading whitespace from every line of `text`.

    Only spaces and tabs count as indentation, and they are compared character by
    character (a tab and a space are different, so ``"\\tx"`` and ``"  y"`` have no
    common margin). Blank lines (empty or whitespace-only) are ignored when the
    margin is computed and are replaced by empty lines in the result (their line
    ending is kept). Line endings (``"\\n"``) are preserved, including the presence
    or absence of a final newline.

    >>> dedent("    a\\n      b\\n")
    'a\\n  b\\n'
    """
    lines = text.splitlines(keepends=True)
    margin: str | None = None
    for line in lines:
        body = line.rstrip("\r\n")
        if not body.strip():
            continue
        lead = _leading(body)
        if margin is None:
            margin = lead
        else:
            n = 0
            while n < len(margin) and n < len(lead) and margin[n] == lead[n]:
                n += 1
            margin = margin[:n]
    out = []
    for line in lines:
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if not body.strip():
            out.append(ending)
        else:
            out.append(line[len(margin or ""):])
    return "".join(out)


def indent(text: str, prefix: str, predicate: Callable[[str], bool] | None = None) -> str:
    """Add `prefix` to the start of selected lines of `text`.

    Lines are split keeping their line endings. A line gets the prefix when
    ``predicate(line)`` is true, where `line` includes its line ending. The default
    predicate selects every line that is not blank (``line.strip() != ""``).
    Everything else, including line endings, is unchanged.

    >>> indent("a\\n\\nb", "> ")
    '> a\\n\\n> b'
    """
    if predicate is None:
        def predicate(line: str) -> bool:
            return bool(line.strip())
    return "".join(
        prefix + line if predicate(line) else line for line in text.splitlines(keepends=True)
    )
