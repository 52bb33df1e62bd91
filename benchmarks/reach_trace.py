"""A pytest plugin that records, per test, the project's functions it executed.

Used by `bench_keys.py --trace` on a task's reference solution, on the host: trusted code
only (a trace is never a cache key; the scorer's keys are static). Each test's record is
every function whose code started running between the start of its setup and the end of
its teardown, as (file relative to the root, qualified name); the code of a function
nested in another (`f.<locals>.g`, comprehensions, lambdas) counts as the outer one's, as
the static analysis counts it. What runs at collection (module-level code) is not
recorded: the keys cover it by the files' skeletons.

    REACH_ROOT=<project root> REACH_OUT=<file.json> python -m pytest -p reach_trace ...
"""

from __future__ import annotations

import json
import os
import sys
import threading

import pytest

_ROOT = os.path.realpath(os.environ.get("REACH_ROOT", os.getcwd())) + os.sep
_current: set[tuple[str, str]] | None = None
_traces: dict[str, list[list[str]]] = {}
_paths: dict[str, str | None] = {}


def _rel(filename: str) -> str | None:
    hit = _paths.get(filename, "")
    if hit == "":
        real = os.path.realpath(filename)
        hit = _paths[filename] = real[len(_ROOT) :] if real.startswith(_ROOT) else None
    return hit


def _profile(frame, event, arg):  # noqa: ARG001 - sys.setprofile's signature
    if event != "call" or _current is None:
        return
    code = frame.f_code
    rel = _rel(code.co_filename)
    if rel is None or code.co_name == "<module>":
        return
    q = code.co_qualname.split(".<locals>", 1)[0]
    if not q.startswith("<"):
        _current.add((rel, q))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):  # noqa: ARG001
    global _current
    _current = set()
    sys.setprofile(_profile)
    threading.setprofile(_profile)
    try:
        return (yield)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        _traces[item.nodeid] = sorted([list(p) for p in _current])
        _current = None


def pytest_sessionfinish(session):  # noqa: ARG001
    out = os.environ.get("REACH_OUT")
    if out:
        with open(out, "w") as f:
            json.dump(_traces, f)
