"""Spaces for text observations and actions.

`gymnasium.spaces.Text` accepts only characters of its charset, but observations
carry whatever is in the project's files and the agents' messages (any Unicode).
`UnicodeText` is a `Text` that contains every string up to its maximum length and
samples from printable ASCII (random samples are for checkers, not for agents).

Vector environments (Gymnasium's `SyncVectorEnv` and `AsyncVectorEnv`, SuperSuit's
`concat_vec_envs_v1`) batch spaces through Gymnasium's single-dispatch helpers, which
are registered here for `UnicodeText`: a batch of observations is a sequence of `str`,
one per environment. Gymnasium's own shared memory for `Text` stores each character
as its index in the space's charset, which loses every character outside it; ours
stores code points, so any text crosses processes intact: a batch read from shared
memory is a numpy array of strings (`dtype <U{max_length}`), a live view that the
vector env copies.
"""

from __future__ import annotations

import multiprocessing
import string
from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium.spaces import Text, Tuple
from gymnasium.vector.utils import (
    batch_space,
    concatenate,
    create_empty_array,
    create_shared_memory,
    iterate,
    read_from_shared_memory,
    write_to_shared_memory,
)

from swarm_envs.error import SpaceError

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


# ---------------------------------------------------------------------------- batching


class UnicodeTextBatch(Tuple):
    """`n` copies of a `UnicodeText`: the batched space of a vector env, one text each.

    Its own type, so that Gymnasium iterates a batch of it as a sequence (a plain `Tuple`
    of registered spaces would be iterated element by element).
    """

    def __init__(self, space: UnicodeText, n: int):
        super().__init__([UnicodeText(space.max_length, min_length=space.min_length)] * n)


@batch_space.register(UnicodeText)
def _batch(space: UnicodeText, n: int = 1) -> UnicodeTextBatch:
    return UnicodeTextBatch(space, n)


# Gymnasium iterates a batch with the batched space, SuperSuit with the single one.
# (mypy cannot match a concrete space with `iterate`'s generic fallback `Space[_T]`.)
@iterate.register(UnicodeText)
@iterate.register(UnicodeTextBatch)
def _iterate(space: Tuple | UnicodeText, items: Iterable[str]) -> Iterator[str]:  # type: ignore[misc]
    if isinstance(items, str):  # iterating a str would give its characters
        raise SpaceError(
            f"a batch of {space!r} is a sequence of str, one per environment; got one str"
        )
    return iter(items)


@concatenate.register(UnicodeText)
def _concatenate(space: UnicodeText, items: Iterable[str], out: object) -> tuple[str, ...]:
    return tuple(items)


@create_empty_array.register(UnicodeText)
def _empty(space: UnicodeText, n: int = 1, fn: object = None) -> tuple[str, ...]:
    return ("",) * n


# ---------------------------------------------------------------------------- shared memory


def _text_view(space: UnicodeText, shared: Any, n: int) -> np.ndarray:
    buffer = shared.get_obj() if hasattr(shared, "get_obj") else shared
    return np.frombuffer(buffer, dtype=np.dtype((np.str_, space.max_length)), count=n)


@create_shared_memory.register(UnicodeText)
def _create_shared(space: UnicodeText, n: int = 1, ctx: ModuleType = multiprocessing) -> Any:
    # One UCS-4 code point per character: the layout of numpy's `<U` strings.
    return ctx.Array(np.dtype(np.uint32).char, n * space.max_length)


@read_from_shared_memory.register(UnicodeText)
def _read_shared(space: UnicodeText, shared_memory: Any, n: int = 1) -> np.ndarray:
    return _text_view(space, shared_memory, n)


@write_to_shared_memory.register(UnicodeText)
def _write_shared(space: UnicodeText, index: int, value: str, shared_memory: Any) -> None:
    if not isinstance(value, str) or len(value) > space.max_length:
        raise SpaceError(
            f"cannot write {type(value).__name__} of length "
            f"{len(value) if isinstance(value, str) else '?'} into the shared memory of "
            f"{space!r}: expected a str of at most {space.max_length} characters"
        )
    if value.endswith("\x00"):  # numpy strings drop trailing NULs: say so, never lose text
        raise SpaceError(
            "a text ending in NUL cannot cross shared memory intact; "
            "use the vector env with shared_memory=False"
        )
    view = _text_view(space, shared_memory, index + 1)
    view[index] = value
