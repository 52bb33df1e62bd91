"""The fork server: imports pytest once, then runs each request in a fresh forked child.

The server never imports code under test, so every evaluation starts from the same clean
state. A child that crashes (`os._exit`, a signal) or hangs is killed and its remaining
tests re-run in a new child, the culprit counted as failing; one record per request goes
back to the host.
"""

from __future__ import annotations

import os
import select
import signal
import time

from .codecache import CodeCache
from .protocol import Deframer, Framer, RunState
from .session import redirect_std, run_pytest, set_limits, warm_hypothesis


def private_pid_namespace() -> bool:
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


def kill_strays(keep: set[int]) -> None:
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
    """A forked child and the reading end of its channel."""

    def __init__(self, pid: int, fd: int, tmp: str):
        self.pid = pid
        self.fd = fd
        self.tmp = tmp
        self.channel = Deframer()


def _merge_traces(st: RunState, traced: dict, shared: dict) -> None:
    """Add one child's traces (it finished its run: its shared traces came)."""
    executed = st.loaded.get("executed") if isinstance(st.loaded, dict) else None
    if not isinstance(executed, dict):
        return
    for owner, lines in executed.items():
        have = shared.get(owner, {})
        if have is None or not isinstance(lines, dict):
            shared[owner] = None
            continue
        for rel, ls in lines.items():
            have.setdefault(rel, set()).update(ls)
        shared[owner] = have
    for nid, lines in st.traces.items():
        traced.setdefault(nid, lines)


class Server:
    """The fork server: one request at a time, each in a fresh forked child."""

    def __init__(self, hello: dict, out_fd: int):
        self.code_cache = CodeCache()
        self.ini = hello["ini"]
        self.limits = hello.get("limits", {})
        self.pidns = bool(hello.get("pidns"))
        self.nest = bool(hello.get("nest_pidns", True))
        self.out_fd = out_fd
        self.emit = Framer(out_fd).emit
        self.seq = 0

    def fork(
        self, tree: str, targets: list[str], select_ids: list[str] | None, trace: bool = False
    ) -> _Child:
        """Start one evaluation of `targets` in `tree` in a forked child, in its own group."""
        r, w = os.pipe()
        self.seq += 1
        # Unique across servers: each is pid 1 of its own namespace, and where sandboxes
        # share /tmp (a weaker isolation level) two servers' children would share a folder.
        tmp = f"/tmp/eval-{os.getpid()}-{self.seq}-{os.urandom(6).hex()}"
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
                redirect_std()
                if self.nest and private_pid_namespace():
                    inner = os.fork()
                    if inner != 0:
                        # Only the first process of the new namespace holds the pipe.
                        os.close(w)
                        try:
                            os.waitpid(inner, 0)
                        finally:
                            os._exit(0)
                set_limits(self.limits)
                os.makedirs(tmp, exist_ok=True)
                os.environ["TMPDIR"] = tmp
                import tempfile

                tempfile.tempdir = None
                run_pytest(
                    tree, self.ini, targets, select_ids, w, code_cache=self.code_cache, trace=trace
                )
            finally:
                os._exit(0)
        os.close(w)
        return _Child(pid, r, tmp)

    def reap(self, child: _Child) -> None:
        """Kill the child's process group and collect its exit status."""
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
            kill_strays(set())
        import shutil

        shutil.rmtree(child.tmp, ignore_errors=True)

    def handle(self, req: dict) -> dict:
        """Run one request: the targets of a tree, in as many children as crashes need.

        A child's passes count only if it finished cleanly (its guard checked the whole
        run at the end); after a crash or a hang, the test it was on fails, its failures
        stand, and every other test is run again in a new child. A finding of the guard
        fails the test it was made in (and, where it outlives it, every later one); a
        child whose records were forged fails every test it ran.
        """
        start = time.monotonic()
        tree = req["tree"]
        self.code_cache.prepare(tree)
        self.code_cache.preimport(tree)
        warm_hypothesis()
        prepared = time.monotonic()
        # The server's own preparation (compiling, importing what the tests import, once
        # per server) is not the tests' time.
        deadline = prepared + float(req.get("timeout_s", 120))
        test_timeout = float(req.get("test_timeout_s", 30))
        targets: list[str] = list(req["targets"])
        select_ids: list[str] | None = req.get("select")
        results: dict[str, list] = {}
        collect_errors: dict[str, str] = {}
        notes: list[str] = []
        findings: list[dict] = []
        tampered = ""
        loaded: dict[str, dict[str, set[str]]] = {"files": {}, "modules": {}}
        trace = bool(req.get("trace"))
        # What each test executed (`guard`'s tracer): per test, and per test file shared by
        # its tests (collection, fixtures); None where the trace cannot be used.
        traced: dict[str, dict | None] = {}
        shared: dict[str, dict | None] = {}
        complete = True
        # Where the time goes (seconds, summed over the children of this request), read off
        # the server's clock as the child's records arrive: until its guard spoke (fork,
        # namespaces), until its first record (the guard's start, pytest's configuration
        # and session start), until collection ended (imports of the tests and the
        # project), the tests with the end-of-run checks, and killing and reaping it.
        phases = dict.fromkeys(("start", "pytest", "collection", "tests", "reap"), 0.0)
        for _attempt in range(int(req.get("max_restarts", 8)) + 1):
            forked = time.monotonic()
            child = self.fork(tree, targets, select_ids, trace)
            st = RunState()
            killed_for = self._watch(child, st, deadline, test_timeout)
            ended = time.monotonic()
            self.reap(child)
            first = st.heard.get("first", ended)
            record = max(first, st.heard.get("record", ended))
            collected = max(record, st.heard.get("collected", ended))
            phases["start"] += first - forked
            phases["pytest"] += record - first
            phases["collection"] += collected - record
            phases["tests"] += ended - collected
            phases["reap"] += time.monotonic() - ended
            findings.extend(st.findings)
            for f, text in st.collect_errors.items():
                collect_errors.setdefault(f, text)
            notes.extend(st.notes)
            if st.loaded is not None:
                for kind in ("files", "modules"):
                    got = st.loaded.get(kind)
                    for owner, names in got.items() if isinstance(got, dict) else ():
                        loaded[kind].setdefault(str(owner), set()).update(map(str, names))
                if trace:
                    _merge_traces(st, traced, shared)
            else:
                complete = False
            if st.tampered:
                tampered = st.tampered
                for nid in st.results:
                    results[nid] = [False, tampered]
                break
            clean = st.finished and not killed_for
            for nid, res in st.final_results().items():
                if clean or not res[0]:
                    results.setdefault(nid, res)
            if clean:
                # A clean end, unless collection or the run was cut short from inside
                # (SystemExit at import, pytest.exit in a test): then re-run the rest.
                if st.collected is not None:
                    pending = [i for i in st.collected if i not in results and i != st.current]
                    if not pending and not st.current:
                        break
                elif not st.current_file:
                    break
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
        for owner, got in shared.items():
            if got is not None:
                shared[owner] = {rel: sorted(ls) for rel, ls in got.items()}
        return {
            "results": results,
            "collect_errors": collect_errors,
            "notes": notes,
            "findings": findings,
            "tampered": tampered,
            "loaded": (
                {k: {o: sorted(n) for o, n in v.items()} for k, v in loaded.items()}
                if complete
                else None
            ),
            "traces": {"tests": traced, "shared": shared} if trace and not tampered else None,
            "elapsed": time.monotonic() - start,
            "phases": {"prepare": prepared - start, **phases},
        }

    def _watch(self, child: _Child, st: RunState, deadline: float, test_timeout: float) -> str:
        """Feed the child's records to `st` until it ends; why it was stopped ("": it ended)."""
        last_progress = time.monotonic()
        while not st.finished:
            now = time.monotonic()
            if now >= deadline:
                return "timeout_total"
            if now - last_progress > test_timeout:
                return "timeout_test"
            ready, _, _ = select.select([child.fd], [], [], min(0.5, deadline - now))
            if not ready:
                continue
            data = os.read(child.fd, 1 << 16)
            if not data:
                break
            st.heard.setdefault("first", time.monotonic())
            for rec in child.channel.feed(data):
                last_progress = time.monotonic()
                st.heard.setdefault("record", last_progress)
                st.feed(rec)
            if st.collected is not None:
                st.heard.setdefault("collected", last_progress)
        return ""
