"""The scoring worker: runs the canonical tests inside a sandbox and reports per-test outcomes.

This file is copied into the sandbox's private scoring area and run as a script with
`python -I -B`, so it imports nothing but the standard library and pytest (the sandbox
cannot see the swarm_envs package). Three modes:

`serve`   a fork server: imports pytest once, then for each request (one JSON line on
          stdin) forks a child that runs pytest on a scoring tree and reports to the
          parent over a private pipe. The parent never imports code under test, so every
          evaluation starts from the same clean state. A child that crashes (`os._exit`,
          a signal) or hangs is killed and its remaining tests re-run in a new child,
          the culprit counted as failing; one JSON line per request goes back on stdout.
`once`    one pytest run in this very process (the naive scorer): records on stdout.
`collect` collect-only on a tree (the reference solution): node ids on stdout.

Every record on stdout starts with a nonce the host sent first on stdin; code under test
never holds the real stdout (fd 1 is redirected before pytest starts), so printing
something that looks like a result, or a pytest summary, counts for nothing.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time

import pytest

PROTOCOL = 1
FAILURE_LINES = 12


def _prepare() -> None:
    """Process-wide settings of a worker (never applied when the host imports this module)."""
    sys.dont_write_bytecode = True
    # Entry-point plugins of whatever is installed could change collection or reporting and
    # cost about a second of start-up; the canonical tests need none.
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    os.environ.pop("PYTEST_ADDOPTS", None)
    os.environ.pop("PYTEST_PLUGINS", None)


class RunState:
    """Outcomes of one pytest process, from its records, checking that they are plausible.

    Records arrive in a fixed order (collect..., collected, then start/bad.../done per test,
    finish). Anything else (a second collection, a result for a test that is not running,
    a second result, records after the end) means the code under test forged records:
    the whole run then counts as failing.
    """

    def __init__(self) -> None:
        self.results: dict[str, list] = {}
        self.bad: dict[str, str] = {}
        self.collect_errors: dict[str, str] = {}
        self.collected: list[str] | None = None
        self.current = ""
        self.current_file = ""
        self.finished = False
        self.tampered = ""
        self.notes: list[str] = []
        self.deps: dict | None = None
        self._started: set[str] = set()

    def _anomaly(self, why: str) -> None:
        if not self.tampered:
            self.tampered = f"the test run's report channel was tampered with ({why})"

    def feed(self, rec: dict) -> None:
        ev = rec.get("ev")
        nid = str(rec.get("id", ""))
        if self.finished:
            self._anomaly(f"a {ev!r} record after the end of the run")
        elif ev == "collect":
            if self.collected is not None:
                self._anomaly("collection after the collection finished")
            self.current_file = str(rec.get("file", ""))
        elif ev == "collect_error":
            self.collect_errors.setdefault(str(rec.get("file", "")), str(rec.get("text", "")))
        elif ev == "collected":
            if self.collected is not None:
                self._anomaly("two collections")
            self.collected = [str(i) for i in rec.get("ids", [])]
            self.current_file = ""
        elif ev == "start":
            if self.collected is None or nid not in self.collected:
                self._anomaly(f"a test that was not collected started: {nid}")
            if self.current or nid in self._started:
                self._anomaly(f"{nid} started twice or while another test ran")
            self._started.add(nid)
            self.current = nid
        elif ev == "bad":
            if nid != self.current:
                self._anomaly(f"a failure record for {nid}, which is not running")
            self.bad.setdefault(nid, str(rec.get("text", "")))
        elif ev == "done":
            if nid != self.current or nid in self.results:
                self._anomaly(f"a result for {nid}, which is not running")
            else:
                ok = bool(rec.get("passed"))
                self.results[nid] = [ok, "" if ok else self.bad.get(nid, "failed")]
            self.current = ""
        elif ev == "deps":
            if self.deps is not None:
                self._anomaly("two dependency records")
            self.deps = rec
        elif ev == "tampered":
            self.tampered = self.tampered or str(rec.get("text", "tampered"))
        elif ev == "error":
            self.notes.append(str(rec.get("text", "")))
        elif ev == "finish":
            self.finished = True

    def final_results(self) -> dict[str, list]:
        if self.tampered:
            return {k: [False, self.tampered] for k in self.results}
        return self.results


def _preimport() -> None:
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


def _base_args(ini: str, rootdir: str) -> list[str]:
    return [
        "-c",
        ini,
        f"--rootdir={rootdir}",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:stepwise",
        "-p",
        "no:pastebin",
        "-p",
        "no:junitxml",
        "-p",
        "no:legacypath",
        "-p",
        "no:faulthandler",
        # Both run gc.collect() over the whole heap at the end of a session (~40 ms each)
        # to report unraisable exceptions as warnings; warnings do not decide outcomes.
        "-p",
        "no:unraisableexception",
        "-p",
        "no:threadexception",
        "-q",
        "--tb=short",
        "-o",
        "console_output_style=classic",
        "--import-mode=prepend",
        "--continue-on-collection-errors",
    ]


def _short(report: object) -> str:
    text = getattr(report, "longreprtext", "") or ""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    head = [f"{crash.path}:{crash.lineno}: {crash.message}"] if crash is not None else []
    tail = lines[-FAILURE_LINES:]
    short = "\n".join(head + (["..."] if len(lines) > len(tail) else []) + tail)
    # Paths relative to the tree (the cwd), as the workspace shows them, not the scorer's.
    return short.replace(os.getcwd() + os.sep, "")[:4000]


def _critical() -> list[tuple[object, str, object]]:
    """(owner, name, value) of everything that decides how tests are loaded, run and judged.

    Code under test runs in the same process as pytest; if it swaps any of these (to make
    failing tests pass, or to load other code as a test module), the run counts as failing.
    """
    import builtins
    import importlib._bootstrap as bootstrap
    import importlib._bootstrap_external as external

    import _pytest.assertion.rewrite as rewrite
    import _pytest.main
    import _pytest.outcomes
    import _pytest.python
    import _pytest.reports
    import _pytest.runner

    table = (
        (
            _pytest.runner,
            [
                "call_and_report",
                "runtestprotocol",
                "call_runtest_hook",
                "check_interactive_exception",
                "pytest_runtest_makereport",
                "pytest_runtest_protocol",
            ],
        ),
        (_pytest.runner.CallInfo, ["from_call"]),
        (_pytest.reports.TestReport, ["from_item_and_call", "__init__"]),
        (_pytest.reports.BaseReport, ["passed", "failed", "skipped"]),
        (_pytest.python.Function, ["runtest", "setup", "_getobj"]),
        (_pytest.python.Module, ["_getobj", "_importtestmodule", "collect"]),
        (_pytest.python, ["pytest_pyfunc_call", "pytest_pycollect_makeitem"]),
        (_pytest.main, ["pytest_runtestloop", "pytest_collection"]),
        (_pytest.outcomes, ["fail", "skip", "exit", "xfail"]),
        (rewrite, ["_rewrite_test", "rewrite_asserts"]),
        (rewrite.AssertionRewritingHook, ["find_spec", "exec_module", "create_module"]),
        (builtins, ["__import__", "compile", "exec", "AssertionError", "isinstance"]),
        (bootstrap, ["_find_and_load", "_load_unlocked"]),
        (external.SourceFileLoader, ["get_data"]),
        (external.PathFinder, ["find_spec"]),
        (sys, ["meta_path", "path_hooks"]),
    )
    out = []
    for owner, names in table:
        for n in names:
            out.append((owner, n, owner.__dict__.get(n)))
    return out


class Reporter:
    """A pytest plugin that streams outcomes to `emit` and watches for tampering."""

    def __init__(self, emit, select_ids: list[str] | None = None, tracker=None):  # noqa: ANN001
        self._emit = emit
        self._tracker = tracker
        self._select = set(select_ids) if select_ids else None
        self._phases: dict[str, list[tuple[str, str]]] = {}
        self._critical = _critical()
        self._meta_path: list = []
        self._path_hooks: list = []
        self._plugins: set[int] | None = None
        self._items: dict[str, object] = {}
        self.tampered = ""

    def _check(self, config: object) -> None:
        if self.tampered:
            return
        for owner, name, value in self._critical:
            if owner.__dict__.get(name) is not value:  # type: ignore[attr-defined]
                where = getattr(owner, "__name__", "?")
                self.tampered = f"the code under test replaced {where}.{name}"
                break
        else:
            if self._plugins is not None and (
                sys.meta_path != self._meta_path or sys.path_hooks != self._path_hooks
            ):
                self.tampered = "the code under test changed the import system (sys.meta_path)"
        pm = config.pluginmanager  # type: ignore[attr-defined]
        if self._plugins is not None:
            for plugin in pm.get_plugins():
                if id(plugin) not in self._plugins and not self._canonical_conftest(plugin):
                    self.tampered = "a pytest plugin was registered by the code under test"
                    break
        if self.tampered:
            self._emit({"ev": "tampered", "text": self.tampered})

    def _canonical_conftest(self, plugin: object) -> bool:
        # Conftests found during collection are canonical: the scoring tree holds no others.
        f = getattr(plugin, "__file__", None) or ""
        return (
            type(plugin).__name__ == "module"
            and f.endswith("conftest.py")
            and os.path.realpath(f).startswith(self._tests_root)
        )

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: object) -> None:
        self._config = config
        self._tests_root = os.path.realpath(str(config.rootpath)) + os.sep  # type: ignore[attr-defined]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: object) -> None:
        # Plugins known before any code under test is imported (collection imports it).
        pm = session.config.pluginmanager  # type: ignore[attr-defined]
        self._plugins = {id(p) for p in pm.get_plugins()}
        self._meta_path = list(sys.meta_path)
        self._path_hooks = list(sys.path_hooks)

    def pytest_collectstart(self, collector: object) -> None:
        path = getattr(collector, "nodeid", "")
        if type(collector).__name__ == "Module":
            self._emit({"ev": "collect", "file": path})

    def pytest_collectreport(self, report: object) -> None:
        if report.failed and report.nodeid:  # type: ignore[attr-defined]
            self._emit({"ev": "collect_error", "file": report.nodeid, "text": _short(report)})  # type: ignore[attr-defined]

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: object, config: object, items: list) -> None:
        if self._select is not None:
            items[:] = [it for it in items if it.nodeid in self._select]

    def _replaced(self, item: object) -> bool:
        """True if the test function is not code compiled from the canonical test files."""
        if _code_cache is None or not hasattr(item, "obj"):
            return False
        try:
            code = getattr(item.obj, "__code__", None)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a broken object is not canonical
            return True
        return code is not None and not _code_cache.canonical(code)

    def pytest_collection_finish(self, session: object) -> None:
        if self._tracker is not None:
            self._tracker.to_global()  # collection: every test's business
        self._check(session.config)  # type: ignore[attr-defined]
        self._emit({"ev": "collected", "ids": [it.nodeid for it in session.items]})  # type: ignore[attr-defined]

    def pytest_runtest_logstart(self, nodeid: str, location: object) -> None:
        if self._tracker is not None:
            self._tracker.to_global()
        self._emit({"ev": "start", "id": nodeid})

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef: object, request: object):  # noqa: ANN201
        # A fixture shared by several tests runs once: what it executes is everyone's.
        shared = (
            self._tracker is not None and getattr(fixturedef, "scope", "function") != "function"
        )
        before = self._tracker.take() if shared else set()
        yield
        if shared:
            self._tracker.to_global()
            self._tracker.mark(before)

    def pytest_runtest_logreport(self, report: object) -> None:
        r = report
        self._phases.setdefault(r.nodeid, []).append((r.when, r.outcome))  # type: ignore[attr-defined]
        if r.outcome != "passed":  # type: ignore[attr-defined]
            text = _short(r)
            if r.outcome == "skipped":  # type: ignore[attr-defined]
                text = f"skipped: {text}"
            self._emit({"ev": "bad", "id": r.nodeid, "when": r.when, "text": text})  # type: ignore[attr-defined]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: object) -> None:
        if self._replaced(item):
            nid = item.nodeid  # type: ignore[attr-defined]
            self._emit(
                {
                    "ev": "bad",
                    "id": nid,
                    "when": "setup",
                    "text": "the test function was replaced by the code under test",
                }
            )
            self._items[nid] = item

    def pytest_runtest_logfinish(self, nodeid: str, location: object) -> None:
        if self._tracker is not None:
            self._tracker.to_test(nodeid)
        self._check(self._config)
        phases = self._phases.pop(nodeid, [])
        item = self._items.pop(nodeid, None)
        passed = (
            item is None
            and not self.tampered
            and ("call", "passed") in phases
            and all(outcome == "passed" for _, outcome in phases)
        )
        self._emit({"ev": "done", "id": nodeid, "passed": passed})

    def pytest_sessionfinish(self, session: object, exitstatus: int) -> None:
        self._check(session.config)  # type: ignore[attr-defined]
        if self._tracker is not None:
            self._tracker.to_global()
            self._emit(self._tracker.report())
        self._emit({"ev": "finish"})


def _make_emit(fd: int, nonce: str):  # noqa: ANN202
    owner = os.getpid()

    def emit(record: dict) -> None:
        if os.getpid() != owner:
            return  # a fork of the test process (code under test called os.fork)
        data = (nonce + " " + json.dumps(record, separators=(",", ":")) + "\n").encode()
        while data:
            n = os.write(fd, data)
            data = data[n:]

    return emit


def _redirect_std() -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


# ------------------------------------------------------------------ dependency tracking

_SPAWN_EVENTS = {
    "os.fork",
    "os.forkpty",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.system",
    "subprocess.Popen",
}
_HIT = "__swarm_hit__"


class Tracker:
    """Which workspace files' *function bodies* each test executed (cheaply, and soundly).

    Workspace modules are compiled from source (never from bytecode) with one statement
    added at the top of every function body, `__swarm_hit__[0] = 1`, which marks the
    module's file. Module-level code and class bodies are not tracked: the host keys them
    by the file's *skeleton* (its syntax tree without function bodies), which every test
    importing the file depends on. Executions while a module is imported, during
    collection or in a fixture wider than one test count for every test of the run.

    Anything that could run workspace code out of sight (a subprocess, `exec` of a
    workspace file's code, a module loaded by another loader, the marks replaced) makes
    the run's dependencies "everything", which is always sound.
    """

    def __init__(self, tree: str):
        import importlib.machinery

        self.tree = tree.rstrip("/") + "/"
        self.tests = self.tree + "tests/"
        self.flags: dict[str, bytearray] = {}
        self.names: dict[str, list[str]] = {}
        self.read: set[str] = set()  # files read as data since the last take
        self.modules: list[tuple[object, str]] = []
        self.glob: set[str] = set()
        self.by_test: dict[str, set[str]] = {}
        self.everything = ""
        self.blind = ""  # code ran out of sight since the last take
        self.own_codes: set[int] = set()
        self.compiling = 0
        self._source_loader = importlib.machinery.SourceFileLoader

    def ours(self, path: object) -> str | None:
        if isinstance(path, bytes):
            path = path.decode(errors="replace")
        if not isinstance(path, str) or not path or path.startswith("<"):
            return None  # "<string>", "<unknown>": not a file
        if not path.startswith(self.tree):
            if os.path.isabs(path):
                return None
            path = os.path.normpath(os.path.join(os.getcwd(), path))
            if not path.startswith(self.tree) or not os.path.exists(path):
                return None
        if path.startswith(self.tests):
            return None
        return path[len(self.tree) :]

    def take(self) -> set[str]:
        """What ran since the last take ("file::function", "file::*" for data reads)."""
        out = {f"{rel}::*" for rel in self.read}
        self.read.clear()
        for rel, f in self.flags.items():
            if f.count(1):
                names = self.names[rel]
                out.update(f"{rel}::{names[i]}" for i, v in enumerate(f) if v)
                f[:] = bytes(len(f))
        return out

    def mark(self, items: set[str]) -> None:
        """Put back marks taken earlier (after a nested take)."""
        for item in items:
            rel, _, name = item.partition("::")
            if name == "*":
                self.read.add(rel)
            elif rel in self.flags:
                self.flags[rel][self.names[rel].index(name)] = 1

    def audit(self, event: str, args: tuple) -> None:
        if self.everything or self.blind:
            return
        if event == "open":
            if not self.compiling and args:
                rel = self.ours(args[0])
                if rel is not None:
                    self.read.add(rel)  # read as data (inspect, linecache, open)
        elif event in _SPAWN_EVENTS:
            self.blind = f"a process was started ({event})"
        elif event == "exec":
            code = args[0] if args else None
            fn = getattr(code, "co_filename", None)
            if fn is not None and id(code) not in self.own_codes and self.ours(fn) is not None:
                self.blind = "workspace code was run with exec()"
        elif event == "compile":
            if not self.compiling and len(args) > 1 and self.ours(args[1]) is not None:
                self.blind = "workspace source was compiled outside the import system"

    def to_global(self) -> None:
        """What ran outside any single test counts for all of them."""
        self.glob |= self.take()
        if self.blind:
            self.everything = self.everything or self.blind

    def to_test(self, nodeid: str) -> None:
        taken = self.take()
        if self.blind:
            self.by_test[nodeid] = None  # type: ignore[assignment] - everything
            self.blind = ""
        else:
            self.by_test[nodeid] = taken

    def install(self) -> None:
        import importlib.abc

        tracker = self
        base = self._source_loader

        class Loader(base):  # type: ignore[misc, valid-type]
            def get_code(self, fullname: str):  # noqa: ANN201 - always from source
                path = self.get_filename(fullname)
                tracker.compiling += 1
                try:
                    data = self.get_data(path)
                    hit = _code_cache.modules.get((path, data)) if _code_cache else None
                    if hit is not None:
                        code, names = hit
                        rel = tracker.ours(path)
                        if rel is not None:
                            tracker.names[rel] = names
                            tracker.flags[rel] = bytearray(len(names))
                    else:
                        code = self.source_to_code(data, path)
                finally:
                    tracker.compiling -= 1
                tracker.own_codes.add(id(code))
                return code

            def source_to_code(self, data, path, *, _optimize=-1):  # noqa: ANN001, ANN201
                import ast

                try:
                    tree = ast.parse(data, filename=path)
                except SyntaxError:
                    return compile(data, path, "exec", dont_inherit=True)
                names = _instrument(tree)
                rel = tracker.ours(path)
                if rel is not None:
                    tracker.names[rel] = names
                    tracker.flags[rel] = bytearray(len(names))
                return compile(tree, path, "exec", dont_inherit=True)

            def exec_module(self, module):  # noqa: ANN001, ANN201
                rel = tracker.ours(self.path)
                code = self.get_code(module.__name__)
                flag = tracker.flags.get(rel, bytearray(0)) if rel is not None else bytearray(0)
                module.__dict__[_HIT] = flag
                if rel is not None:
                    tracker.modules.append((module, rel))
                before = tracker.take()
                try:
                    exec(code, module.__dict__)  # noqa: S102 - what SourceFileLoader does
                finally:
                    # Import-time executions count for every test of the run.
                    tracker.to_global()
                    tracker.mark(before)

        class Finder(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):  # noqa: ANN001, ANN201
                import importlib.machinery

                spec = importlib.machinery.PathFinder.find_spec(name, path, target)
                if spec is None or not isinstance(spec.loader, base):
                    return None
                if tracker.ours(spec.origin) is None:
                    return None
                spec.loader = Loader(spec.loader.name, spec.loader.path)
                return spec

        sys.meta_path.insert(0, Finder())
        sys.addaudithook(self.audit)
        self._finder_type = Finder

    def check(self) -> None:
        """Detect anything that would make the marks incomplete."""
        if self.everything:
            return
        for module, rel in self.modules:
            if getattr(module, "__dict__", {}).get(_HIT) is not self.flags.get(rel):
                self.everything = f"the dependency marks of {rel} were replaced"
                return
        for module in list(sys.modules.values()):
            f = getattr(module, "__file__", None)
            rel = self.ours(f) if f else None
            if rel is not None and rel.endswith(".py"):
                if getattr(module, "__dict__", {}).get(_HIT) is None:
                    self.everything = f"{rel} was loaded without dependency marks"
                    return

    def report(self) -> dict:
        self.check()
        return {
            "ev": "deps",
            "everything": self.everything,
            "global": sorted(self.glob),
            "tests": {k: None if v is None else sorted(v) for k, v in self.by_test.items()},
        }


def function_names(tree: object) -> list[tuple[str, object]]:
    """(qualified name, node) of every function in a module, in a fixed order.

    Names are `f`, `C.m`, `f.<locals>.g`; a name defined again gets `#1`, `#2`... The host
    computes the same list to key its cache by the functions a test executed.
    """
    import ast

    out: list[tuple[str, object]] = []
    seen: dict[str, int] = {}

    def visit(node: object, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):  # type: ignore[arg-type]
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = prefix + child.name
                n = seen.get(q, 0)
                seen[q] = n + 1
                out.append((q if n == 0 else f"{q}#{n}", child))
                visit(child, q + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def _instrument(tree: object) -> list[str]:
    """Prepend `__swarm_hit__[i] = 1` to the body of function i (line numbers unchanged)."""
    import ast

    names = function_names(tree)
    for i, (_, node) in enumerate(names):
        body = node.body  # type: ignore[attr-defined]
        first = body[0]
        at = (
            1
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
                and len(body) > 1
            )
            else 0
        )
        anchor = body[at]
        stmt = ast.Assign(
            targets=[
                ast.Subscript(
                    value=ast.Name(id=_HIT, ctx=ast.Load()),
                    slice=ast.Constant(value=i),
                    ctx=ast.Store(),
                )
            ],
            value=ast.Constant(value=1),
        )
        for n in ast.walk(stmt):
            ast.copy_location(n, anchor)
        body.insert(at, stmt)
    ast.fix_missing_locations(tree)  # type: ignore[arg-type]
    return [q for q, _ in names]


def _run_pytest(
    tree: str,
    ini: str,
    targets: list[str],
    select_ids: list[str] | None,
    emit,  # noqa: ANN001
    track: bool = False,
) -> None:
    os.chdir(tree)
    # The project root goes *last* on sys.path: a module of the workspace named like a
    # standard or installed module (pytest.py, json.py) cannot shadow it.
    sys.path.append(tree)
    tracker = Tracker(tree) if track else None
    if tracker is not None:
        tracker.install()
    reporter = Reporter(emit, select_ids, tracker)
    try:
        pytest.main([*_base_args(ini, tree), *targets], plugins=[reporter])
    except BaseException as e:  # noqa: BLE001 - anything the code under test raised
        emit({"ev": "error", "text": f"{type(e).__name__}: {e}"[:500]})


# ------------------------------------------------------------------------ fork server


def _set_limits(lim: dict) -> None:
    import resource

    cpu = int(lim.get("cpu_s", 0))
    if cpu > 0:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    mem = int(lim.get("memory_mb", 0))
    if mem > 0:
        b = mem * 1024 * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or b <= hard:
            resource.setrlimit(resource.RLIMIT_AS, (b, hard))


def _private_pid_namespace() -> bool:
    """Move this process's future children into a new user+pid namespace.

    The code under test then cannot signal the fork server or any other process (they are
    outside its pid namespace), and killing the namespace's first process kills every
    process the test started, however it daemonized. Needs unprivileged user namespaces
    (available inside bubblewrap); False where the kernel refuses.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        uid, gid = os.getuid(), os.getgid()
        libc.prctl(4, 1, 0, 0, 0)  # dumpable (off in the server): a non-root uid writes its maps
        if libc.unshare(0x10000000 | 0x20000000) != 0:  # CLONE_NEWUSER | CLONE_NEWPID
            return False
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
        return True
    except Exception:  # noqa: BLE001 - fall back to a plain child
        return False


def _kill_strays(keep: set[int]) -> None:
    """Inside our own pid namespace: kill every process but ours (escaped grandchildren)."""
    me = os.getpid()
    for name in os.listdir("/proc"):
        if name.isdigit():
            pid = int(name)
            if pid not in keep and pid != me and pid != 1:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


class _Child:
    def __init__(self, pid: int, fd: int, nonce: str):
        self.pid = pid
        self.fd = fd
        self.nonce = nonce.encode()
        self.buf = b""

    def records(self, data: bytes) -> list[dict]:
        self.buf += data
        out = []
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            tag, _, rest = line.partition(b" ")
            if tag != self.nonce:
                continue
            try:
                out.append(json.loads(rest))
            except ValueError:
                continue
        return out


class CodeCache:
    """Compiled code the fork server prepares once and every child inherits.

    Canonical test modules: pytest's assertion rewriting (parse, rewrite, compile) is the
    largest part of collection; test files never change, so the server rewrites each once.
    Workspace modules: compiled with their dependency marks when their content changes
    (compiling runs no code). Children look code up by path *and* content, so an entry can
    never stand for other source (no stale bytecode), and nothing is shared through files
    a child could write.
    """

    def __init__(self) -> None:
        import _pytest.assertion.rewrite as rw

        self._rw = rw
        self._orig = rw._rewrite_test
        self.tests: dict[tuple[str, bytes], object] = {}
        self.modules: dict[tuple[str, bytes], tuple[object, list[str]]] = {}
        self._canonical: set[int] = set()
        self._keep: list[object] = []  # keeps the ids above valid
        cache = self

        def rewrite_test(fn, config):  # noqa: ANN001, ANN202 - pytest's signature
            hit = cache.tests.get((str(fn), _read(str(fn))))
            if hit is None:
                hit = cache._orig(fn, config)
            cache._remember(hit[1])
            return hit

        rw._rewrite_test = rewrite_test

    def _remember(self, code: object) -> None:
        todo = [code]
        while todo:
            c = todo.pop()
            if id(c) in self._canonical:
                continue
            self._canonical.add(id(c))
            self._keep.append(c)
            todo.extend(k for k in getattr(c, "co_consts", ()) if hasattr(k, "co_consts"))

    def canonical(self, code: object) -> bool:
        """True for code compiled from a canonical test file (or its nested functions)."""
        return id(code) in self._canonical

    def prepare(self, tree: str) -> None:
        """Compile what changed in `tree` (in the server, before forking)."""
        import pathlib

        tests_root = os.path.join(tree, "tests")
        live_tests, live_mods = set(), set()
        for dirpath, dirnames, filenames in os.walk(tree):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                if not name.endswith(".py"):
                    continue
                path = os.path.join(dirpath, name)
                data = _read(path)
                if data is None or len(data) > 2_000_000:
                    continue
                key = (path, data)
                if path.startswith(tests_root + os.sep):
                    live_tests.add(key)
                    if key not in self.tests:
                        try:
                            self.tests[key] = self._orig(pathlib.Path(path), None)
                        except Exception:  # noqa: BLE001 - the child will report it
                            pass
                else:
                    live_mods.add(key)
                    if key not in self.modules:
                        try:
                            import ast

                            mod = ast.parse(data, filename=path)
                            names = _instrument(mod)
                            self.modules[key] = (
                                compile(mod, path, "exec", dont_inherit=True),
                                names,
                            )
                        except Exception:  # noqa: BLE001 - SyntaxError etc.: the child reports it
                            pass
        # Keep other trees' entries (several trees per worker are fine), but bounded.
        if len(self.modules) > 4 * max(1, len(live_mods)) + 64:
            self.modules = {k: v for k, v in self.modules.items() if k in live_mods}
        if len(self.tests) > 4 * max(1, len(live_tests)) + 64:
            self.tests = {k: v for k, v in self.tests.items() if k in live_tests}


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


_code_cache: CodeCache | None = None


class Server:
    """The fork server: one request at a time, each in a fresh forked child."""

    def __init__(self, hello: dict, out_fd: int):
        global _code_cache
        _code_cache = CodeCache()
        self.ini = hello["ini"]
        self.limits = hello.get("limits", {})
        self.pidns = bool(hello.get("pidns"))
        self.nest = bool(hello.get("nest_pidns", True))
        self.out_fd = out_fd
        self.emit = _make_emit(out_fd, hello["nonce"])
        self.seq = 0

    def fork(self, tree: str, targets: list[str], select_ids: list[str] | None) -> _Child:
        nonce = os.urandom(16).hex()
        r, w = os.pipe()
        self.seq += 1
        tmp = f"/tmp/eval-{os.getpid()}-{self.seq}"
        # Children inherit the server's heap: keep their garbage collector off it (faster
        # collections, no copy-on-write of every object).
        import gc

        gc.freeze()
        pid = os.fork()
        if pid == 0:  # the child: runs the code under test
            try:
                os.close(r)
                os.close(self.out_fd)
                os.setpgid(0, 0)
                _redirect_std()
                if self.nest and _private_pid_namespace():
                    inner = os.fork()
                    if inner != 0:
                        # Only the first process of the new namespace holds the pipe.
                        os.close(w)
                        try:
                            os.waitpid(inner, 0)
                        finally:
                            os._exit(0)
                _set_limits(self.limits)
                os.makedirs(tmp, exist_ok=True)
                os.environ["TMPDIR"] = tmp
                import tempfile

                tempfile.tempdir = None
                _run_pytest(tree, self.ini, targets, select_ids, _make_emit(w, nonce), track=True)
            finally:
                os._exit(0)
        os.close(w)
        child = _Child(pid, r, nonce)
        child.tmp = tmp  # type: ignore[attr-defined]
        return child

    def reap(self, child: _Child) -> None:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.kill(child.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(child.pid, 0)
        except ChildProcessError:
            pass
        os.close(child.fd)
        # As pid 1 of a namespace (unshare) we inherit orphans: reap them.
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if self.pidns:
            _kill_strays(set())
        import shutil

        shutil.rmtree(child.tmp, ignore_errors=True)  # type: ignore[attr-defined]

    def handle(self, req: dict) -> dict:
        start = time.monotonic()
        if _code_cache is not None:
            _code_cache.prepare(req["tree"])
        deadline = start + float(req.get("timeout_s", 120))
        test_timeout = float(req.get("test_timeout_s", 30))
        tree = req["tree"]
        targets: list[str] = list(req["targets"])
        select_ids: list[str] | None = req.get("select")
        results: dict[str, list] = {}
        collect_errors: dict[str, str] = {}
        notes: list[str] = []
        tampered = ""
        deps: dict = {"everything": "", "global": set(), "tests": {}}
        # A test file or test that kills its child is charged and the rest re-run; bounded.
        for _attempt in range(int(req.get("max_restarts", 8)) + 1):
            child = self.fork(tree, targets, select_ids)
            st = RunState()
            killed_for = ""
            last_progress = time.monotonic()
            while not st.finished:
                now = time.monotonic()
                if now >= deadline:
                    killed_for = "timeout_total"
                    break
                if now - last_progress > test_timeout:
                    killed_for = "timeout_test"
                    break
                ready, _, _ = select.select([child.fd], [], [], min(0.5, deadline - now))
                if not ready:
                    continue
                data = os.read(child.fd, 1 << 16)
                if not data:
                    break
                for rec in child.records(data):
                    last_progress = time.monotonic()
                    st.feed(rec)
            self.reap(child)
            tampered = tampered or st.tampered
            for nid, res in st.final_results().items():
                results.setdefault(nid, res)
            for f, text in st.collect_errors.items():
                collect_errors.setdefault(f, text)
            notes.extend(st.notes)
            if st.deps is None:
                deps["everything"] = deps["everything"] or "the run ended before its report"
            else:
                deps["everything"] = deps["everything"] or str(st.deps.get("everything") or "")
                deps["global"].update(str(f) for f in st.deps.get("global", []))
                for nid, fs in dict(st.deps.get("tests", {})).items():
                    deps["tests"][str(nid)] = None if fs is None else [str(f) for f in fs]
            if tampered:
                break
            if st.finished and not killed_for:
                # A clean end, unless collection or the run was cut short from inside
                # (SystemExit at import, pytest.exit in a test): then re-run the rest.
                if st.collected is not None:
                    pending = [i for i in st.collected if i not in results and i != st.current]
                    if not pending and not st.current:
                        break
                elif not st.current_file:
                    break
            # The child died or hung: charge the test (or file) it was on, re-run the rest.
            why = {
                "timeout_total": "the test run exceeded its time limit",
                "timeout_test": f"no progress for {test_timeout:g} s (hang?)",
            }.get(
                killed_for,
                "the test run ended early (os._exit, sys.exit, pytest.exit, a signal or a crash)"
                if not st.finished
                else "the test run was interrupted from inside (sys.exit, pytest.exit)",
            )
            if killed_for == "timeout_total":
                notes.append(why)
                break
            if st.current:
                text = f"{why}\n{st.bad.get(st.current, '')}".strip()
                results.setdefault(st.current, [False, text])
            elif st.collected is None and st.current_file:
                collect_errors.setdefault(st.current_file, f"while importing: {why}")
            if st.collected is None:
                # Died while collecting: drop the culprit file from the targets.
                dead = st.current_file.split("::")[0]
                rest = [t for t in targets if t.split("::")[0] != dead]
                if not dead or rest == targets:
                    notes.append(why)
                    break
                targets = rest
            else:
                remaining = [i for i in st.collected if i not in results]
                if not remaining:
                    break
                targets = remaining
                select_ids = remaining
        if tampered:
            results = {nid: [False, tampered] for nid in results}
        deps["global"] = sorted(deps["global"])
        return {
            "deps": deps,
            "results": results,
            "collect_errors": collect_errors,
            "notes": notes,
            "tampered": tampered,
            "elapsed": time.monotonic() - start,
        }


def _serve() -> None:
    out_fd = os.dup(1)
    os.set_inheritable(out_fd, False)
    stdin = sys.stdin.buffer
    hello = json.loads(stdin.readline())
    _redirect_std_keep_stdin()
    _preimport()
    _undumpable()
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


def _redirect_std_keep_stdin() -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    os.close(devnull)


def _undumpable() -> None:
    """Make this process non-dumpable: children (same uid) cannot ptrace it or read its memory."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except Exception:  # noqa: BLE001 - best effort
        pass


def _once() -> None:
    """The naive scorer: one pytest run in this process, records on stdout."""
    out_fd = os.dup(1)
    os.set_inheritable(out_fd, False)
    hello = json.loads(sys.stdin.buffer.readline())
    _redirect_std()
    _set_limits(hello.get("limits", {}))
    global _code_cache
    _code_cache = CodeCache()
    emit = _make_emit(out_fd, hello["nonce"])
    _run_pytest(hello["tree"], hello["ini"], hello["targets"], hello.get("select"), emit)
    os._exit(0)


def _collect() -> None:
    out_fd = os.dup(1)
    os.set_inheritable(out_fd, False)
    hello = json.loads(sys.stdin.buffer.readline())
    _redirect_std()
    emit = _make_emit(out_fd, hello["nonce"])
    tree = hello["tree"]
    os.chdir(tree)
    sys.path.append(tree)
    ids: list[str] = []
    errors: dict[str, str] = {}

    class Collector:
        def pytest_collectreport(self, report: object) -> None:
            if report.failed:  # type: ignore[attr-defined]
                errors[report.nodeid] = _short(report)  # type: ignore[attr-defined]

        def pytest_collection_finish(self, session: object) -> None:
            ids.extend(it.nodeid for it in session.items)  # type: ignore[attr-defined]

    try:
        pytest.main(
            [*_base_args(hello["ini"], tree), "--collect-only", *hello["targets"]],
            plugins=[Collector()],
        )
    except BaseException as e:  # noqa: BLE001
        errors["<session>"] = f"{type(e).__name__}: {e}"
    emit({"ev": "collection", "ids": ids, "errors": errors})
    os._exit(0)


if __name__ == "__main__":
    _prepare()
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "serve":
        _serve()
    elif mode == "once":
        _once()
    elif mode == "collect":
        _collect()
    else:
        sys.stderr.write("usage: _pytest_worker.py serve|once|collect\n")
        sys.exit(2)
