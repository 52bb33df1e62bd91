"""The docs tell the truth: their snippets run, their tables list what the code has.

Every fenced Python block of the README and of docs/ runs as written, in a fresh
interpreter, from a folder that holds the example paths the docs use
(`path/to/project`, `path/to/task`). A block preceded by `<!-- needs a server -->` talks
to an LLM server and is skipped, saying so.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import swarm_envs
from swarm_envs.core.config import EnvConfig

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NEEDS_SERVER = "<!-- needs a server -->"
_BLOCK = re.compile(r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)\n```", re.S)


def _blocks():
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in _BLOCK.finditer(text):
            line = text.count("\n", 0, m.start("code")) + 1
            marks = (
                [pytest.mark.skip(reason="needs an LLM server")]
                if NEEDS_SERVER in m["before"]
                else []
            )
            yield pytest.param(m["code"], id=f"{doc.name}:{line}", marks=marks)


@pytest.fixture(scope="module")
def example_paths(tmp_path_factory):
    """A folder with the paths the docs use: a project with a pytest suite, and a task."""
    cwd = tmp_path_factory.mktemp("docs")
    calc = swarm_envs.get_task("calc")
    shutil.copytree(calc.solution_dir, cwd / "path/to/project")
    shutil.copytree(calc.tests_dir, cwd / "path/to/project/tests")
    shutil.copytree(calc.root, cwd / "path/to/task", ignore=shutil.ignore_patterns("__pycache__"))
    # The real project of the make-task walk, as its sdist unpacks: sources and tests.
    inflection = swarm_envs.get_task("inflection")
    shutil.copytree(inflection.solution_dir, cwd / "inflection-0.5.1")
    shutil.copytree(inflection.tests_dir, cwd / "inflection-0.5.1/tests")
    manifest = cwd / "path/to/task/task.toml"  # a task of one's own: its own name
    manifest.write_text(manifest.read_text().replace('name = "calc"', 'name = "mycalc"', 1))
    return cwd


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("code", list(_blocks()))
def test_the_python_snippets_of_the_docs_run(code, example_paths):
    res = subprocess.run(
        [sys.executable, "-c", code],
        cwd=example_paths,
        capture_output=True,
        text=True,
        timeout=800,
    )
    assert res.returncode == 0, res.stderr[-3000:]


def test_every_doc_has_its_snippets_found():
    found = list(_blocks())
    assert len(found) >= 6 and sum(not p.marks for p in found) >= 4


def test_the_configuration_table_lists_every_field():
    text = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    table = text.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `(\w+)` \|", table, re.M)
    assert listed == list(EnvConfig.model_fields), "README's table vs EnvConfig"


def _imported_top_names() -> set[str]:
    names = set()
    for folder in ("swarm_envs", "sandboxes", "baselines"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names.add(node.module.split(".")[0])
    return names


def test_every_extra_installs_something_the_library_imports():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    imported = _imported_top_names()
    for extra, requirements in extras.items():
        if extra == "dev":  # the tools of the test suite, not of the library
            continue
        packages = {
            re.split(r"[<>=!~; \[]", r, maxsplit=1)[0].replace("-", "_") for r in requirements
        }
        assert packages & imported, (
            f"extra {extra!r} ({sorted(packages)}) installs nothing imported"
        )


def test_the_readme_installs_from_a_checkout_or_a_wheel():
    install = (ROOT / "README.md").read_text(encoding="utf-8").split("## Install", 1)[1]
    commands = re.findall(
        r"^pip install (\S+)", install.split("```bash", 1)[1].split("```")[0], re.M
    )
    assert commands and all(c.startswith(("'.", ".", '"$(ls')) for c in commands), commands
