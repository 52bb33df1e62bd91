"""The reporter: a pytest plugin that tells the guard what pytest did (inside the sandbox).

It holds nothing worth taking (no channel, no nonce, no outcomes) and hands the guard
plain data only: node ids, phases and outcomes as strings, and per test item a few facts
(is it pytest's own kind of item, which of its methods were replaced, which code is its
test function, what are its parameters) for the guard to compare. The guard decides.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Generator
from typing import Any

import pytest
from _pytest.python import Function
from _pytest.unittest import TestCaseFunction

from .guard import REPORT_EVENT
from .hardened import SHELL_VAR

FAILURE_LINES = 12
#: library wrappers followed from a test function to its canonical code
MAX_WRAPPERS = 8
_ITEM_TYPES: dict[type, frozenset[str]] = {}


def _methods(cls: type) -> frozenset[str]:
    names: set[str] = set()
    for k in cls.__mro__:
        for n, v in vars(k).items():
            if callable(v) or isinstance(v, property | staticmethod | classmethod):
                names.add(n)
    return frozenset(names - {"__init__"})


# unittest.TestCase tests are items of _pytest.unittest's kind, imported here: this module
# is imported before pytest's default plugins are.
for _cls in (Function, TestCaseFunction):
    if isinstance(_cls, type):
        _ITEM_TYPES[_cls] = _methods(_cls)


def short(report: object) -> str:
    """A failure's crash line and the last lines of its traceback (at most 4,000 chars)."""
    text = getattr(report, "longreprtext", "") or ""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    head = [f"{crash.path}:{crash.lineno}: {crash.message}"] if crash is not None else []
    tail = lines[-FAILURE_LINES:]
    text = "\n".join(head + (["..."] if len(lines) > len(tail) else []) + tail)
    # Paths relative to the tree (the cwd), as the workspace shows them, not the scorer's.
    return text.replace(os.getcwd() + os.sep, "")[:4000]


def _text(value: object) -> str:
    return value if type(value) is str else str.__str__(value) if isinstance(value, str) else ""


def fingerprint(value: Any, depth: int = 0) -> str:
    """Text that changes when built-in data changes; other objects by identity."""
    t = type(value)
    if t in (int, float, complex, str, bytes, bool, type(None)):
        return repr(value)
    if depth > 20:
        return "..."
    if t is list or t is tuple:
        inner = ",".join(fingerprint(v, depth + 1) for v in value)
        return f"[{inner}]" if t is list else f"({inner})"
    if t is set or t is frozenset:
        return "{" + ",".join(sorted(fingerprint(v, depth + 1) for v in value)) + "}"
    if t is dict:
        pairs = (
            f"{fingerprint(k, depth + 1)}:{fingerprint(v, depth + 1)}" for k, v in value.items()
        )
        return "{" + ",".join(sorted(pairs)) + "}"
    return f"<{id(value):#x}>"


def code_chain(obj: object) -> tuple[tuple[int, str], ...]:
    """(id, file) of a test function's code, then of each function its `__wrapped__` leads to.

    A test decorated in its canonical file by a library (`@mock.patch(...)`,
    `@freeze_time(...)`) is that library's function, whose `__wrapped__` is the canonical
    one; the guard follows such a chain through trusted library code only. A canonical
    function is a shell of its body (`hardened.make_shell`): the chain goes on to the body.
    """
    out: list[tuple[int, str]] = []
    for _ in range(MAX_WRAPPERS):
        func = obj.__func__ if isinstance(obj, types.MethodType) else obj
        if type(func) is not types.FunctionType:
            break
        code = func.__code__
        out.append((id(code), _text(code.co_filename)))
        closure = func.__closure__
        if code.co_freevars == (SHELL_VAR,) and closure:
            obj = closure[0].cell_contents  # a shell (`hardened.make_shell`): its body
            continue
        obj = vars(func).get("__wrapped__")
    return tuple(out)


def item_facts(item: object) -> tuple[bool, tuple[str, ...], tuple[tuple[int, str], ...], str]:
    """(is pytest's kind of item, replaced methods, its test code's chain, its parameters)."""
    methods = _ITEM_TYPES.get(type(item))
    if methods is None:
        return (False, (), (), "")
    overrides = tuple(sorted(methods.intersection(vars(item))))
    try:
        obj = item.obj  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - no test function: not canonical
        obj = None
    params = getattr(getattr(item, "callspec", None), "params", None)
    return (True, overrides, code_chain(obj), fingerprint(params))


def _funcargs(item: object) -> tuple[tuple[str, int], ...]:
    funcargs = getattr(item, "funcargs", None) or {}
    return tuple((_text(k), object.__hash__(v)) for k, v in dict(funcargs).items())


#: hooks whose implementations decide what a test run means (checked at every test)
CRITICAL_HOOKS = (
    "pytest_runtest_protocol",
    "pytest_runtest_setup",
    "pytest_runtest_call",
    "pytest_runtest_teardown",
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_runtest_logfinish",
    "pytest_pyfunc_call",
    "pytest_fixture_setup",
    "pytest_report_teststatus",
)


def plugin_state(
    pm: pytest.PytestPluginManager, hooks: tuple[str, ...] | None = None
) -> tuple[tuple[int, ...], tuple]:
    """Identity hashes of the registered plugins and of the implementations of `hooks`.

    (`hash`, not `id`: `id()` raises an audit event, which the guard would have to see.)
    """
    plugins = tuple(sorted(map(object.__hash__, pm.get_plugins())))
    impls = []
    for name in sorted(vars(pm.hook)) if hooks is None else hooks:
        hook = getattr(pm.hook, name, None)
        get = getattr(hook, "get_hookimpls", None)
        if get is not None:
            impls.append(
                (name, tuple((object.__hash__(i), object.__hash__(i.function)) for i in get()))
            )
    return plugins, tuple(impls)


class Reporter:
    """Forwards pytest's events to the guard; deselects what the request did not select."""

    def __init__(self, select_ids: list[str] | None = None, tests_root: str = ""):
        self._select = frozenset(select_ids) if select_ids else None
        self._tests_root = tests_root
        self._pm: pytest.PytestPluginManager | None = None
        self._plugins: frozenset[int] = frozenset()
        self._item: pytest.Item | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # The plugins known before any code under test is imported (collection imports it).
        self._pm = session.config.pluginmanager
        self._plugins = frozenset(map(object.__hash__, self._pm.get_plugins()))
        sys.audit(REPORT_EVENT, "sessionstart")

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        if type(collector).__name__ == "Module":
            sys.audit(REPORT_EVENT, "collectstart", _text(collector.nodeid))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and report.nodeid:
            sys.audit(REPORT_EVENT, "collecterror", _text(report.nodeid), short(report))

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        if self._select is not None:
            items[:] = [it for it in items if it.nodeid in self._select]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        items = [(_text(it.nodeid), item_facts(it)) for it in session.items]
        foreign = []
        for plugin in session.config.pluginmanager.get_plugins():
            if object.__hash__(plugin) in self._plugins:
                continue
            f = getattr(plugin, "__file__", None) if isinstance(plugin, types.ModuleType) else None
            # Conftests found during collection are canonical: the tree holds no others.
            if not (
                isinstance(f, str) and f.endswith("conftest.py") and f.startswith(self._tests_root)
            ):
                foreign.append(_text(getattr(plugin, "__name__", type(plugin).__name__)))
        pm = session.config.pluginmanager
        state = (plugin_state(pm), plugin_state(pm, CRITICAL_HOOKS))
        sys.audit(REPORT_EVENT, "collected", items, state, tuple(foreign))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> None:
        self._item = item
        state = plugin_state(self._pm, CRITICAL_HOOKS) if self._pm is not None else None
        sys.audit(REPORT_EVENT, "start", _text(item.nodeid), item_facts(item), state)

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        nodeid = _text(item.nodeid)
        sys.audit(REPORT_EVENT, "call", nodeid, True, item_facts(item), _funcargs(item))
        yield
        sys.audit(REPORT_EVENT, "call", nodeid, False, None, _funcargs(item))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = _text(report.outcome)
        text = short(report) if outcome != "passed" else ""
        sys.audit(
            REPORT_EVENT, "logreport", _text(report.nodeid), _text(report.when), outcome, text
        )

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        sys.audit(REPORT_EVENT, "finish_test", _text(nodeid), item_facts(self._item))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        sys.audit(REPORT_EVENT, "sessionfinish", plugin_state(session.config.pluginmanager))


def caller_codes() -> list[object]:
    """The code objects allowed to report to the guard: the hooks above."""
    out: list[object] = []
    for value in vars(Reporter).values():
        code = getattr(value, "__code__", None)
        if code is not None:
            out.append(code)
    return out
