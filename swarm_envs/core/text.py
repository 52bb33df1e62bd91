"""Capping text that agents read or that is recorded, with one truncation marker.

Observations, recordings and command output all cut long text the same way and say
how much they left out, in the same words.
"""

from __future__ import annotations

from collections.abc import Callable


def truncation_marker(n: int, unit: str = "characters", hint: str = "") -> str:
    """The marker that stands for `n` left-out `unit`s, on a line of its own.

    `hint` says how to see them (for example, which lines to read).
    """
    return f"\n[... truncated {n} {unit}{': ' + hint if hint else ''} ...]\n"


def cap_middle(
    text: str,
    limit: int,
    *,
    whole_lines: bool = False,
    hint: Callable[[str, int, int], str] | None = None,
) -> str:
    """`text` in at most `limit` characters: its head and tail around the marker.

    The head keeps two thirds of the room (where a file or a result starts), the tail
    the rest (where a traceback or a status ends). With `whole_lines`, the tail starts
    at the beginning of a line (a partial first line is left out too), so that no line
    after the marker begins in the middle of a line of `text`: what starts a line there
    started a line in `text`. `hint(text, cut_from, cut_to)` goes into the marker; room
    is reserved for its longest form, `hint(text, len(text), len(text))` (so a hint may
    grow with the offsets, never otherwise).
    """
    if len(text) <= limit:
        return text

    def marker(cut_from: int, cut_to: int) -> str:
        return truncation_marker(
            cut_to - cut_from, hint=hint(text, cut_from, cut_to) if hint else ""
        )

    end = len(text)
    longest = truncation_marker(end, hint=hint(text, end, end) if hint else "")
    keep = max(limit - len(longest), 0)
    head = keep * 2 // 3
    start = len(text) - (keep - head)
    if whole_lines and start > 0 and text[start - 1] != "\n":
        nl = text.find("\n", start)
        start = len(text) if nl < 0 else nl + 1
    return text[:head] + marker(head, start) + text[start:]


def cap_head(text: str, limit: int) -> str:
    """The first `limit` characters of `text`, then the marker if anything was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + truncation_marker(len(text) - limit)
