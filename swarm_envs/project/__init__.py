"""Bring your own project: turn a real project with a pytest suite into a task.

    swarm-envs make-task path/to/project --name mylib --out my_tasks/mylib

The project is taken as it comes (a `src/` layout, tests in `tests/`, `test/`, at the root
or inside the package, its pytest settings and conftests, its third-party requirements; see
`swarm_envs.project.layout`). Then, through the real sandbox and scorer:

1. one instrumented run of the reference says what every test executes, how long it takes
   and how it ends; tests that the reference skips or xfails here are deselected (and
   listed), any other failure stops make-task with the failures grouped by cause (or, with
   `deselect_failing=True`, deselects them too);
2. the reference must pass every remaining test under the scorer;
3. every function and method that the tests reach is a candidate, and the tests that
   execute it are its tests; probes stub candidates and run their quickest tests (all of
   them if those pass), in parallel and under a time limit taken from the reference's
   timings: a candidate whose stub fails one of them is a unit;
4. units depend on the units their bodies really use (`swarm_envs.project.graph`).

The task folder is written atomically (a staging folder renamed at the end: nothing is left
behind when anything fails) and registered, with Gymnasium too. `MAKE_TASK.md` in it records
what was kept, moved, dropped and deselected, and why.

Layer: above the environments (it registers the task it made with Gymnasium) and
`swarm_envs.generation` (validation); owns turning a project folder into a task, and the
commands `swarm-envs make-task` (`cli_make_task`) and `make-suite` (`cli_make_suite`).
"""

from swarm_envs.project.make_task import (
    DESELECT_WARNING,
    REPORT,
    MakeTaskResult,
    Progress,
    build_task,
    compress,
    deselection_report,
    likely_fix,
    make_task,
)

__all__ = [
    "DESELECT_WARNING",
    "MakeTaskResult",
    "Progress",
    "REPORT",
    "build_task",
    "compress",
    "deselection_report",
    "likely_fix",
    "make_task",
]
