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

import json
import os
import sys
import threading
import time

_SPAWN = {"os.fork", "os.exec", "os.posix_spawn", "os.spawn", "os.system", "subprocess.Popen"}


class Profile:
    """A pytest plugin and trace function that attributes executions to tests."""

    def __init__(self, root: str):
        self.prefix = os.path.join(root, "")
        self.tests_prefix = os.path.join(root, "tests", "")
        self.codes: dict[object, tuple[str, int] | None] = {}
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

    # ------------------------------------------------------------------ tracing

    def trace(self, frame: object, event: str, arg: object) -> None:
        if event != "call":
            return None
        code = frame.f_code  # type: ignore[attr-defined]
        key = self.codes.get(code, 0)
        if key == 0:
            fn = code.co_filename
            key = None
            if (
                fn.startswith(self.prefix)
                and not fn.startswith(self.tests_prefix)
                and code.co_name != "<module>"
                and "/.make-task/" not in fn
            ):
                key = (fn[len(self.prefix) :], code.co_firstlineno)
            self.codes[code] = key
        if key is not None:
            self.sink.add(key)
        return None

    def audit(self, event: str, args: tuple) -> None:
        if self.current is not None and event in _SPAWN:
            self.current["spawned"] = True

    # ------------------------------------------------------------------ pytest hooks

    def pytest_sessionstart(self, session: object) -> None:
        # From here on (collection imports the project): pytest's own start-up is not traced.
        sys.settrace(self.trace)
        threading.settrace(self.trace)

    def pytest_collectreport(self, report: object) -> None:
        if report.failed:  # type: ignore[attr-defined]
            text = getattr(report, "longreprtext", "") or ""
            self.collect_errors[report.nodeid or "<session>"] = text[-2000:]  # type: ignore[attr-defined]

    def pytest_collection_finish(self, session: object) -> None:
        self.collected = [it.nodeid for it in session.items]  # type: ignore[attr-defined]
        self.sink = self.between

    def pytest_runtest_protocol(self, item: object, nextitem: object) -> None:
        self.item = item

    def pytest_runtest_logstart(self, nodeid: str, location: object) -> None:
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
                profile.stack.append(profile.sink)
                profile.sink = profile.fixtures.setdefault(key, set())
            try:
                yield
            finally:
                if shared:
                    profile.sink = profile.stack.pop()

    return Fixtures()


def main(config_path: str) -> None:
    with open(config_path) as f:
        cfg = json.load(f)
    root = os.getcwd()
    site = cfg.get("site")
    if site:
        at = next(
            (i for i, p in enumerate(sys.path) if p.endswith(("site-packages", "dist-packages"))),
            len(sys.path),
        )
        sys.path.insert(at, os.path.join(root, site))
    sys.path.insert(0, root)  # the project first, as `python -m pytest` from its root
    import pytest

    profile = Profile(root)
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
        *(f"--deselect={d}" for d in cfg.get("deselect", [])),
        *cfg["targets"],
    ]
    started = time.perf_counter()
    try:
        status = pytest.main(args, plugins=[profile, _fixture_wrapper(profile)])
    finally:
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]
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


if __name__ == "__main__":
    main(sys.argv[1])
