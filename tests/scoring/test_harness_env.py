"""The scorer's private pytest: built once into the cache, checked on every use, used first.

Each use runs in a fresh process with a cache folder of the test's own: the first builds
the environment from the pinned, hash-checked wheels (from the package index), the next
finds it; a file altered after the build is refused by name, as the installed harness is.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from swarm_envs.scoring.harness_env import LOCK

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

USE = (
    "from swarm_envs.scoring.harness_env import harness_env; e = harness_env(); "
    "print(e.path, e.pytest, e.digest)"
)


def _use(cache: pathlib.Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "SWARM_ENVS_CACHE": str(cache)}
    return subprocess.run(
        [sys.executable, "-c", USE], env=env, capture_output=True, text=True, timeout=500
    )


def test_the_private_harness_is_built_once_checked_and_put_first(tmp_path):
    first = _use(tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    path, version, digest = first.stdout.split()
    assert version == LOCK[0].split()[0].split("==")[1]
    where = pathlib.Path(path)
    assert where.is_relative_to(tmp_path) and (where / "_pytest" / "reports.py").is_file()
    built = (where / ".complete").stat().st_mtime_ns

    again = _use(tmp_path)
    assert again.returncode == 0 and again.stdout.split() == [path, version, digest]
    assert (where / ".complete").stat().st_mtime_ns == built  # found, not built again

    # A worker puts it first: its pytest wins over the interpreter's own.
    probe = f"import sys; sys.path.insert(0, {path!r}); import pytest, _pytest.reports as r; print(r.__file__)"
    r = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True)
    assert r.stdout.strip().startswith(path), r

    # Altered after the build: refused, naming the file, never used.
    reports = where / "_pytest" / "reports.py"
    reports.write_text(reports.read_text() + "\n# an agent was here\n")
    tampered = _use(tmp_path)
    assert tampered.returncode != 0
    assert "ScoringError" in tampered.stderr and "_pytest/reports.py" in tampered.stderr
