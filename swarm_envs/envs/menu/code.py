"""Reading a unit's code: the body of each function of a unit, from the source text.

`bodies(source, symbol)` finds the function(s) of a unit with the task's stubbing
rules (`swarm_envs.tasks.stubbing`) and returns their line spans; `UnitView` is what the
workspace holds for one unit now. Parsing is cached by source text.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from swarm_envs.core.pysource import parse
from swarm_envs.tasks.stubbing import body_span, find_symbol
from swarm_envs.tasks.stubbing import functions_of as _functions_of


@functools.lru_cache(maxsize=512)
def bodies(source: str, symbol: str) -> tuple[tuple[int, int, int], ...] | None:
    """(def line, first body line, last body line) of each function of `symbol`, or None."""
    try:
        node = find_symbol(parse(source), symbol)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if node is None:
        return None
    spans = []
    for fn in _functions_of(node):
        start, end = body_span(fn)
        if start:
            spans.append((fn.lineno, start, end))
    return tuple(spans)


@dataclass
class UnitView:
    """What the workspace says about one unit right now."""

    bodies: tuple[str, ...] | None  # the current body text of each function
    spans: tuple[tuple[int, int, int], ...] | None
    lines: list[str] = field(default_factory=list)
