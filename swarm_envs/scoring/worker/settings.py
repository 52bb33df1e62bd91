"""The task's settings inside the sandbox (`bin/task.json`, written by the host), applied.

Standard library only: `pin_process` runs in the bootstrap, before pytest is imported.

- `hash_seed`: the `PYTHONHASHSEED` of every worker process, so that ids of tests
  parametrised over a set are the same in collection and in every worker;
- `project`: the task's own top-level packages, imported from the tree even where a copy is
  installed (`use_tree`);
- `deselect`: node ids left out of the canonical suite, matched exactly (`deselects`): an
  entry leaves out its own test, or the tests under a folder, file or class it names, or
  the parametrised instances of a function it names, never a test whose name it begins
  (pytest's `--deselect` would: `test_main` would take `test_main_ok` with it);
- `site`: the task's third-party environment, a folder of `bin/` put ahead of the installed
  packages;
- `harness`: the scorer's private pytest (and what it imports), as the sandbox shows it,
  put ahead of both (`use_harness`): the interpreter's own pytest, if any, is never used;
- `plugins`: pytest plugins of that environment the tests need, enabled with `-p`.

Processes that tests start (`python -m pkg`, a `multiprocessing` spawn) see the project and
the task's environment too: `use_tree` names both in `PYTHONPATH`.
"""

from __future__ import annotations

import json
import os
import sys
from importlib.machinery import ModuleSpec, PathFinder
from typing import Any

#: the worker's bin/ (this package's parent)
BIN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ADDR_NO_RANDOMIZE = 0x0040000


def _load() -> dict:
    try:
        with open(os.path.join(BIN, "task.json")) as f:
            return dict(json.load(f))
    except (OSError, ValueError, TypeError):
        return {}


SETTINGS = _load()


def site_dir() -> str | None:
    """The task's environment in the scoring area, or None when it has none."""
    site = SETTINGS.get("site")
    return os.path.join(BIN, str(site)) + os.sep if site else None


def _no_address_randomization() -> bool:
    """Turn off address randomization for the next exec; False where it stays on.

    `hash(None)` (and so the order of a set of tuples holding None) follows an address
    before Python 3.12: with randomized addresses, a test parametrised over such a set gets
    different ids in every process, whatever the hash seed.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        current = libc.personality(0xFFFFFFFF)
        if current == -1 or current & _ADDR_NO_RANDOMIZE:
            return False
        return libc.personality(current | _ADDR_NO_RANDOMIZE) != -1
    except Exception:  # noqa: BLE001 - not Linux, or refused (a seccomp profile)
        return False


def pin_process(script: str) -> None:
    """Re-execute `script` under the task's `PYTHONHASHSEED`, once, before pytest loads.

    `-I` ignores the environment, so the seed cannot be set from outside: the re-exec keeps
    what `-I` gives (no other `PYTHON*` variable, no user site, no script directory on
    `sys.path`). Addresses are made deterministic too where the kernel allows it.
    """
    seed = SETTINGS.get("hash_seed")
    if seed is None:
        return
    pinned = os.environ.get("PYTHONHASHSEED") == str(seed) and not sys.flags.ignore_environment
    if _no_address_randomization():
        pinned = False
    if pinned:
        return
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONHASHSEED=str(int(seed)), PYTHONDONTWRITEBYTECODE="1")
    flags = ["-s", "-B", *(["-P"] if sys.version_info >= (3, 11) else [])]
    os.execve(sys.executable, [sys.executable, *flags, script, *sys.argv[1:]], env)


def harness_dir() -> str | None:
    """The scorer's private pytest, as the sandbox shows it (None: none was given)."""
    where = SETTINGS.get("harness")
    return str(where) if isinstance(where, str) and where else None


#: the harness's top-level modules that nothing may have imported from elsewhere first
_HARNESS_MODULES = ("pytest", "_pytest", "pluggy", "iniconfig", "py")


def use_harness() -> None:
    """Put the scorer's private pytest ahead of the installed packages (before any import).

    A harness module already imported (by a `.pth` file of the interpreter's
    site-packages, at start-up) came from elsewhere: the worker stops, naming it, rather
    than score with a mixture (the canary then fails the scorer loudly).
    """
    where = harness_dir()
    if where is None:
        return
    early = sorted(n for n in _HARNESS_MODULES if n in sys.modules)
    if early:
        sys.stderr.write(
            f"{', '.join(early)} imported at start-up, before the scorer's own pytest could be "
            "put first (a .pth file of this Python's site-packages imports it): the scoring "
            "worker will not run with another pytest\n"
        )
        sys.exit(3)
    at = next(
        (i for i, p in enumerate(sys.path) if p.endswith(("site-packages", "dist-packages"))),
        len(sys.path),
    )
    sys.path.insert(at, where)


def use_site() -> None:
    """Put the task's environment on `sys.path` ahead of the installed packages."""
    site = site_dir()
    if site is None:
        return
    at = next(
        (i for i, p in enumerate(sys.path) if p.endswith(("site-packages", "dist-packages"))),
        len(sys.path),
    )
    sys.path.insert(at, site.rstrip(os.sep))


def plugins() -> list[str]:
    """`-p NAME` options for the task's plugins (autoload is off; these are asked for)."""
    out: list[str] = []
    for name in SETTINGS.get("plugins", ()):
        if isinstance(name, str) and name and not name.startswith("no:"):
            out += ["-p", name]
    return out


def deselects(entry: str, nodeid: str) -> bool:
    """Whether the deselect entry `entry` leaves out the test `nodeid`.

    Its exact id, or a node above it: a folder (`tests/sub`), a file, a class
    (`...::TestA`), a function's parametrised instances (`...::test_x` for `test_x[1]`).
    Never a test whose name merely begins with the entry (`test_x` and `test_x_y`,
    `test_x[1]` and `test_x[10]`). Also `_profile_run.deselects` (a script of its own).
    """
    if nodeid == entry:
        return True
    if not entry or not nodeid.startswith(entry):
        return False
    if entry.endswith(("/", "::")):
        return True
    rest = nodeid[len(entry) :]
    return rest.startswith(("::", "[", "/"))


class Deselect:
    """A pytest plugin: leaves out the tests the task deselects, by exact id (`deselects`).

    Not pytest's `--deselect`, which takes prefixes. Given to every pytest run of the
    worker (collection and scoring runs) before the code under test is imported.
    """

    def __init__(self) -> None:
        self.entries = [d for d in SETTINGS.get("deselect", ()) if isinstance(d, str)]

    def pytest_collection_modifyitems(self, config: Any, items: list) -> None:
        """Leave the deselected items out, and tell pytest (its summary counts them)."""
        if not self.entries:
            return
        gone = [it for it in items if any(deselects(d, it.nodeid) for d in self.entries)]
        if gone:
            config.hook.pytest_deselected(items=gone)
            items[:] = [it for it in items if all(it is not g for g in gone)]


#: the tree being run and the task's own top-level names (set once per process, in place:
#: this module's globals never change after the guard's snapshot)
_where: dict[str, object] = {"tree": "", "project": frozenset()}


def use_tree(tree: str) -> None:
    """Make the project at `tree` importable, in the order a plain `python -m pytest` has.

    The task's own packages come from the tree, even where a copy is installed. Every other
    top-level name resolves from the standard library and the installed packages first, and
    from the tree only when nothing else has it, wherever pytest's `prepend` import mode put
    the tree on `sys.path` (first, for a `tests/` package): a workspace `pickle.py` or
    `json.py` never shadows the real one.
    """
    _where["tree"] = os.path.realpath(tree)
    _where["project"] = frozenset(str(n) for n in SETTINGS.get("project", ()))
    # A test's own child processes (`python -m pkg`) import the project and its
    # requirements as this process does; they are untrusted like it, and never report.
    site = site_dir()
    os.environ["PYTHONPATH"] = os.pathsep.join([tree, *([site.rstrip(os.sep)] if site else [])])
    sys.path.append(tree)
    sys.meta_path.insert(0, _TreeLast())


def find_spec(name: str, path: object = None, target: object = None) -> ModuleSpec | None:
    """The spec `name` imports from under the order of `use_tree`."""
    tree = _where["tree"]
    if path is None and isinstance(tree, str) and tree:
        if name in _where["project"]:  # type: ignore[operator]
            return PathFinder.find_spec(name, [tree], target)  # type: ignore[arg-type]
        others = [p for p in sys.path if os.path.realpath(p or os.getcwd()) != tree]
        spec = PathFinder.find_spec(name, others, target)  # type: ignore[arg-type]
        if spec is not None:
            return spec
    return PathFinder.find_spec(name, path, target)  # type: ignore[arg-type]


class _TreeLast:
    """A meta path finder applying `find_spec` to top-level imports."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        return find_spec(name, path, target) if path is None else None
