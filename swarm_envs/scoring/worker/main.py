"""Entry point of the scoring worker inside the sandbox: `serve`, `once` or `collect`.

`serve`   the fork server (`server.Server`): one JSON request per line on stdin, one
          record per request back on the channel.
`once`    one pytest run in this very process (the naive scorer): records on the channel.
`collect` collect-only on a tree (the reference solution): node ids on the channel.

The channel is a duplicate of the original stdout; fds 1 and 2 are /dev/null before pytest
starts, so code under test never holds it.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from typing import Any

import pytest

from . import settings
from .codecache import CodeCache
from .protocol import PROTOCOL, Framer
from .reporter import short
from .server import Server
from .session import base_args, redirect_std, run_pytest, set_limits

USAGE = "usage: run.py serve|once|collect\n"


def prepare() -> None:
    """Process-wide settings of a worker."""
    sys.dont_write_bytecode = True
    # Entry-point plugins of whatever is installed could change collection or reporting and
    # cost about a second of start-up; the canonical tests need none.
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    os.environ.pop("PYTEST_ADDOPTS", None)
    os.environ.pop("PYTEST_PLUGINS", None)
    settings.use_site()


def preimport() -> None:
    """Import pytest's default plugins now, so that forked children start warm."""
    import importlib

    from _pytest.config import default_plugins

    for name in default_plugins:
        try:
            importlib.import_module(f"_pytest.{name}")
        except ImportError:
            pass
    import _pytest.assertion.rewrite  # noqa: F401
    import _pytest.fixtures  # noqa: F401

    # Imported lazily by pytest during a session; import them once here.
    for name in ("pdb", "code", "codeop", "cmd", "readline", "encodings.unicode_escape"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def reuse_parsed_sources(limit: int = 64) -> None:
    """Parse a source file once per process for failure texts, not once per traceback entry.

    pytest finds the statement of each entry of a failure's traceback by parsing the
    entry's whole file (`_pytest._code.source.getstatementrange_ast`) and keeps the tree
    for that one failure only: a run of jsonkit's starting state, where 272 of 275 tests
    fail, parsed its test files about 700 times, 60% of the run. The trees are kept here
    by the source text itself (the last `limit` texts), so a file that changed is parsed
    again and every failure text is what pytest would have written. Outcomes never depend
    on it. Installed before a child forks, so the guard's snapshot of pytest includes it.
    """
    import ast
    import warnings

    from _pytest._code import code

    real = code.getstatementrange_ast
    parsed: dict[str, ast.AST] = {}

    def getstatementrange_ast(
        lineno: int, source: Any, assertion: bool = False, astnode: ast.AST | None = None
    ) -> tuple[ast.AST, int, int]:
        if astnode is None:
            content = str(source)
            astnode = parsed.get(content)
            if astnode is None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        astnode = ast.parse(content, "source", "exec")
                    except SyntaxError:
                        return real(lineno, source, assertion)  # raises it, as pytest does
                if len(parsed) >= limit:
                    del parsed[next(iter(parsed))]
                parsed[content] = astnode
        return real(lineno, source, assertion, astnode)

    code.getstatementrange_ast = getstatementrange_ast


def undumpable() -> None:
    """Make this process non-dumpable: children (same uid) cannot ptrace it or read its memory."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except Exception:  # noqa: BLE001 - best effort
        pass


def _channel() -> int:
    fd = os.dup(1)
    os.set_inheritable(fd, False)
    return fd


def serve() -> None:
    """The fork server's loop: a request per line until stdin closes."""
    out_fd = _channel()
    stdin = sys.stdin.buffer
    hello = json.loads(stdin.readline())
    redirect_std(keep_stdin=True)
    preimport()
    reuse_parsed_sources()
    undumpable()
    server = Server(hello, out_fd)
    server.emit({"ev": "ready", "protocol": PROTOCOL, "pid": os.getpid()})
    for line in stdin:
        try:
            req = json.loads(line)
        except ValueError:
            continue
        try:
            resp = server.handle(req)
        except Exception as e:  # noqa: BLE001 - report, keep serving
            resp = {"error": f"{type(e).__name__}: {e}"}
        resp["id"] = req.get("id")
        server.emit(resp)


def once() -> None:
    """The naive scorer: one pytest run in this process, records on the channel."""
    out_fd = _channel()
    hello = json.loads(sys.stdin.buffer.readline())
    redirect_std()
    set_limits(hello.get("limits", {}))
    reuse_parsed_sources()
    cache = CodeCache()
    cache.prepare(hello["tree"], modules=False)
    cache.preimport(hello["tree"])
    storage = run_pytest(
        hello["tree"], hello["ini"], hello["targets"], hello.get("select"), out_fd, code_cache=cache
    )
    # The fork server's children have a temporary directory of their own, removed after
    # each run; this process shares the sandbox's.
    shutil.rmtree(storage, ignore_errors=True)
    os._exit(0)


def collect() -> None:
    """Collect-only on a tree: the node ids and collection errors, as one record."""
    out_fd = _channel()
    hello = json.loads(sys.stdin.buffer.readline())
    redirect_std()
    framer = Framer(out_fd)
    tree = hello["tree"]
    os.chdir(tree)
    settings.use_tree(tree)
    ids: list[str] = []
    errors: dict[str, str] = {}

    class Collector:
        def pytest_collectreport(self, report: pytest.CollectReport) -> None:
            if report.failed:
                errors[report.nodeid] = short(report)

        def pytest_collection_finish(self, session: pytest.Session) -> None:
            ids.extend(it.nodeid for it in session.items)

    try:
        pytest.main(
            [*base_args(hello["ini"], tree), "--collect-only", *hello["targets"]],
            plugins=[settings.Deselect(), Collector()],
        )
    except BaseException as e:  # noqa: BLE001
        errors["<session>"] = f"{type(e).__name__}: {e}"
    framer.emit({"ev": "collection", "ids": ids, "errors": errors})
    os._exit(0)


def main(argv: list[str]) -> None:
    """Run the mode named by `argv[0]`."""
    prepare()
    mode = argv[0] if argv else ""
    if mode == "serve":
        serve()
    elif mode == "once":
        once()
    elif mode == "collect":
        collect()
    else:
        sys.stderr.write(USAGE)
        sys.exit(2)
