"""A virtual environment of a test's own, whose harness is a copy that the test may damage.

The venv holds a copy of the harness's third-party distributions (pytest, pluggy,
iniconfig, packaging: every file, RECORD included) in its own site-packages, then adds the
shared environment's site-packages after it (their `.pth` files too: the editable install
of swarm_envs). Its Python imports the copy, and what an attack or a test changes in it
never reaches the shared environment.
"""

from __future__ import annotations

import importlib.metadata
import os
import pathlib
import shutil
import subprocess
import sys

from swarm_envs.scoring import harness


def copy_distributions(dest: pathlib.Path, dists: tuple[str, ...]) -> list[harness.HarnessFile]:
    """Every installed file of `dists` copied under `dest`; the copy's harness files."""
    for name in dists:
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue  # a backport this Python does not need (the harness skips it too)
        for f in dist.files or ():
            if not f.as_posix().startswith("../") and f.suffix != ".pyc":
                target = dest / f.as_posix()
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(str(dist.locate_file(f)), target)
    return [
        harness.HarnessFile(hf.distribution, hf.version, hf.rel, dest / hf.rel, hf.sha256)
        for hf in harness.harness_files(dists)
    ]


def harness_venv(root: pathlib.Path, pth: str = "") -> tuple[pathlib.Path, pathlib.Path]:
    """A new venv at `root` (see the module docstring): its Python and its site-packages.

    `pth`: a line of code every Python of the venv runs at start-up (a `.pth` file).
    """
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120
    )
    site = next(root.glob("lib/python*/site-packages"))
    # The guard trusts the packages of the venv's own site-packages: pytest's
    # dependencies must be among them.
    copy_distributions(site, tuple(d for d in harness.DISTRIBUTIONS if d != "swarm-envs"))
    shared = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
    lines = [f"import site; site.addsitedir({p!r})" for p in shared]
    (site / "zz_shared.pth").write_text("\n".join(lines) + "\n")
    if pth:
        (site / "aa_patch.pth").write_text(pth + "\n")
    return root / "bin" / "python", site


def bare_venv(
    root: pathlib.Path, *, shared_pytest: bool = False
) -> tuple[pathlib.Path, pathlib.Path]:
    """A new venv at `root` with the shared environment's packages after its own (none).

    Inside a sandbox only the venv's own site-packages exist (the shared ones are not
    shown): there, this Python has no pytest, unless `shared_pytest` copies the shared
    environment's pytest and its dependencies into the venv. Returns its Python and its
    site-packages.
    """
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120
    )
    site = next(root.glob("lib/python*/site-packages"))
    if shared_pytest:
        copy_distributions(site, tuple(d for d in harness.DISTRIBUTIONS if d != "swarm-envs"))
    shared = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
    lines = [f"import site; site.addsitedir({p!r})" for p in shared]
    (site / "zz_shared.pth").write_text("\n".join(lines) + "\n")
    return root / "bin" / "python", site


def cache_with_harness(dest: pathlib.Path) -> pathlib.Path:
    """A cache folder at `dest` holding a copy of this session's private harness; the copy.

    A process given it finds the scorer's pytest built (no index needed) and may damage it.
    """
    from swarm_envs.scoring.harness_env import harness_env

    built = harness_env().path
    copy = dest / "environments" / built.name
    shutil.copytree(built, copy)
    return copy


def run_in(
    python: pathlib.Path,
    code: str,
    *args: str,
    timeout: float = 900,
    cache: pathlib.Path | None = None,
) -> str:
    """Run `code` with the venv's Python; its stdout.

    `cache`: the process's cache folder (default: none on disk, `SWARM_ENVS_CACHE=off`).

    Raises:
        AssertionError: it exited with an error (its stderr's tail is the message).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["SWARM_ENVS_CACHE"] = str(cache) if cache is not None else "off"
    out = subprocess.run(
        [str(python), "-c", code, *args], capture_output=True, text=True, timeout=timeout, env=env
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout
