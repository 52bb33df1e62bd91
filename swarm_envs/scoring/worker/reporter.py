"""The reporter: a pytest plugin that streams per-test outcomes and watches for tampering.

Runs inside the sandbox only (it imports pytest); the host never imports it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .codecache import CodeCache
    from .tracker import Tracker

FAILURE_LINES = 12


def short(report: object) -> str:
    """A failure's crash line and the last lines of its traceback (at most 4,000 chars)."""
    text = getattr(report, "longreprtext", "") or ""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    head = [f"{crash.path}:{crash.lineno}: {crash.message}"] if crash is not None else []
    tail = lines[-FAILURE_LINES:]
    return "\n".join(head + (["..."] if len(lines) > len(tail) else []) + tail)[:4000]


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

    def __init__(
        self,
        emit: Callable[[dict], None],
        select_ids: list[str] | None = None,
        tracker: Tracker | None = None,
        code_cache: CodeCache | None = None,
    ):
        self._emit = emit
        self._tracker = tracker
        self._code_cache = code_cache
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
            self._emit({"ev": "collect_error", "file": report.nodeid, "text": short(report)})  # type: ignore[attr-defined]

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: object, config: object, items: list) -> None:
        if self._select is not None:
            items[:] = [it for it in items if it.nodeid in self._select]

    def _replaced(self, item: object) -> bool:
        """True if the test function is not code compiled from the canonical test files."""
        if self._code_cache is None or not hasattr(item, "obj"):
            return False
        try:
            code = getattr(item.obj, "__code__", None)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a broken object is not canonical
            return True
        return code is not None and not self._code_cache.canonical(code)

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
            text = short(r)
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
