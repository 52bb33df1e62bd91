"""Spaces for text observations and actions.

`gymnasium.spaces.Text` accepts only characters of its charset, but observations
carry whatever is in the project's files and the agents' messages (any Unicode).
`UnicodeText` is a `Text` that contains every string up to its maximum length and
samples from printable ASCII (random samples are for checkers, not for agents).
"""

from __future__ import annotations

import string
from typing import Any

from gymnasium.spaces import Text

_SAMPLE_CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n"


class UnicodeText(Text):
    """A text space that contains any `str` of length `min_length..max_length`."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Any = None):
        super().__init__(max_length, min_length=min_length, charset=_SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )
