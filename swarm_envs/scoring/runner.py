"""`ProjectRunner`: a task's canonical tests on any version of its project files."""

from __future__ import annotations

import shutil
from collections.abc import Sequence

from swarm_envs.sandboxes import make_sandbox
from swarm_envs.task import Task, task_roots

from . import make_scorer
from .report import TestReport


class ProjectRunner:
    """Runs a task's canonical tests on arbitrary versions of its project files.

    Used by generators (is a mutant detected?), validation and bring-your-own; it goes
    through the same sandbox and scorer as an episode.

    Args:
        task: the task.
        scorer: the scorer kind (`"fast"` or `"subprocess"`).
        sandbox: the sandbox backend (`"local"` or `"docker"`).
    """

    def __init__(self, task: Task, *, scorer: str = "fast", sandbox: str = "local"):
        self.task = task
        # Solutions and canonical tests of every known task stay out of the sandbox's view.
        self.sandbox = make_sandbox(sandbox, hide=[*task_roots(), task.root])
        try:
            self.scorer = make_scorer(task, self.sandbox, kind=scorer)
        except BaseException:
            self.sandbox.close()
            raise

    def run(
        self,
        files: dict[str, bytes],
        selection: Sequence[str] | None = None,
        *,
        held_out: bool = False,
    ) -> TestReport:
        """A `TestReport` of `selection` (default: every visible test) on the project `files`.

        `held_out`: run the task's held-out tests too (reported in `TestReport.held_out`).
        """
        root = self.sandbox.root
        for child in list(root.iterdir()):
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        self.task.materialize(root, files)
        return self.scorer.evaluate(selection, held_out=held_out)

    def test_ids(self) -> list[str]:
        """The visible canonical node ids."""
        return self.scorer.test_ids()

    def held_out_ids(self) -> list[str]:
        """The held-out canonical node ids."""
        return self.scorer.held_out_ids()

    def close(self) -> None:
        """Stop the scorer and remove the sandbox (twice-safe)."""
        self.scorer.close()
        self.sandbox.close()

    def __enter__(self) -> ProjectRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
