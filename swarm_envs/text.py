"""Capping text that agents read or that is recorded, with one truncation marker.

Observations, recordings and command output all cut long text the same way and say
how much they left out, in the same words.
"""

from __future__ import annotations


def truncation_marker(n: int, unit: str = "characters") -> str:
    """The marker that stands for `n` left-out `unit`s, on a line of its own."""
    return f"\n[... truncated {n} {unit} ...]\n"


def cap_middle(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: its head and tail around the marker.

    The head keeps two thirds of the room (where a file or a result starts), the tail
    the rest (where a traceback or a status ends).
    """
    if len(text) <= limit:
        return text
    marker = truncation_marker(len(text) - limit)
    keep = max(limit - len(marker), 0)
    head = keep * 2 // 3
    return text[:head] + marker + text[len(text) - (keep - head) :]


def cap_head(text: str, limit: int) -> str:
    """The first `limit` characters of `text`, then the marker if anything was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + truncation_marker(len(text) - limit)
