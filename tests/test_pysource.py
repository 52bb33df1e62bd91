"""Parsing Python source from many threads at once (`swarm_envs.core.pysource`).

CPython 3.11's AST constructor keeps its depth counter per interpreter; two threads that
build trees at once (a switch inside one parse, as when the collector runs a finalizer)
break each other's parse with a SystemError. Scoring and validation parse from thread
pools. The stress below is checked to break plain `ast.parse` here first: where it does
not, the interpreter has no such race and the check says so instead of passing.
"""

from __future__ import annotations

import ast
import threading
import time
from collections.abc import Callable

import pytest

from swarm_envs.core.pysource import parse

SOURCE = open(ast.__file__, encoding="utf-8").read()  # noqa: SIM115 - read at import


class _Finalized:
    def __del__(self) -> None:
        time.sleep(0)  # the finalizer lets another thread run


def _errors_under_stress(parse_fn: Callable[[str], object], rounds: int = 60) -> list[str]:
    """Four threads parse, each leaving cycles with finalizers for the collector to find
    (it runs inside a parse, on the allocations of the tree)."""
    errors: list[str] = []

    def work() -> None:
        for _ in range(rounds):
            if errors:
                return
            for _ in range(20):
                junk = _Finalized()
                junk.cycle = junk  # type: ignore[attr-defined]
            del junk
            try:
                parse_fn(SOURCE)
            except SystemError as e:
                errors.append(str(e))
                return

    workers = [threading.Thread(target=work) for _ in range(4)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    return errors


@pytest.mark.slow
def test_parsing_from_many_threads_at_once_never_breaks():
    if not _errors_under_stress(ast.parse):
        pytest.skip("plain ast.parse survives the stress on this interpreter: nothing to check")
    assert _errors_under_stress(parse) == []


def test_parse_is_ast_parse():
    tree = parse("def f(x):\n    return x + 1\n", "m.py")
    assert ast.dump(tree) == ast.dump(ast.parse("def f(x):\n    return x + 1\n"))
    with pytest.raises(SyntaxError) as e:
        parse("def f(:\n", "broken.py")
    assert e.value.filename == "broken.py"


def test_the_library_parses_only_through_the_lock():
    """No module of the host side calls `ast.parse` itself (the rule above, kept).

    The scoring worker and make-task's instrumented run execute in processes of their own
    (inside the sandbox) and are left out. A parse of `scoring/traced.py` called straight
    from the fast scorer's pool threads once failed a catalogue build with the SystemError.
    """
    import pathlib

    import swarm_envs

    root = pathlib.Path(swarm_envs.__file__).parent
    own_process = ("scoring/worker/", "project/_profile_run.py", "core/pysource.py")
    direct = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(own_process):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "parse"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "ast"
            ):
                direct.append(f"{rel}:{node.lineno}")
    assert not direct, f"parse through swarm_envs.core.pysource: {direct}"
