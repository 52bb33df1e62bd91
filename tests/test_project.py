"""Real projects as they come: each failure class of bring-your-own, reproduced small.

Scorer-facing classes (ids across worker processes, helper-module tests, an installed copy
of the package) run against both scorers on a hand-written task folder; make-task classes
go through `make_task` and the CLI on a project folder.
"""

import textwrap
from pathlib import Path

import pytest

from swarm_envs.generators import ProjectRunner
from swarm_envs.task import Task

SCORERS = ("fast", "subprocess")


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def task_folder(root: Path, files: dict[str, str], manifest: str = "") -> Task:
    name = root.name.replace("-", "_").lower()
    write(root, {"task.toml": f'name = "{name}"\ndescription = "d"\n{manifest}', **files})
    return Task(root)


def reference(task: Task, scorer: str):
    with ProjectRunner(task, scorer=scorer) as runner:
        return runner.run(task.solution_files())


# ---------------------------------------------------------------------------- scorer side


@pytest.mark.parametrize("scorer", SCORERS)
def test_ids_of_a_set_parametrisation_are_stable_across_processes(tmp_path, scorer):
    task = task_folder(
        tmp_path / "setids",
        {
            "solution/pk/__init__.py": "def f(x):\n    return x\n",
            "tests/test_a.py": """
                import pytest
                from pk import f
                WORDS = {"apple", "kiwi", "plum", "fig", "pear", "lime", "date", "sloe"}
                @pytest.mark.parametrize("word,other", zip(WORDS, sorted(WORDS)))
                def test_pair(word, other):
                    assert f(word) == word
            """,
        },
    )
    rep = reference(task, scorer)
    assert rep.total == 8 and rep.passed == 8, rep.failures


MIXIN_TASK = {
    "solution/pk/__init__.py": "def f(x):\n    return x + 1\n",
    "tests/__init__.py": """
        class Mixin:
            def test_inherited(self):
                from pk import f
                assert f(1) == 2
    """,
    "tests/test_a.py": """
        from tests import Mixin

        class TestOne(Mixin):
            pass

        class TestTwo(Mixin):
            pass
    """,
}


@pytest.mark.parametrize("scorer", SCORERS)
def test_tests_inherited_from_a_helper_module_are_canonical(tmp_path, scorer):
    rep = reference(task_folder(tmp_path / "mixin", MIXIN_TASK), scorer)
    assert rep.passed == rep.total == 2, rep.failures


@pytest.mark.parametrize("scorer", SCORERS)
def test_a_helper_test_forged_under_the_helpers_file_name_is_still_caught(tmp_path, scorer):
    forged = """
        def f(x):
            raise NotImplementedError


        def _swap():
            import tests
            ns = {}
            src = "def test_inherited(self):\\n    pass\\n"
            exec(compile(src, tests.__file__, "exec"), ns)
            tests.Mixin.test_inherited = ns["test_inherited"]


        _swap()
    """
    # The project is imported before the test classes are made, so they inherit the swap.
    test_a = "import pk  # noqa: F401\n" + textwrap.dedent(MIXIN_TASK["tests/test_a.py"])
    files = {**MIXIN_TASK, "solution/pk/__init__.py": forged, "tests/test_a.py": test_a}
    rep = reference(task_folder(tmp_path / "forged", files), scorer)
    assert rep.passed == 0
    assert all("replaced by the code under test" in t for t in rep.failures.values())


@pytest.mark.parametrize("scorer", SCORERS)
def test_the_project_wins_over_an_installed_copy_of_itself(tmp_path, scorer):
    # tomli_w is installed (a dependency of swarm-envs); the project's own tomli_w must win.
    task = task_folder(
        tmp_path / "shadowed",
        {
            "solution/tomli_w/__init__.py": "def dumps(obj):\n    return 'mine'\n",
            "tests/test_a.py": "import tomli_w\n\ndef test_own():\n    assert tomli_w.dumps({}) == 'mine'\n",
        },
    )
    assert task.top_level_names() == ["tomli_w"]
    rep = reference(task, scorer)
    assert rep.passed == rep.total == 1, rep.failures


@pytest.mark.parametrize("scorer", SCORERS)
def test_a_workspace_module_never_shadows_the_standard_library(tmp_path, scorer):
    # With a tests/ package, pytest's prepend mode puts the project root first on sys.path.
    task = task_folder(
        tmp_path / "stdlib",
        {
            "solution/pk/__init__.py": """
                class Box:
                    def __init__(self, v):
                        self.v = v

                    def __reduce__(self):
                        raise NotImplementedError
            """,
            "tests/__init__.py": "",
            "tests/test_a.py": """
                from pk import Box

                def test_roundtrip():
                    import pickle
                    assert pickle.loads(pickle.dumps(Box(3))).v == 3
            """,
        },
    )
    fake = "def dumps(obj):\n    return obj\n\ndef loads(obj):\n    return obj\n"
    with ProjectRunner(task, scorer=scorer) as runner:
        rep = runner.run({**task.solution_files(), "pickle.py": fake.encode()})
    assert rep.passed == 0 and "NotImplementedError" in next(iter(rep.failures.values()))


@pytest.mark.parametrize("scorer", SCORERS)
def test_the_tasks_pytest_settings_and_deselected_tests_apply(tmp_path, scorer):
    manifest = textwrap.dedent("""
        [tests]
        deselect = ["tests/test_a.py::test_skipped_here"]
        [tests.ini]
        filterwarnings = ["error::DeprecationWarning"]
        markers = ["fast: quick tests"]
        addopts = ["--strict-markers"]
    """)
    task = task_folder(
        tmp_path / "settings",
        {
            "solution/pk/__init__.py": """
                import warnings

                def old():
                    warnings.warn("old", DeprecationWarning)
                    return 1
            """,
            "tests/test_a.py": """
                import pytest
                from pk import old

                @pytest.mark.fast
                def test_warns_as_error():
                    with pytest.raises(DeprecationWarning):
                        old()

                @pytest.mark.skip(reason="not on this Python")
                def test_skipped_here():
                    pass
            """,
        },
        manifest,
    )
    with ProjectRunner(task, scorer=scorer) as runner:
        assert runner.test_ids() == ["tests/test_a.py::test_warns_as_error"]
        rep = runner.run(task.solution_files())
    assert rep.passed == rep.total == 1, rep.failures


def test_a_manifest_refuses_settings_that_could_weaken_scoring(tmp_path):
    from swarm_envs.error import ManifestError

    for bad, why in [
        ('[tests.ini]\naddopts = ["-p", "myplugin"]\n', "only --strict-markers"),
        ('[tests.ini]\ntimeout = "3"\n', "not a pytest setting a task may carry"),
        ('requires = ["not a requirement!"]\n', "not a requirement specifier"),
    ]:
        with pytest.raises(ManifestError, match=why):
            task_folder(tmp_path / f"bad{len(why)}", {"solution/x.py": "", "tests/t.py": ""}, bad)


def make_wheel(folder: Path, name: str, version: str, files: dict[str, str]) -> Path:
    """A minimal pure-Python wheel, as `pip wheel` would make it (no index needed)."""
    import base64
    import hashlib
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    info = f"{name}-{version}.dist-info"
    members = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for rel, text in members.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{rel},sha256={digest.decode()},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for rel, text in members.items():
            z.writestr(rel, text)
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return path


@pytest.fixture
def user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.parametrize("scorer", SCORERS)
def test_third_party_requirements_come_from_the_tasks_environment(tmp_path, user_cache, scorer):
    task = task_folder(
        tmp_path / "needsdep",
        {
            "solution/pk/__init__.py": "import frozentime\n\ndef now():\n    return frozentime.NOW\n",
            "tests/test_a.py": "from pk import now\n\ndef test_now():\n    assert now() == 42\n",
        },
        'requires = ["frozentime==1.0"]\n',
    )
    make_wheel(task.root / "wheels", "frozentime", "1.0", {"frozentime.py": "NOW = 42\n"})
    env = task.environment()
    assert env is not None and (env / "frozentime.py").is_file()
    assert env.is_relative_to(user_cache)
    rep = reference(task, scorer)
    assert rep.passed == rep.total == 1, rep.failures


def test_a_requirement_that_cannot_be_installed_says_what_failed(tmp_path, user_cache):
    from swarm_envs.error import RequirementsError

    task = task_folder(
        tmp_path / "baddep",
        {"solution/pk/__init__.py": "", "tests/test_a.py": "def test_x():\n    pass\n"},
        'requires = ["frozentime==9.9"]\n',
    )
    make_wheel(task.root / "wheels", "frozentime", "1.0", {"frozentime.py": ""})
    with pytest.raises(RequirementsError, match=r"frozentime==9\.9.*wheels"):
        task.environment()
    assert not any(user_cache.rglob("frozentime.py"))  # nothing half-installed
