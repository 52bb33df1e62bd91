"""Spaces for text observations and actions.

`gymnasium.spaces.Text` accepts only characters of its charset, but observations
carry whatever is in the project's files and the agents' messages (any Unicode).
`UnicodeText` is a `Text` that contains every string up to its maximum length and
samples from printable ASCII (random samples are for checkers, not for agents).
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium.spaces import Text

_SAMPLE_CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n"


class UnicodeText(Text):
    """A text space that contains any `str` of length `min_length..max_length`."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Any = None):
        super().__init__(max_length, min_length=min_length, charset=_SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        """True for every `str` of an allowed length, whatever its characters."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )


class Observation(str):
    """A text observation: a plain `str` that also carries its space's `dtype`.

    numpy's own string scalars (`np.str_`) are `str` subclasses with a `dtype`;
    PettingZoo's AEC checker compares `observation.dtype` with the space's dtype, so
    observations carry `np.dtype(str)`, the dtype of every `Text` space. Everything
    else about them is `str`.
    """

    __slots__ = ()
    dtype = np.dtype(str)
