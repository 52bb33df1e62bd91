"""Parsing Python source, safely from any thread.

CPython 3.11 keeps the depth counter of its AST constructor in per-interpreter state.
Two threads that build trees at once (a thread switch inside one `ast.parse`, for
example when the collector runs a finalizer) corrupt each other's count, and the parse
fails with `SystemError: AST constructor recursion depth mismatch`. Scoring and task
validation parse from thread pools, so every parse of the library goes through one lock.
"""

from __future__ import annotations

import ast
import threading

_lock = threading.Lock()


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(source, filename)`, one thread at a time."""
    with _lock:
        return ast.parse(source, filename=filename)


def parse_expression(source: str) -> ast.expr:
    """The expression `source` (`ast.parse(source, mode="eval").body`), one thread at a time."""
    with _lock:
        return ast.parse(source, mode="eval").body
