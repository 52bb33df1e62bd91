"""Scoring: which of the task's canonical tests pass on the agents' current code.

Scoring is the hot path of every step and the one place where an agent could gain reward
without earning it, so it is built around three rules:

1. **Only canonical tests count.** Test files and test configuration come from the task
   (`task.tests_dir`), never from the workspace. The scorer copies the workspace's source
   files into a private scoring tree that agents' commands cannot see, *leaving out* every
   protected path (`conftest.py`, `pytest.ini`, `tox.ini`, `setup.cfg`, `pyproject.toml`,
   `sitecustomize.py`, `usercustomize.py`, `*.pth`, `pytest.py`, `_pytest/`, `tests/`),
   symlinks, devices, `__pycache__` and `.pyc` files. pytest runs with `python -I -B`, an
   explicit `-c` ini of ours, plugin autoloading off, and the project root *appended* to
   `sys.path` (a workspace module cannot shadow pytest or the standard library). The scoring
   worker sees its tree read-only, so code under test cannot rewrite what it is scored on.
2. **A test that was not observed to pass counts as failing.** Outcomes are decided and
   sent by an integrity guard (an audit hook installed before any code under test runs,
   whose channel, nonce and state nothing else can reach): a test passes only if pytest
   reported every phase passed *and* its canonical body ran to its end, and nothing was
   flagged. Canonical tests are compiled hardened (strict comparisons that an
   always-equal object fails, `pytest.raises` decided by the exception's MRO, their own
   copy of the builtins). Printed "summaries" or written "result files" are ignored. A
   collection error fails every test of the file; a crash, hang or `os._exit` fails the
   test it happened in (the rest are re-run in a new process); a skip is not a pass;
   tampering (frames, pytest, the harness, the garbage collector...) fails the whole run
   and is reported (`TestReport.integrity`). See docs/integrity.md.
3. **Infrastructure failure is not a zero.** If the scorer itself fails (worker died, no
   answer within the run's time limit plus a grace period), the report says
   `verdict="no_verdict"` with the reason, after one automatic retry.

Two scorers implement the same interface (`Scorer`):

- `kind="subprocess"` (`SubprocessScorer`): the naive, straightforward one: a fresh tree
  and a fresh `python -m pytest`-like process per evaluation.
- `kind="fast"` (`FastScorer`, default): a pool of fork servers started once inside the
  sandbox (pytest imported once; a forked child per evaluation), a stat-and-content-hash
  snapshot of the workspace, and a result cache keyed, on the host only, by what each
  test can reach: the skeletons of the files its test file can import, and the bodies of
  the functions it can reach (`analysis`, `keys`): by name, through plain module-level
  values, with the classes it reaches (their dunder methods and properties). An unchanged
  tree is never re-tested; an edit re-runs only the tests that can see it; misses are
  split over the workers (both cores). `evaluate(fresh=True)` runs every test whatever
  the cache holds: an episode's last count (see docs/integrity.md). Bytecode is never
  written or read, so a same-size edit within the filesystem's timestamp granularity is
  always seen (stale `.pyc` is impossible).

Held-out tests (declared by a task, never in the workspace) run only when asked
(`evaluate(..., held_out=True)`) and are reported apart. A workspace over its quota fails
every test; `Scorer.admit` lets the write tools refuse a write that would break it.

The package, by concern: `report` (what an evaluation says, test selection), `snapshot`
(the workspace by content hash, quotas), `collection` (the canonical node ids), `analysis`
(static facts of a Python file), `graph` (the import graph), `keys` (the fast scorer's
cache), `channel` (starting the worker and reading its records), `base`, `subprocess` and
`fast` (the scorers), `runner` (`ProjectRunner`: the tests on any version of a project),
`lru`, and `worker` (the modules that run inside the sandbox: guard, hardened code,
reporter, fork server).

Layer: above `swarm_envs.sandboxes` (used through the `Sandbox` interface only) and
`swarm_envs.tasks`; below everything that makes instances or runs episodes. The worker
(`scoring.worker`) imports the standard library and pytest only: it runs inside the
sandbox.
"""

from __future__ import annotations

from swarm_envs.error import ConfigError
from swarm_envs.sandboxes.base import Sandbox
from swarm_envs.tasks import Task

from .base import Scorer
from .collection import Collection, collect_test_ids
from .disk import hidden_paths
from .fast import FastScorer
from .report import TestReport, select_tests
from .subprocess import SubprocessScorer

SCORER_KINDS = ("fast", "subprocess")

__all__ = [
    "SCORER_KINDS",
    "Collection",
    "FastScorer",
    "Scorer",
    "SubprocessScorer",
    "TestReport",
    "collect_test_ids",
    "hidden_paths",
    "make_scorer",
    "select_tests",
]


def make_scorer(
    task: Task,
    sandbox: Sandbox,
    *,
    kind: str = "fast",
    quota: object | None = None,
    scoring: object | None = None,
) -> Scorer:
    """A scorer of `task` over `sandbox`'s workspace.

    Args:
        task: the task whose canonical tests count.
        sandbox: the episode's sandbox (its `root` holds the agents' files).
        kind: `"fast"` (fork servers, content-hash cache, per-file selection) or
            `"subprocess"` (a fresh pytest process per evaluation).
        quota: what the workspace may hold (a `swarm_envs.core.config.WorkspaceQuota`; default:
            its defaults). Past it every test fails, and `Scorer.admit` refuses writes.
        scoring: the fast scorer's settings (`swarm_envs.core.config.ScoringSettings`:
            `keys`, `memo`; default: its defaults).

    Raises:
        ConfigError: unknown `kind`.
    """
    if kind == "fast":
        return FastScorer(task, sandbox, quota=quota, settings=scoring)
    if kind == "subprocess":
        return SubprocessScorer(task, sandbox, quota=quota)
    raise ConfigError(f"scorer kind {kind!r} is unknown; choose one of {SCORER_KINDS}")
