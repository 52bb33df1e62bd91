"""Capping text that agents read or that is recorded, with one truncation marker.

Observations, recordings and command output all cut long text the same way and say
how much they left out, in the same words.
"""

from __future__ import annotations


def truncation_marker(n: int, unit: str = "characters") -> str:
    """The marker that stands for `n` left-out `unit`s, on a line of its own."""
    return f"\n[... truncated {n} {unit} ...]\n"


def cap_middle(text: str, limit: int, *, whole_lines: bool = False) -> str:
    """`text` in at most `limit` characters: its head and tail around the marker.

    The head keeps two thirds of the room (where a file or a result starts), the tail
    the rest (where a traceback or a status ends). With `whole_lines`, the tail starts
    at the beginning of a line (a partial first line is left out too), so that no line
    after the marker begins in the middle of a line of `text`: what starts a line there
    started a line in `text`.
    """
    if len(text) <= limit:
        return text
    marker = truncation_marker(len(text) - limit)
    keep = max(limit - len(marker), 0)
    head = keep * 2 // 3
    start = len(text) - (keep - head)
    if whole_lines and start > 0 and text[start - 1] != "\n":
        nl = text.find("\n", start)
        start = len(text) if nl < 0 else nl + 1
        marker = truncation_marker(start - head)
    return text[:head] + marker + text[start:]


def cap_head(text: str, limit: int) -> str:
    """The first `limit` characters of `text`, then the marker if anything was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + truncation_marker(len(text) - limit)
