"""The reporter: a pytest plugin that tells the guard what pytest did (inside the sandbox).

It holds nothing worth taking: no channel, no nonce, no outcomes. Each hook passes plain
observations to the guard through `sys.audit`, and the guard decides (see `guard`).
"""

from __future__ import annotations

import sys
from collections.abc import Generator

import pytest

from .guard import REPORT_EVENT

FAILURE_LINES = 12


def short(report: object) -> str:
    """A failure's crash line and the last lines of its traceback (at most 4,000 chars)."""
    text = getattr(report, "longreprtext", "") or ""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    head = [f"{crash.path}:{crash.lineno}: {crash.message}"] if crash is not None else []
    tail = lines[-FAILURE_LINES:]
    return "\n".join(head + (["..."] if len(lines) > len(tail) else []) + tail)[:4000]


class Reporter:
    """Forwards pytest's events to the guard; deselects what the request did not select."""

    def __init__(self, select_ids: list[str] | None = None):
        self._select = frozenset(select_ids) if select_ids else None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # The plugins known before any code under test is imported (collection imports it).
        sys.audit(REPORT_EVENT, "sessionstart", session.config.pluginmanager)

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        if type(collector).__name__ == "Module":
            sys.audit(REPORT_EVENT, "collectstart", collector.nodeid)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and report.nodeid:
            sys.audit(REPORT_EVENT, "collecterror", report.nodeid, short(report))

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        if self._select is not None:
            items[:] = [it for it in items if it.nodeid in self._select]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        sys.audit(REPORT_EVENT, "collected", session)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> None:
        sys.audit(REPORT_EVENT, "start", item)

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        sys.audit(REPORT_EVENT, "call", item, True)
        yield
        sys.audit(REPORT_EVENT, "call", item, False)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        text = short(report) if report.outcome != "passed" else ""
        sys.audit(REPORT_EVENT, "logreport", report, text)

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        sys.audit(REPORT_EVENT, "finish_test", nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        sys.audit(REPORT_EVENT, "sessionfinish")


def caller_codes() -> list[object]:
    """The code objects allowed to report to the guard: the hooks above."""
    out: list[object] = []
    for value in vars(Reporter).values():
        code = getattr(value, "__code__", None)
        if code is not None:
            out.append(code)
    return out
