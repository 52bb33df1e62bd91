"""Dynamic keys: a test keyed by the project code it executed in its last run (issue 30).

The scoring worker's tracer (`worker.guard`) reports, per test, the lines at which the
project's frames began or resumed running, and the workspace files the test opened for
reading; per test file, the same for everything that ran outside the tests' call phases
(collection, fixtures, teardown), which counts for every test of that file. The host maps
each line to the function it is in, from source it read itself (`spans`), and keys the
test's outcome by the bodies of those functions, on top of the static key (the test file,
the import resolution and the skeletons of every file it can import: module-level code,
class bodies, signatures). This is dynamic regression test selection as in Ekstazi and
pytest-testmon: a test re-runs when code it executed changed, including a function whose
new body calls code the test never reached before (the function itself changed).

The static key stays the ceiling and the fallback (`dynamic_items` returns None): no trace,
a run the guard flagged, a test that did not run to its call phase (an error, a timeout,
a crash), a thread or process started by the test (their frames are not traced), the
tracer switched off during the test, a line the host cannot place in a file of the
snapshot, or an executed function the static analysis says the test cannot reach (the
dynamic key is never wider than the static one). What a forged trace can do is bounded by
the final recount and the audits (docs/integrity.md).
"""

from __future__ import annotations

import ast
import bisect
import functools
import threading
from collections.abc import Callable, Iterable, Mapping

from swarm_envs.core.pysource import parse

from .lru import LRU
from .worker.protocol import OPENED

#: a test's trace: {workspace file: lines}
Trace = Mapping[str, Iterable[int]]
#: (start line, end line, qualified name of the function or method) of a file, sorted
Spans = tuple[tuple[int, int, str], ...]

_spans: LRU[str, Spans | None] = LRU(4096)
_spans_lock = threading.Lock()
MAX_SOURCE = 2_000_000


def spans(digest: str, source: Callable[[], bytes | None]) -> Spans | None:
    """The functions and methods of a Python file with their lines (None: cannot parse).

    The same units as `analysis.FunctionFacts`: functions at module level and in class
    bodies (nested functions belong to the one they are in); a decorated function starts
    at its first decorator (where its code object starts). Memoized by content digest.
    """
    with _spans_lock:
        if digest in _spans:
            return _spans.get(digest)
    data = source()
    out: Spans | None = None
    if data is not None and len(data) <= MAX_SOURCE:
        try:
            tree = parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if tree is not None:
            found: list[tuple[int, int, str]] = []
            todo: list[tuple[ast.Module | ast.ClassDef, str]] = [(tree, "")]
            while todo:
                scope, prefix = todo.pop()
                for node in scope.body:
                    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                        end = node.end_lineno or node.lineno
                        found.append((first, end, prefix + node.name))
                    elif isinstance(node, ast.ClassDef):
                        todo.append((node, f"{prefix}{node.name}."))
            out = tuple(sorted(found))
    with _spans_lock:
        _spans.put(digest, out)
    return out


def function_at(table: Spans, line: int) -> str | None:
    """The function whose lines hold `line` (None: module-level code or a class body).

    The units of a file never overlap (methods are in classes, not in functions).
    """
    i = bisect.bisect_right(table, (line, float("inf"), "")) - 1
    if i >= 0 and table[i][0] <= line <= table[i][1]:
        return table[i][2]
    return None


def executed(
    trace: Trace,
    files: Mapping[str, str],
    source: Callable[[str], bytes | None],
    qualnames: Callable[[str], Iterable[str]],
) -> tuple[dict[str, set[str]], set[str]] | None:
    """(functions by file, files read whole) that a trace names; None: unusable.

    Args:
        trace: {workspace file: lines}; a line `OPENED` means the file was read.
        files: the snapshot the test ran on (rel -> digest).
        source: the content of a file of that snapshot.
        qualnames: the qualified names of a file's functions in the analysis' facts
            (with their `#n` for repeated definitions).
    """
    funcs: dict[str, set[str]] = {}
    whole: set[str] = set()
    for rel, lines in trace.items():
        if type(rel) is not str or not isinstance(lines, list | tuple | set | frozenset):
            return None
        if any(type(ln) is not int for ln in lines):
            return None
        d = files.get(rel)
        if d is None:
            return None  # a file the snapshot does not have (written during the run)
        lines = list(lines)
        if OPENED in lines:
            whole.add(rel)
        if not rel.endswith(".py"):
            if any(ln != OPENED for ln in lines):
                return None
            continue
        table = spans(d, functools.partial(source, rel))
        if table is None:
            return None
        known: dict[str, list[str]] = {}
        for q in qualnames(rel):
            known.setdefault(q.partition("#")[0], []).append(q)
        mine = funcs.setdefault(rel, set())
        for ln in lines:
            if ln == OPENED:
                continue
            if ln < 0:
                return None
            name = function_at(table, ln)
            if name is None:
                continue  # module-level code or a class body: in the file's skeleton
            if name not in known:
                return None  # the analysis does not know it: cannot attribute
            mine.update(known[name])
    return funcs, whole


def merge(*traces: Trace | None) -> dict[str, set[int]] | None:
    """The union of traces (None if any is None)."""
    out: dict[str, set[int]] = {}
    for t in traces:
        if not isinstance(t, dict):
            return None
        for rel, lines in t.items():
            if type(rel) is not str or not isinstance(lines, list | set):
                return None
            out.setdefault(rel, set()).update(lines)
    return out
