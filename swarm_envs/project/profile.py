"""One instrumented run of a task's reference: what each test executes, and how it ends.

The run happens in a fresh local sandbox (the reference is the user's code, and it runs like
any code of a task), with the task's pytest settings, deselected tests, hash seed and
environment. Its result maps tests to the project's functions (`TestProfile.executed`, as
(file, first line of the code object)), so that each candidate unit is probed only with the
tests that reach it, and says how long each test took (the probes' time limit comes from it).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from swarm_envs.error import ProjectError
from swarm_envs.sandboxes import SandboxLimits, make_sandbox
from swarm_envs.scoring.harness_env import harness_env
from swarm_envs.tasks import Task, task_roots

_SCRIPT = Path(__file__).with_name("_profile_run.py")
_DIR = ".make-task"
_RUNNER = "_make_task_profile.py"
_NOT_HARNESS = shutil.ignore_patterns("__pycache__", ".complete")

Location = tuple[str, int]


@dataclass(frozen=True)
class TestProfile:
    """What one test did in the instrumented run."""

    __test__ = False

    outcome: str  # passed | failed | skipped | xfailed | xpassed
    text: str
    duration: float
    executed: frozenset[Location]
    spawned: bool


@dataclass
class ReferenceProfile:
    """The instrumented run of the reference."""

    tests: dict[str, TestProfile]
    collected: list[str]
    collect_errors: dict[str, str]
    imports: frozenset[Location]  # ran while modules were imported or tests collected
    origins: dict[str, str | None]  # project package -> the file it was imported from
    seconds: float
    output: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def rank(self) -> dict[str, int]:
        """Test id -> its position in collection order."""
        if not hasattr(self, "_rank"):
            self._rank = {t: i for i, t in enumerate(self.collected)}
        return self._rank

    def by_outcome(self, outcome: str) -> list[str]:
        """The tests that ended with `outcome`, in collection order."""
        return [t for t, p in self.tests.items() if p.outcome == outcome]


def profile_reference(task: Task, *, timeout_s: float | None = None) -> ReferenceProfile:
    """Run the reference of `task` once, instrumented (see the module doc).

    Raises:
        ProjectError: the run produced no result (with the tail of its output).
    """
    spec = task.manifest.tests
    timeout = timeout_s or max(60.0, 3 * spec.timeout_s)
    limits = SandboxLimits(cpu_s=timeout, wall_s=timeout, memory_mb=4096, output_bytes=8000)
    with make_sandbox("local", limits=limits, hide=[*task_roots(), task.root]) as sb:
        root = sb.root
        task.materialize(root, task.solution_files())
        work = root / _DIR
        work.mkdir()
        # Not `profile.py`: the script's folder comes first on sys.path, and `cProfile`
        # (imported by pytest-benchmark) imports the standard library's `profile`.
        (work / _RUNNER).write_bytes(_SCRIPT.read_bytes())
        (work / "pytest.ini").write_bytes(task.pytest_ini())
        site = task.site_files()
        for rel, data in site.items():
            p = work / "site" / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        # The scorer's own pytest, as scoring runs it (copied: the workspace is the agent
        # uid's, and handing it over would change the cache's files through links).
        shutil.copytree(harness_env().path, work / "harness", ignore=_NOT_HARNESS)
        config = {
            "harness": f"{_DIR}/harness",
            "ini": f"{_DIR}/pytest.ini",
            "targets": list(spec.paths),
            "deselect": list(spec.deselect),
            "plugins": list(spec.plugins),
            "site": f"{_DIR}/site" if site else None,
            "project": task.top_level_names(),
            "out": f"{_DIR}/result.json",
        }
        (work / "config.json").write_text(json.dumps(config))
        seed = "" if spec.hash_seed is None else f"PYTHONHASHSEED={int(spec.hash_seed)} "
        python = shlex.quote(os.path.basename(sys.executable))
        env = f"{seed}PYTEST_DISABLE_PLUGIN_AUTOLOAD=1"
        cmd = f"{env} {python} -s -B {_DIR}/{_RUNNER} {_DIR}/config.json"
        result = sb.run(cmd, timeout_s=timeout)
        out = work / "result.json"
        if not out.is_file():
            why = "it ran out of time" if result.timed_out else "it ended without a result"
            raise ProjectError(
                f"{task.root}: the instrumented run of the reference failed ({why}); "
                f"its output:\n{result.output[-3000:]}"
            )
        data = json.loads(out.read_text())
    tests = {
        nid: TestProfile(
            outcome=str(t["outcome"]),
            text=str(t["text"]),
            duration=float(t["duration"]),
            executed=frozenset((str(a), int(b)) for a, b in t["executed"]),
            spawned=bool(t["spawned"]),
        )
        for nid, t in data["tests"].items()
    }
    return ReferenceProfile(
        tests=tests,
        collected=[str(i) for i in data["collected"]],
        collect_errors={str(k): str(v) for k, v in data["collect_errors"].items()},
        imports=frozenset((str(a), int(b)) for a, b in data["imports"]),
        origins={str(k): v for k, v in data["origins"].items()},
        seconds=float(data["seconds"]),
        output=result.output,
    )
