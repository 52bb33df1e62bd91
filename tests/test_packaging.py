"""The wheel: built from the repo, installed in a fresh venv, used from elsewhere."""

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
        check=True,
        timeout=600,
    )
    return next(out.glob("swarm_envs-*.whl"))


@pytest.mark.slow
def test_wheel_contents(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    # No colliding top-level names: tasks, sandboxes and baselines live in swarm_envs.
    assert not tops & {"tasks", "sandboxes", "baselines", "benchmarks", "tests"}
    assert "swarm_envs/tasks/calc/task.toml" in names
    assert "swarm_envs/tasks/calc/solution/calc/core.py" in names
    assert "swarm_envs/sandboxes/local.py" in names
    assert "swarm_envs/scoring/worker/protocol.py" in names
    assert "swarm_envs/project/catalogue.txt" in names  # make-suite catalogue
    assert "swarm_envs/agents/scripted.py" in names
    assert "swarm_envs/agents/llm.py" in names and "swarm_envs/agents/rollout.py" in names
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    # Every package of the source tree is in the wheel (a package missing from
    # pyproject's list installs without error and fails at its first import).
    for top, inside in (("swarm_envs", "swarm_envs"), ("baselines", "swarm_envs/baselines")):
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.relative_to(ROOT / top).as_posix()
            assert f"{inside}/{rel}" in names, f"{top}/{rel} is not in the wheel"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_wheel_in_fresh_venv_from_another_directory(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheel)], check=True, timeout=900)
    work = tmp_path / "elsewhere"
    work.mkdir()
    code = (
        "import gymnasium, swarm_envs;"
        "env = swarm_envs.parallel_env('calc', num_agents=2);"
        "obs, infos = env.reset(seed=0);"
        "assert infos['agent_0']['tests_total'] == 13;"
        "env.close();"
        "g = gymnasium.make('swarm_envs:swarm/calc-v0'); g.reset(seed=0); g.close();"
        "import swarm_envs.agents.scripted, swarm_envs.sandboxes;"
        "print('ok', swarm_envs.__file__)"
    )
    res = subprocess.run(
        [str(py), "-c", code], cwd=work, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr
    assert "site-packages" in res.stdout
    res = subprocess.run(
        [str(env_dir / "bin" / "swarm-envs"), "run", "calc", "--agents", "2", "--quiet"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0 and "13 / 13" in res.stdout, res.stderr


def _pyproject() -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_package_of_the_library_has_its_place_in_the_layers():
    """A package missing from the layer contract would be unchecked by import-linter."""
    layers = _pyproject()["tool"]["importlinter"]["contracts"][0]
    assert layers["name"] == "Layers point one way"
    placed = {name.strip() for layer in layers["layers"] for name in layer.split("|")}
    top = {
        f"swarm_envs.{p.stem if p.is_file() else p.name}"
        for p in (ROOT / "swarm_envs").iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py")
        or (p.is_dir() and (p / "__init__.py").exists())
    }
    top |= {"swarm_envs.tasks", "swarm_envs.sandboxes", "swarm_envs.baselines"}
    assert top - placed == set(), "place these in [tool.importlinter] layers"
    assert placed - top == set(), "these layers name nothing"


def test_every_layer_package_says_what_it_owns_and_what_it_may_import():
    folders = [p for p in (ROOT / "swarm_envs").iterdir() if (p / "__init__.py").exists()]
    folders += [ROOT / "sandboxes", ROOT / "baselines"]
    for folder in folders:
        doc = (folder / "__init__.py").read_text()
        assert doc.lstrip().startswith('"""'), f"{folder.name}/__init__.py has no docstring"
        assert "import" in doc.split('"""')[1].lower() or "layer" in doc.lower(), folder.name
