"""The host's side of the worker: installing it in a sandbox, starting it, reading its channel."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import select
import threading
import time
import weakref
from functools import cache

from swarm_envs.sandboxes.base import Sandbox, ScoringHost, WorkerHandle
from swarm_envs.tasks import Task

from .harness_env import built
from .worker.protocol import Deframer

#: the worker package's name inside the sandbox (underscored: no workspace module has it)
PACKAGE = "_swarm_worker"
_WORKER_DIR = pathlib.Path(__file__).with_name("worker")
#: the name under which a sandbox shows workers the scorer's private pytest
HARNESS = "harness"
# `python -I` puts no script directory on sys.path: add ours for the import, then take it
# off again, so that no module of the workspace can be shadowed by a file of ours. The
# process first re-executes itself under the task's hash seed (`settings.pin_process`),
# then puts the scorer's private pytest ahead of the installed packages
# (`settings.use_harness`) before anything imports pytest.
BOOTSTRAP = b"""import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from _swarm_worker.settings import pin_process, use_harness
pin_process(os.path.abspath(__file__))
use_harness()
from _swarm_worker.main import main
sys.path.remove(here)
main(sys.argv[1:])
"""
_shown: weakref.WeakKeyDictionary[ScoringHost, tuple[pathlib.Path, str]] = (
    weakref.WeakKeyDictionary()
)
_shown_lock = threading.Lock()


@cache
def _worker_files() -> dict[str, bytes]:
    files = {f"{PACKAGE}/{p.name}": p.read_bytes() for p in sorted(_WORKER_DIR.glob("*.py"))}
    return {**files, "run.py": BOOTSTRAP}


def task_settings(task: Task) -> dict:
    """What the worker needs to know of the task (`bin/task.json`, see `worker.settings`)."""
    spec = task.manifest.tests
    return {
        "hash_seed": spec.hash_seed,
        "project": task.top_level_names(),
        "deselect": list(spec.deselect),
        "site": "site" if task.manifest.requires or task.manifest.distribution else None,
        "plugins": list(spec.plugins),
    }


def show_harness(host: ScoringHost) -> str:
    """Show the sandbox's workers the scorer's private pytest (once per area); its path there.

    The harness (`harness_env.harness_env()`, built in the cache on first use and checked
    against its wheels, by every scorer as it starts: `canary.start`) is shown read-only:
    bound where the backend can, else put into the area once (`ScoringHost.show`).

    Raises:
        ScoringError: the harness cannot be built, or differs from its wheels.
    """
    env = built()  # checked in full once per process; the scorer checks it at each start
    with _shown_lock:
        known = _shown.get(host)
        if known is not None and known[0] == env.path:
            return known[1]
        inside = host.show(HARNESS, env.path)
        _shown[host] = (env.path, inside)
        return inside


def install_worker(host: ScoringHost, task: Task) -> None:
    """Copy the worker, the task's settings and its environment into the scoring area's `bin/`.

    pytest runs with the task's own settings (`[tests.ini]`), never the workspace's, and is
    the scorer's private one (`show_harness`). The task's third-party packages (its
    `requires`, installed beforehand) are read-only there.

    Raises:
        RequirementsError: the task's requirements cannot be installed.
        ScoringError: the scorer's private pytest cannot be built, or was altered.
    """
    settings = {**task_settings(task), "harness": show_harness(host)}
    site = {f"site/{rel}": data for rel, data in task.site_files().items()}
    if not site:
        settings["site"] = None
    host.sync(
        "bin",
        {
            **_worker_files(),
            "pytest.ini": task.pytest_ini(),
            "task.json": json.dumps(settings, sort_keys=True).encode(),
            **site,
        },
    )


def worker_argv(host: ScoringHost, mode: str, *, bin_dir: str = "bin") -> list[str]:
    """The command line that starts the worker in `mode` inside the sandbox.

    `bin_dir`: the folder of the scoring area the worker was installed in (the canary
    project has its own, under `canary.FOLDER`).
    """
    return [host.python, "-I", "-B", f"{host.inside_dir}/{bin_dir}/run.py", mode]


def ini_path(host: ScoringHost) -> str:
    """Our pytest configuration file, as the worker sees it."""
    return f"{host.inside_dir}/bin/pytest.ini"


def limits_for_children(sandbox: Sandbox) -> dict[str, float]:
    """The per-evaluation limits a worker applies to the process that runs the tests."""
    lim = sandbox.limits
    return {"cpu_s": lim.cpu_s, "memory_mb": lim.memory_mb}


class Channel:
    """Reads the records of a worker's channel (its stdout), with deadlines."""

    def __init__(self, handle: WorkerHandle):
        self.handle = handle
        self.fd = handle.stdout.fileno()
        os.set_blocking(self.fd, False)
        self._frames = Deframer()
        self._ready: list[dict] = []
        self.eof = False

    def next(self, deadline: float) -> dict | None:
        """The next record, or None at EOF or when the deadline passes."""
        while not self._ready:
            if self.eof:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.fd], [], [], min(left, 1.0))
            if not r:
                continue
            try:
                data = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                self.eof = True
            self._ready.extend(self._frames.feed(data))
        return self._ready.pop(0)


def send(handle: WorkerHandle, message: dict, *, close: bool = False) -> None:
    """Write one JSON line to the worker's stdin (and close it)."""
    handle.stdin.write((json.dumps(message) + "\n").encode())
    handle.stdin.flush()
    if close:
        handle.stdin.close()


def run_once(
    host: ScoringHost,
    mode: str,
    hello: dict,
    *,
    timeout_s: float,
    bin_dir: str = "bin",
    ini: str | None = None,
) -> list[dict]:
    """Run the worker in `once`/`collect` mode and return its records (until EOF/timeout).

    A run cut off at `timeout_s` ends with a `{"ev": "host_timeout"}` record. `bin_dir`
    and `ini`: where the worker and its pytest configuration are (default: the task's).
    """
    handle = host.start_worker(worker_argv(host, mode, bin_dir=bin_dir))
    try:
        try:
            send(handle, {**hello, "ini": ini or ini_path(host)}, close=True)
        except OSError:
            pass
        ch = Channel(handle)
        deadline = time.monotonic() + timeout_s
        out = []
        while True:
            rec = ch.next(deadline)
            if rec is None:
                break
            out.append(rec)
        if not ch.eof and time.monotonic() >= deadline:
            out.append({"ev": "host_timeout"})
        return out
    finally:
        handle.kill()
        for pipe in (handle.stdin, handle.stdout):  # read here, in this thread: ours to close
            with contextlib.suppress(OSError):
                pipe.close()
