"""`ProjectRunner`: a task's canonical tests on any version of its project files."""

from __future__ import annotations

import shutil
from collections.abc import Sequence

from swarm_envs.sandboxes import make_sandbox
from swarm_envs.task import Task

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
        self.sandbox = make_sandbox(sandbox)
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
        held_out: bool | None = None,
    ) -> TestReport:
        """A `TestReport` of `selection` on the project `files`.

        Without a selection every canonical test runs, the held-out ones included
        (`held_out` says otherwise); with one, the visible tests it names.
        """
        root = self.sandbox.root
        for child in list(root.iterdir()):
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        self.task.materialize(root, files)
        with_held_out = selection is None if held_out is None else held_out
        return self.scorer.evaluate(selection, held_out=with_held_out)

    def test_ids(self) -> list[str]:
        """Every canonical node id: the visible ones, then the held-out ones."""
        return self.scorer.test_ids() + self.scorer.held_out_ids()

    def close(self) -> None:
        """Stop the scorer and remove the sandbox (twice-safe)."""
        self.scorer.close()
        self.sandbox.close()

    def __enter__(self) -> ProjectRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
