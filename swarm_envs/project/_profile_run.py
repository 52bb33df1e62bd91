"""Runs inside a sandbox: one pytest run of a task's reference, recording what each test did.

Copied into the sandbox with the reference and run as a script (the standard library and
pytest only). For every test it records the outcome (passed, failed, skipped, xfailed,
xpassed), the time it took, and which functions of the project it executed, as (file,
first line) of their code; a shared fixture's executions count for every test that uses it.
Functions that ran while modules were imported or tests collected are recorded apart: a unit
among them cannot be stubbed without breaking the import. Tests that start processes are
marked (what the processes run is not seen).

    python -s -B _profile_run.py CONFIG.json      # writes the result file CONFIG names
"""

from __future__ import annotations

import ast
import json
import os
import sys
import time

_SPAWN = {"os.fork", "os.exec", "os.posix_spawn", "os.spawn", "os.system", "subprocess.Popen"}


class Profile:
    """A pytest plugin and an import hook that attribute executions to tests.

    Project modules are compiled with one statement added at the top of every function
    body, `__make_task_hits__[i] = 1`, which marks function i of the module; the marks are
    collected at the boundaries of each test (cheap: pytest's own calls are not traced).
    """

    def __init__(self, root: str):
        self.prefix = os.path.join(root, "")
        self.tests_prefix = os.path.join(root, "tests", "")
        self.modules: list[tuple[bytearray, list[tuple[str, int]]]] = []
        self.imports: set[tuple[str, int]] = set()
        self.between: set[tuple[str, int]] = set()
        self.sink = self.imports
        self.fixtures: dict[str, set[tuple[str, int]]] = {}
        self.stack: list[set[tuple[str, int]]] = []
        self.tests: dict[str, dict] = {}
        self.collected: list[str] = []
        self.collect_errors: dict[str, str] = {}
        self.item: object = None
        self.current: dict | None = None

    # ------------------------------------------------------------------ marks

    def ours(self, path: object) -> str | None:
        if not isinstance(path, str) or not path.endswith(".py"):
            return None
        if not path.startswith(self.prefix) or path.startswith(self.tests_prefix):
            return None
        rel = path[len(self.prefix) :]
        return None if rel.startswith(".make-task/") else rel

    def take(self) -> None:
        """Move the marks made since the last take into the current sink."""
        for flags, keys in self.modules:
            if flags.count(1):
                self.sink.update(keys[i] for i, v in enumerate(flags) if v)
                flags[:] = bytes(len(flags))

    def install(self) -> None:
        import importlib.abc
        import importlib.machinery

        profile = self
        base = importlib.machinery.SourceFileLoader

        class Loader(base):  # type: ignore[misc, valid-type]
            def source_to_code(self, data, path, *, _optimize=-1):  # noqa: ANN001, ANN201
                import ast

                rel = profile.ours(path)
                try:
                    tree = ast.parse(data, filename=path)
                except SyntaxError:
                    return compile(data, path, "exec", dont_inherit=True)
                self.keys = _instrument(tree, rel or "")
                return compile(tree, path, "exec", dont_inherit=True)

            def get_code(self, fullname):  # noqa: ANN001, ANN201 - never from bytecode
                path = self.get_filename(fullname)
                return self.source_to_code(self.get_data(path), path)

            def exec_module(self, module):  # noqa: ANN001, ANN201
                code = self.get_code(module.__name__)
                flags = bytearray(len(getattr(self, "keys", [])))
                module.__dict__["__make_task_hits__"] = flags
                profile.modules.append((flags, list(getattr(self, "keys", []))))
                exec(code, module.__dict__)  # noqa: S102 - what SourceFileLoader does

        class Finder(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):  # noqa: ANN001, ANN201
                spec = importlib.machinery.PathFinder.find_spec(name, path, target)
                if spec is None or not isinstance(spec.loader, base):
                    return None
                if profile.ours(spec.origin) is None:
                    return None
                spec.loader = Loader(spec.loader.name, spec.loader.path)
                return spec

        sys.meta_path.insert(0, Finder())

    def audit(self, event: str, args: tuple) -> None:
        if self.current is not None and event in _SPAWN:
            self.current["spawned"] = True

    # ------------------------------------------------------------------ pytest hooks

    def pytest_collectreport(self, report: object) -> None:
        if report.failed:  # type: ignore[attr-defined]
            text = getattr(report, "longreprtext", "") or ""
            self.collect_errors[report.nodeid or "<session>"] = text[-2000:]  # type: ignore[attr-defined]

    def pytest_collection_finish(self, session: object) -> None:
        self.collected = [it.nodeid for it in session.items]  # type: ignore[attr-defined]
        self.take()  # what ran while modules were imported and tests collected
        self.sink = self.between

    def pytest_runtest_protocol(self, item: object, nextitem: object) -> None:
        self.item = item

    def pytest_runtest_logstart(self, nodeid: str, location: object) -> None:
        self.take()
        self.current = {"phases": [], "duration": 0.0, "text": "", "spawned": False}
        self.current["executed"] = self.sink = set()
        self.current["t0"] = time.perf_counter()

    def pytest_runtest_logreport(self, report: object) -> None:
        cur = self.current
        if cur is None:
            return
        r = report
        wasxfail = hasattr(r, "wasxfail")
        cur["phases"].append((r.when, r.outcome, wasxfail))  # type: ignore[attr-defined]
        cur["duration"] += float(getattr(r, "duration", 0.0) or 0.0)
        if r.outcome == "skipped" and not cur["text"]:  # type: ignore[attr-defined]
            lr = getattr(r, "longrepr", None)
            cur["text"] = str(lr[2]) if isinstance(lr, tuple) and len(lr) == 3 else str(lr)
            if wasxfail:
                cur["text"] = f"xfail: {r.wasxfail}"  # type: ignore[attr-defined]
        elif r.outcome == "failed" and not cur["text"]:  # type: ignore[attr-defined]
            cur["text"] = (getattr(r, "longreprtext", "") or "")[-1500:]

    def pytest_runtest_logfinish(self, nodeid: str, location: object) -> None:
        cur = self.current
        if cur is None:
            return
        self.take()
        executed = set(cur["executed"])
        names = set(getattr(self.item, "fixturenames", ()) or ())
        for key, found in self.fixtures.items():
            if key.rpartition("::")[2] in names:
                executed |= found
        self.tests[nodeid] = {
            "outcome": _outcome(cur["phases"]),
            "text": cur["text"],
            "duration": round(max(cur["duration"], time.perf_counter() - cur["t0"]), 6),
            "spawned": cur["spawned"],
            "executed": sorted(executed),
        }
        self.current = None
        self.sink = self.between


def _instrument(tree: ast.Module, rel: str) -> list[tuple[str, int]]:
    """Add `__make_task_hits__[i] = 1` at the top of every function body (after a docstring).

    Returns the (file, first line) of function i, as its code object would have it.
    """
    keys: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        keys.append((rel, first))
        body = node.body
        doc = (
            isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        )
        anchor = body[1] if doc and len(body) > 1 else body[0]
        mark = ast.Assign(
            targets=[
                ast.Subscript(
                    value=ast.Name(id="__make_task_hits__", ctx=ast.Load()),
                    slice=ast.Constant(value=len(keys) - 1),
                    ctx=ast.Store(),
                )
            ],
            value=ast.Constant(value=1),
        )
        for n in ast.walk(mark):
            ast.copy_location(n, anchor)
        body.insert(1 if doc else 0, mark)
    ast.fix_missing_locations(tree)
    return keys


def _outcome(phases: list[tuple[str, str, bool]]) -> str:
    if any(o == "failed" for _, o, _ in phases):
        return "failed"
    if any(o == "skipped" for _, o, _ in phases):
        return "xfailed" if any(x for _, o, x in phases if o == "skipped") else "skipped"
    if ("call", "passed", True) in phases:
        return "xpassed"
    return "passed" if any(w == "call" for w, _, _ in phases) else "failed"


def _fixture_wrapper(profile: Profile):  # noqa: ANN202
    import pytest

    class Fixtures:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_fixture_setup(self, fixturedef: object, request: object):  # noqa: ANN201
            shared = getattr(fixturedef, "scope", "function") != "function"
            if shared:
                key = f"{getattr(fixturedef, 'baseid', '')}::{fixturedef.argname}"  # type: ignore[attr-defined]
                profile.take()
                profile.stack.append(profile.sink)
                profile.sink = profile.fixtures.setdefault(key, set())
            try:
                yield
            finally:
                if shared:
                    profile.take()
                    profile.sink = profile.stack.pop()

    return Fixtures()


def main(config_path: str) -> None:
    with open(config_path) as f:
        cfg = json.load(f)
    root = os.getcwd()
    at = next(
        (i for i, p in enumerate(sys.path) if p.endswith(("site-packages", "dist-packages"))),
        len(sys.path),
    )
    site = cfg.get("site")
    if site:
        sys.path.insert(at, os.path.join(root, site))
    if cfg.get("harness"):  # the scorer's own pytest, ahead of the task's and the installed
        sys.path.insert(at, os.path.join(root, cfg["harness"]))
    sys.path.insert(0, root)  # the project first, as `python -m pytest` from its root
    # Processes the tests start see the project and its environment, as under the scorer.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [root, *([os.path.join(root, site)] if site else [])]
    )
    import pytest

    profile = Profile(root)
    profile.install()
    sys.addaudithook(profile.audit)
    args = [
        "-c",
        cfg["ini"],
        f"--rootdir={root}",
        "-p",
        "no:cacheprovider",
        "-q",
        "--import-mode=prepend",
        "--continue-on-collection-errors",
        *(a for name in cfg.get("plugins", []) for a in ("-p", name)),
        *cfg["targets"],
    ]
    started = time.perf_counter()
    deselect = _Deselect(cfg.get("deselect", []))
    status = pytest.main(args, plugins=[deselect, profile, _fixture_wrapper(profile)])
    origins = {}
    for name in cfg.get("project", []):
        mod = sys.modules.get(name)
        path = getattr(mod, "__file__", None) if mod is not None else None
        origins[name] = (
            path[len(profile.prefix) :] if path and path.startswith(profile.prefix) else path
        )
    out = {
        "status": int(status),
        "seconds": time.perf_counter() - started,
        "collected": profile.collected,
        "collect_errors": profile.collect_errors,
        "tests": profile.tests,
        "imports": sorted(profile.imports),
        "between": sorted(profile.between),
        "origins": origins,
    }
    with open(cfg["out"], "w") as f:
        json.dump(out, f)


def deselects(entry: str, nodeid: str) -> bool:
    """Whether a deselect entry leaves out a test: as the scorer's `settings.deselects`."""
    if nodeid == entry:
        return True
    if not entry or not nodeid.startswith(entry):
        return False
    if entry.endswith(("/", "::")):
        return True
    return nodeid[len(entry) :].startswith(("::", "[", "/"))


class _Deselect:
    """The task's deselected tests, by exact id (pytest's `--deselect` takes prefixes)."""

    def __init__(self, entries: list[str]):
        self.entries = [e for e in entries if isinstance(e, str)]

    def pytest_collection_modifyitems(self, config: object, items: list) -> None:
        gone = [it for it in items if any(deselects(e, it.nodeid) for e in self.entries)]
        if gone:
            config.hook.pytest_deselected(items=gone)  # type: ignore[attr-defined]
            items[:] = [it for it in items if it not in gone]


def _fixed_addresses() -> None:
    """Re-execute once without address randomization, as the scoring worker runs.

    Before Python 3.12 `hash(None)` follows an address: a set of tuples holding None, and so
    the ids of a test parametrised over it, would differ from the scorer's.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        current = libc.personality(0xFFFFFFFF)
        if current == -1 or current & 0x0040000:
            return
        if libc.personality(current | 0x0040000) == -1:
            return
    except Exception:  # noqa: BLE001 - not Linux, or refused
        return
    os.execv(sys.executable, [sys.executable, "-s", "-B", *sys.argv])


if __name__ == "__main__":
    _fixed_addresses()
    main(sys.argv[1])
