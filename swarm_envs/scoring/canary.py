"""A scorer that knows when it is broken: a tiny canary project, scored before anything else.

A damaged harness does not crash: a `_pytest/reports.py` with code appended, a pytest the
guard was never tested with, a `.pth` file of some other package that patches the
standard library, a sandbox that cannot start the worker properly. It reports every test
as failing, or as passing, and the reward is silently wrong. So before a process scores
for the first time in a kind of sandbox, `check` makes sure that the scorer still tells
outcomes apart:

1. the harness's installed files match their wheels (`harness.verify`);
2. a built-in canary project (`PROJECT`: a test that passes, one that fails, one whose
   fixture errors, one that is skipped, one parametrised pair, one test of a class) is
   scored through the same sandbox, the same worker files and the same mode the scorer
   uses (`once` for the subprocess scorer, the fork server for the fast one), and every
   outcome must be the expected one, with nothing flagged.

Any mismatch raises `ScoringError` naming it, out of the scorer's constructor, so a reset
fails loudly instead of starting an episode in which nothing can pass. The canary runs in
its own folders of the sandbox's private scoring area (`canary/<run>/bin`, `.../tree`, one
pair per check): the episode's worker settings and trees are not touched.

A passed check is remembered per process, for the sandbox's kind, image and Python, the
scorer's mode and the harness digest: the canary costs one worker start per process (the
first reset), the digest check a stat of each harness file per later scorer.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
import time

from swarm_envs.error import SandboxError, ScoringError
from swarm_envs.sandboxes.base import Sandbox, ScoringHost

from . import harness
from .channel import (
    Channel,
    _worker_files,
    limits_for_children,
    run_once,
    send,
    show_harness,
    worker_argv,
)
from .disk import where
from .worker.protocol import RunState

#: the folder of the scoring area under which each check gets its own (`bin/`, `tree/`):
#: scorers of one sandbox check at the same time (a fast and a subprocess scorer side by side)
FOLDER = "canary"

#: the canary project: a package and its tests, one of each outcome
PROJECT: dict[str, str] = {
    "canary_pkg/__init__.py": (
        "def add(a, b):\n"
        "    return a + b\n"
        "\n"
        "\n"
        "class Box:\n"
        "    def __init__(self, value):\n"
        "        self.value = value\n"
        "\n"
        "    def __eq__(self, other):\n"
        "        return type(other) is Box and self.value == other.value\n"
        "\n"
        "    __hash__ = None\n"
    ),
    "tests/test_canary.py": (
        "import pytest\n"
        "\n"
        "from canary_pkg import Box, add\n"
        "\n"
        "\n"
        "@pytest.fixture\n"
        "def broken():\n"
        '    raise RuntimeError("a fixture that errors")\n'
        "\n"
        "\n"
        "def test_pass():\n"
        "    assert add(2, 3) == 5\n"
        "    assert Box(1) == Box(1)\n"
        "    with pytest.raises(ZeroDivisionError):\n"
        "        add(1, 0) / 0\n"
        "\n"
        "\n"
        "def test_fail():\n"
        "    assert add(2, 2) == 5\n"
        "\n"
        "\n"
        "def test_error(broken):\n"
        "    assert True\n"
        "\n"
        "\n"
        "def test_skip():\n"
        '    pytest.skip("skipped on purpose")\n'
        "\n"
        "\n"
        '@pytest.mark.parametrize("a, b, total", [(1, 1, 2), (1, 1, 3)])\n'
        "def test_param(a, b, total):\n"
        "    assert add(a, b) == total\n"
        "\n"
        "\n"
        "class TestBox:\n"
        "    def test_unequal(self):\n"
        "        assert Box(1) != Box(2)\n"
    ),
}
_F = "tests/test_canary.py"
#: node id -> (passes?, a word its failure text must hold, or "")
EXPECTED: dict[str, tuple[bool, str]] = {
    f"{_F}::test_pass": (True, ""),
    f"{_F}::test_fail": (False, "assert"),
    f"{_F}::test_error": (False, "fixture that errors"),
    f"{_F}::test_skip": (False, "skip"),
    f"{_F}::test_param[1-1-2]": (True, ""),
    f"{_F}::test_param[1-1-3]": (False, "assert"),
    f"{_F}::TestBox::test_unequal": (True, ""),
}
_SETTINGS = {"hash_seed": None, "project": ["canary_pkg"], "deselect": [], "site": None}
_INI = b"[pytest]\naddopts =\n"

_lock = threading.Lock()
#: (where, mode, harness digest) -> the check that ran or runs for it in this process
_checks: dict[tuple[str, ...], Check] = {}


class Check:
    """One canary run, in a thread of its own: `wait` gives its verdict."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self.error: str | None = None
        self.infrastructure = False  # it failed because its sandbox went away
        self.sandbox: Sandbox | None = None  # where it ran

    def run(self, sandbox: Sandbox, mode: str) -> None:
        """Score the canary and judge it (the thread's body)."""
        self.sandbox = sandbox
        try:
            results, findings = run(sandbox.scoring_host(), sandbox, mode)
            problems = judge(results, findings)
            if problems:
                self.error = (
                    "the scorer misjudged its canary project in this sandbox "
                    f"({'; '.join(problems)}): the test harness (pytest, its plugins, the "
                    "scoring worker, or what this Python loads at start-up) does not report "
                    "outcomes correctly, so no score from it can be trusted; reinstall pytest "
                    "and swarm-envs in a fresh virtual environment"
                )
        except SandboxError as e:
            self.error, self.infrastructure = f"the canary project could not be scored: {e}", True
        except ScoringError as e:
            self.error = f"the scorer could not score its canary project: {e}"
            self.infrastructure = sandbox.closed  # its worker stopped with its sandbox
        except Exception as e:  # noqa: BLE001 - a bug of ours: a verdict, not a hung reset
            self.error = f"the canary check failed: {type(e).__name__}: {e}"
        finally:
            self._done.set()

    @property
    def done(self) -> bool:
        """Whether the verdict is in."""
        return self._done.is_set()

    def wait(self) -> None:
        """Block until the verdict is in.

        Raises:
            ScoringError: the canary was misjudged or could not be scored.
        """
        self._done.wait()
        if self.error is not None:
            raise ScoringError(self.error)


def start(sandbox: Sandbox, mode: str) -> Check:
    """Verify the harness now, and score the canary in `sandbox` (once per process and kind).

    The digest check runs here (a few milliseconds); the canary runs in a thread, so that
    it overlaps the scorer's collection and first evaluation, which wait for its verdict
    (`Check.wait`) before they report anything.

    Args:
        sandbox: the sandbox the scorer will use (its scoring area runs the canary).
        mode: the worker mode the scorer runs tests in: `"once"` or `"serve"`.

    Raises:
        ScoringError: a harness file differs from its wheel, or pytest is outside the
            tested range (the message names the file or the range, and the fix).
    """
    digest = harness.verify()
    memo = (where(sandbox), mode, digest)
    with _lock:
        c = _checks.get(memo)
        if c is not None and not (c.done and c.error is not None):
            return c  # passed, or running: a failure is tried again by the next scorer
        c = _checks[memo] = Check()
    threading.Thread(target=c.run, args=(sandbox, mode), name="canary", daemon=True).start()
    return c


def check(sandbox: Sandbox, mode: str) -> None:
    """`start` and wait: the whole check, in this thread.

    Raises:
        ScoringError: as `start` and `Check.wait` do.
    """
    wait(start(sandbox, mode), sandbox, mode)


def wait(c: Check, sandbox: Sandbox, mode: str) -> None:
    """Wait for `c`, judging again in `sandbox` if another scorer's sandbox went away.

    Raises:
        ScoringError: as `Check.wait` does.
    """
    try:
        c.wait()
    except ScoringError:
        if c.infrastructure and sandbox is c.sandbox and sandbox.closed:
            return  # this sandbox went away: the evaluation says so (no verdict)
        if not c.infrastructure or sandbox.closed:
            raise
        again = Check()
        again.run(sandbox, mode)
        again.wait()


def judge(results: dict[str, tuple[bool, str]], findings: list[dict]) -> list[str]:
    """What is wrong with the canary's outcomes (empty: every one as expected)."""
    problems = []
    for nid, (passes, word) in EXPECTED.items():
        got = results.get(nid)
        if got is None:
            problems.append(f"{nid.split('::', 1)[1]} has no outcome")
        elif got[0] != passes:
            said = f" ({got[1][:120]})" if got[1] else ""
            problems.append(
                f"{nid.split('::', 1)[1]} {'failed' if passes else 'passed'}{said}, "
                f"expected it to {'pass' if passes else 'fail'}"
            )
        elif word and word.lower() not in got[1].lower():
            problems.append(f"{nid.split('::', 1)[1]} failed for another reason: {got[1][:120]}")
    extra = sorted(set(results) - set(EXPECTED))
    if extra:
        problems.append(f"unexpected tests {extra[:3]}")
    if findings:
        kinds = sorted({str(f.get("kind", "?")) for f in findings})
        problems.append(f"the guard flagged the honest canary ({', '.join(kinds)})")
    return problems


def install(host: ScoringHost, folder: str) -> tuple[str, str]:
    """Write the worker and the canary project under `folder` of the scoring area.

    Returns: the worker's folder and the project's, relative to the scoring area.
    """
    bin_dir, tree = f"{folder}/bin", f"{folder}/tree"
    bin_files = {**_worker_files(), "pytest.ini": _INI}
    settings = {**_SETTINGS, "harness": show_harness(host)}
    bin_files["task.json"] = json.dumps(settings, sort_keys=True).encode()
    host.sync(bin_dir, bin_files)
    host.sync(tree, {rel: text.encode() for rel, text in PROJECT.items()})
    return bin_dir, tree


def run(
    host: ScoringHost, sandbox: Sandbox, mode: str
) -> tuple[dict[str, tuple[bool, str]], list[dict]]:
    """Score the canary in `mode`; its outcomes and the guard's findings."""
    folder = f"{FOLDER}/{secrets.token_hex(6)}"
    bin_dir, rel_tree = install(host, folder)
    tree = f"{host.inside_dir}/{rel_tree}"
    ini = f"{host.inside_dir}/{bin_dir}/pytest.ini"
    limits = limits_for_children(sandbox)
    try:
        if mode == "serve":
            return _serve(host, bin_dir, tree, ini, limits)
        hello = {"tree": tree, "targets": ["tests"], "select": None, "limits": limits}
        recs = run_once(host, "once", hello, timeout_s=60, bin_dir=bin_dir, ini=ini)
        st = RunState()
        for r in recs:
            if r.get("ev") != "host_timeout":
                st.feed(r)
        if not st.finished:
            log = host.worker_log()
            raise ScoringError(
                "the scoring worker did not finish its canary project"
                + (f"; its log: {log[-500:]}" if log else "")
            )
        results = {k: (bool(v[0]), str(v[1])) for k, v in st.final_results().items()}
        return results, list(st.findings)
    finally:
        with contextlib.suppress(OSError, Exception):
            host.remove_tree(folder)


def _serve(
    host: ScoringHost, bin_dir: str, tree: str, ini: str, limits: dict[str, float]
) -> tuple[dict[str, tuple[bool, str]], list[dict]]:
    """One request to a fork server started from the canary's folder."""
    handle = host.start_worker(worker_argv(host, "serve", bin_dir=bin_dir), long_lived=True)
    try:
        ch = Channel(handle)
        send(handle, {"ini": ini, "limits": limits, "pidns": host.worker_owns_pid_namespace})
        rec = ch.next(time.monotonic() + 60)
        if rec is None or rec.get("ev") != "ready":
            log = host.worker_log()
            raise ScoringError(f"the scoring worker did not start; its log: {log[-800:]}")
        req = {"id": 1, "tree": tree, "targets": ["tests"], "select": None, "timeout_s": 60}
        send(handle, {**req, "test_timeout_s": 30})
        deadline = time.monotonic() + 75
        while True:
            rec = ch.next(deadline)
            if rec is None:
                raise ScoringError("the scoring worker gave no answer on its canary project")
            if rec.get("id") == 1:
                break
        if rec.get("error"):
            raise ScoringError(f"the scoring worker failed on its canary project: {rec['error']}")
        results = {k: (bool(v[0]), str(v[1])) for k, v in dict(rec.get("results", {})).items()}
        findings = [f for f in rec.get("findings", []) if isinstance(f, dict)]
        if rec.get("tampered"):
            findings.append({"kind": "tampered", "detail": str(rec["tampered"])})
        return results, findings
    finally:
        handle.kill()
        for pipe in (handle.stdin, handle.stdout):
            with contextlib.suppress(OSError):
                pipe.close()
