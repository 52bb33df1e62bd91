"""The error raised for invalid patterns and replacement templates."""

from __future__ import annotations


class RegexError(ValueError):
    """A pattern (or a replacement template) is invalid.

    Attributes: ``msg`` (the bare message, e.g. ``"nothing to repeat"``),
    ``pattern`` (the pattern or template text) and ``pos`` (the 0-based offset
    where the problem was found).  ``str(error)`` is ``"<msg> at position <pos>"``.
    """

    def __init__(self, msg: str, pattern: str, pos: int):
        super().__init__(msg, pattern, pos)
        self.msg = msg
        self.pattern = pattern
        self.pos = pos

    def __str__(self) -> str:
        return f"{self.msg} at position {self.pos}"
