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
    return "\n".join(head + (["..."] if len(lines) > len(tail) else []) + tail)[:4000]


def _critical() -> dict[str, object]:
    """Identities of pytest internals that decide outcomes; code under test must not swap them."""
    import _pytest.main
    import _pytest.python
    import _pytest.reports
    import _pytest.runner

    out: dict[str, object] = {}
    for mod, names in (
        (
            _pytest.runner,
            [
                "call_and_report",
                "runtestprotocol",
                "call_runtest_hook",
                "check_interactive_exception",
                "pytest_runtest_makereport",
            ],
        ),
        (_pytest.runner.CallInfo, ["from_call"]),
        (_pytest.reports.TestReport, ["from_item_and_call", "__init__"]),
        (_pytest.reports.BaseReport, ["passed", "failed", "skipped"]),
        (_pytest.python.Function, ["runtest", "setup"]),
        (_pytest.python, ["pytest_pyfunc_call"]),
        (_pytest.main, ["pytest_runtestloop"]),
    ):
        for n in names:
            out[f"{getattr(mod, '__name__', mod)}.{n}"] = mod.__dict__.get(n, getattr(mod, n, None))
    return out


class Reporter:
    """A pytest plugin that streams outcomes to `emit` and watches for tampering."""

    def __init__(self, emit, select_ids: list[str] | None = None):  # noqa: ANN001
        self._emit = emit
        self._select = set(select_ids) if select_ids else None
        self._phases: dict[str, list[tuple[str, str]]] = {}
        self._critical = _critical()
        self._plugins: set[int] | None = None
        self.tampered = ""

    def _check(self, config: object) -> None:
        if self.tampered:
            return
        now = _critical()
        for k, v in self._critical.items():
            if now.get(k) is not v:
                self.tampered = f"pytest internals were modified by the code under test ({k})"
                break
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

    def pytest_collection_finish(self, session: object) -> None:
        self._check(session.config)  # type: ignore[attr-defined]
        self._emit({"ev": "collected", "ids": [it.nodeid for it in session.items]})  # type: ignore[attr-defined]

    def pytest_runtest_logstart(self, nodeid: str, location: object) -> None:
        self._emit({"ev": "start", "id": nodeid})

    def pytest_runtest_logreport(self, report: object) -> None:
        r = report
        self._phases.setdefault(r.nodeid, []).append((r.when, r.outcome))  # type: ignore[attr-defined]
        if r.outcome != "passed":  # type: ignore[attr-defined]
            text = _short(r)
            if r.outcome == "skipped":  # type: ignore[attr-defined]
                text = f"skipped: {text}"
            self._emit({"ev": "bad", "id": r.nodeid, "when": r.when, "text": text})  # type: ignore[attr-defined]

    def pytest_runtest_logfinish(self, nodeid: str, location: object) -> None:
        self._check(self._config)
        phases = self._phases.pop(nodeid, [])
        passed = (
            not self.tampered
            and ("call", "passed") in phases
            and all(outcome == "passed" for _, outcome in phases)
        )
        self._emit({"ev": "done", "id": nodeid, "passed": passed})

    def pytest_sessionfinish(self, session: object, exitstatus: int) -> None:
        self._check(session.config)  # type: ignore[attr-defined]
        self._emit({"ev": "finish"})


def _make_emit(fd: int, nonce: str):  # noqa: ANN202
    def emit(record: dict) -> None:
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


def _run_pytest(
    tree: str, ini: str, targets: list[str], select_ids: list[str] | None, emit
) -> None:  # noqa: ANN001
    os.chdir(tree)
    # The project root goes *last* on sys.path: a module of the workspace named like a
    # standard or installed module (pytest.py, json.py) cannot shadow it.
    sys.path.append(tree)
    reporter = Reporter(emit, select_ids)
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


class Server:
    """The fork server: one request at a time, each in a fresh forked child."""

    def __init__(self, hello: dict, out_fd: int):
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
                _run_pytest(tree, self.ini, targets, select_ids, _make_emit(w, nonce))
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
        deadline = start + float(req.get("timeout_s", 120))
        test_timeout = float(req.get("test_timeout_s", 30))
        tree = req["tree"]
        targets: list[str] = list(req["targets"])
        select_ids: list[str] | None = req.get("select")
        results: dict[str, list] = {}
        collect_errors: dict[str, str] = {}
        notes: list[str] = []
        tampered = ""
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
        return {
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
