"""make-task and make-suite on projects laid out the way real libraries are.

Every project here is built in the test, like a source distribution as it comes: a
`PKG-INFO`, a `pyproject.toml` that declares a runtime dependency and a test extra (a
pytest plugin), tests that read the project's own metadata and run it in a subprocess,
tests inside the package. Their requirements are wheels built in the test (`--wheels`):
no network. Everything goes through the CLI, as a user would run it.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest
from support.helpers import write_files

from swarm_envs.cli import main
from swarm_envs.scoring.harness_env import pinned_pytest
from swarm_envs.tasks import Task

write = functools.partial(write_files, lstrip=False)  # the texts as given, dedented


def make_wheel(
    folder: Path,
    name: str,
    version: str,
    files: dict[str, str],
    entry_points: str = "",
    requires: tuple[str, ...] = (),
) -> Path:
    """A pure-Python wheel as `pip wheel` makes it (a zip with its .dist-info and RECORD)."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    members = {
        **{k: textwrap.dedent(v) for k, v in files.items()},
        f"{info}/METADATA": metadata,
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    if entry_points:
        members[f"{info}/entry_points.txt"] = textwrap.dedent(entry_points)
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
def wheelhouse(tmp_path):
    """A runtime dependency (`numwords`) and a pytest plugin with a fixture (`pytest-counter`)."""
    folder = tmp_path / "wheelhouse"
    make_wheel(
        folder,
        "numwords",
        "2.1",
        {"numwords/__init__.py": "WORDS = {1: 'one', 2: 'two', 3: 'three'}\n"},
    )
    make_wheel(
        folder,
        "pytest_counter",
        "0.3",
        {
            "pytest_counter.py": """
                import cProfile  # as pytest-benchmark does: the stdlib's `profile` must win

                import pytest


                @pytest.fixture
                def counter():
                    return iter(range(100))
            """
        },
        entry_points="[pytest11]\ncounter = pytest_counter\n",
    )
    return folder


@pytest.fixture
def user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


SPELL = """
    import sys

    from numwords import WORDS


    def spell(n):
        \"\"\"The English word for n (1..3).\"\"\"
        if n not in WORDS:
            raise ValueError(n)
        return WORDS[n]


    def shout(text):
        \"\"\"text in capitals, with a bang.\"\"\"
        return text.upper() + "!"


    def main(argv=None):
        line = sys.stdin.read().strip()
        print(shout(spell(int(line))))
"""

REAL = {
    "PKG-INFO": """\
        Metadata-Version: 2.1
        Name: spellnum
        Version: 1.4.2
        Requires-Dist: numwords>=2
        Requires-Dist: pytest-counter; extra == "test"
        Requires-Dist: pytest-cov; extra == "test"
        Provides-Extra: test
    """,
    "pyproject.toml": """
        [project]
        name = "spellnum"
        version = "1.4.2"
        dependencies = ["numwords>=2"]

        [project.optional-dependencies]
        test = ["pytest>=7", "pytest-counter", "pytest-cov"]
        docs = ["sphinx"]
    """,
    "LICENSE": "MIT License\n",
    "src/spellnum/__init__.py": SPELL,
    "src/spellnum/__main__.py": "from spellnum import main\n\nmain()\n",
    "src/spellnum/tests/__init__.py": "",
    "src/spellnum/tests/test_spell.py": """
        import importlib.metadata
        import subprocess
        import sys

        import pytest

        from spellnum import shout, spell


        def test_spell():
            assert spell(2) == "two"


        def test_shout():
            assert shout("hi") == "HI!"


        def test_bad_number():
            with pytest.raises(ValueError):
                spell(9)


        def test_plugin_fixture(counter):
            assert next(counter) == 0 and spell(1) == "one"


        def test_own_version():
            assert importlib.metadata.version("spellnum") == "1.4.2"


        def test_run_as_a_module():
            out = subprocess.run(
                [sys.executable, "-m", "spellnum"], input="3\\n", capture_output=True,
                text=True, timeout=60,
            )
            assert out.stdout.strip() == "THREE!", out.stderr
    """,
    "src/spellnum/extra/__init__.py": "def twice(n):\n    return 2 * n\n",
    "src/spellnum/extra/tests/__init__.py": "",
    "src/spellnum/extra/tests/test_twice.py": """
        from spellnum.extra import twice


        def test_twice():
            assert twice(2) == 4


        def test_broken_here():
            assert twice(2) == 5
    """,
}


def manifest(task_dir: Path) -> dict:
    import tomllib

    return tomllib.loads((task_dir / "task.toml").read_text())


@pytest.mark.slow
def test_a_real_layout_becomes_a_valid_task_with_what_it_declares(
    tmp_path, wheelhouse, user_cache, capsys
):
    src = write(tmp_path / "spellnum-1.4.2", REAL)
    out = tmp_path / "task"
    argv = ["make-task", str(src), "--name", "spellnum", "--out", str(out), "-q"]
    argv += ["--wheels", str(wheelhouse), "--deselect-failing"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    m = manifest(out)
    # 1. declared runtime dependency and test extra, pinned; tools left out
    assert sorted(m["requires"]) == ["numwords==2.1", "pytest_counter==0.3"]
    assert "pytest-cov" in text and "sphinx" not in json.dumps(m)
    # 2. the plugin is enabled by name for the scorer
    assert m["tests"]["plugins"] == ["counter"]
    # 3. the project is a distribution of its sdist's version
    assert m["distribution"] == "spellnum==1.4.2"
    # 5. tests inside the package (two levels) with --deselect-failing: one deselected, why
    assert m["tests"]["deselect"] == ["tests/extra/test_twice.py::test_broken_here"]
    assert "1 of 8 tests deselected" in text and "assert 4 == 5" in text
    task = Task(out)
    # the plugin, the metadata and the subprocess all pass under the scorer (validate)
    assert main(["validate", str(out), "--quick"]) == 0, capsys.readouterr().out
    from swarm_envs.scoring.runner import ProjectRunner

    with ProjectRunner(task) as runner:
        rep = runner.run(task.solution_files())
    assert rep.passed == rep.total == 7, rep.failures


@pytest.mark.slow
def test_without_its_plugin_the_fixture_test_fails_under_the_scorer(
    tmp_path, wheelhouse, user_cache
):
    # The honest control: the plugin really comes from `-p`, not from anywhere else.
    src = write(tmp_path / "spellnum-1.4.2", REAL)
    out = tmp_path / "task"
    argv = ["make-task", str(src), "--name", "spellnum", "--out", str(out), "-q"]
    assert main([*argv, "--wheels", str(wheelhouse), "--deselect-failing"]) == 0
    text = (out / "task.toml").read_text().replace('plugins = [\n    "counter",\n]\n', "")
    text = text.replace('plugins = ["counter"]\n', "")
    (out / "task.toml").write_text(text)
    task = Task(out)
    assert not task.manifest.tests.plugins
    from swarm_envs.scoring.runner import ProjectRunner

    with ProjectRunner(task) as runner:
        rep = runner.run(task.solution_files())
    failed = sorted(t for t, ok in rep.per_test.items() if not ok)
    assert failed == ["tests/test_spell.py::test_plugin_fixture"], rep.failures


#: a pytest-asyncio look-alike: its settings, and its warning at start when one is unset
ASYNC_PLUGIN = """
    import warnings

    import pytest


    def pytest_addoption(parser):
        parser.addini("asyncio_mode", "how async tests run", default="strict")
        parser.addini("asyncio_default_fixture_loop_scope", "the fixtures' loop scope")


    def pytest_configure(config):
        if not config.getini("asyncio_default_fixture_loop_scope"):
            warnings.warn(pytest.PytestDeprecationWarning("the loop scope is unset"))


    @pytest.fixture
    def asyncio_mode(request):
        return request.config.getini("asyncio_mode")
"""


@pytest.mark.slow
def test_a_plugin_pinned_for_an_older_pytest_is_taken_as_it_works_with_its_settings(
    tmp_path, user_cache, capsys
):
    # As blinker comes: `pytest-asyncio==0.24.0` pinned for the pytest of its day, its
    # `asyncio_mode` setting, and every warning an error.
    ours = pinned_pytest().split("==")[1]  # the scorer's own, whatever runs this suite
    folder = tmp_path / "wheelhouse"
    entry = "[pytest11]\nasyncio = pytest_asyncio\n"
    files = {"pytest_asyncio.py": ASYNC_PLUGIN}
    make_wheel(folder, "pytest_asyncio", "0.24.0", files, entry, requires=(f"pytest<{ours}",))
    make_wheel(folder, "pytest_asyncio", "1.2.0", files, entry, requires=(f"pytest>={ours}",))
    for version in ("7.0.0", ours):  # what pip resolves against (never installed)
        make_wheel(folder, "pytest", version, {"pytest_stand_in.py": ""})
    src = write(
        tmp_path / "signals-1.0",
        {
            "LICENSE": "MIT\n",
            "pyproject.toml": """
                [project]
                name = "signals"
                version = "1.0"

                [project.optional-dependencies]
                tests = ["pytest-asyncio==0.24.0"]

                [tool.pytest.ini_options]
                filterwarnings = ["error"]
                asyncio_mode = "auto"
            """,
            "src/signals/__init__.py": "def send(x):\n    return [x, x]\n",
            "tests/test_send.py": """
                from signals import send


                def test_send():
                    assert send(1) == [1, 1]


                def test_the_plugin_has_the_projects_setting(asyncio_mode):
                    assert asyncio_mode == "auto"
            """,
        },
    )
    out = tmp_path / "task"
    argv = ["make-task", str(src), "--name", "signals", "--out", str(out), "-q"]
    assert main([*argv, "--wheels", str(folder)]) == 0, capsys.readouterr()
    text = " ".join(capsys.readouterr().out.split())
    m = manifest(out)
    assert m["requires"] == ["pytest_asyncio==1.2.0"]
    assert f"does not work with the scorer's pytest=={ours}" in text
    assert m["tests"]["plugins"] == ["asyncio"] and m["tests"]["ini"]["asyncio_mode"] == "auto"
    filters = m["tests"]["ini"]["filterwarnings"]
    assert filters == ["error", "default::pytest.PytestDeprecationWarning"]
    assert main(["validate", str(out), "--quick"]) == 0, capsys.readouterr().out


def test_a_plugins_setting_needs_its_plugin(tmp_path):
    from swarm_envs.error import ManifestError
    from swarm_envs.tasks import load_manifest

    p = tmp_path / "task.toml"
    p.write_text(
        'name = "t"\nversion = 0\nsuite = "custom"\ndescription = "d"\n'
        '[tests]\nini = { asyncio_mode = "auto" }\n'
    )
    with pytest.raises(ManifestError, match="asyncio_mode is a setting of the pytest plugin"):
        load_manifest(p)


def test_a_test_module_that_exits_when_imported_is_named(tmp_path, user_cache, capsys):
    src = write(
        tmp_path / "topo-1.0",
        {
            "LICENSE": "MIT\n",
            "topo/__init__.py": "def order(x):\n    return sorted(x)\n",
            "test/__init__.py": "",
            "test/test_topo.py": """
                import unittest

                from topo import order


                class TestOrder(unittest.TestCase):
                    def test_order(self):
                        self.assertEqual(order([2, 1]), [1, 2])


                unittest.main()
            """,
        },
    )
    argv = ["make-task", str(src), "--name", "topo", "--out", str(tmp_path / "t"), "-q"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "the test module tests/test_topo.py exits when it is imported" in err, err


@pytest.mark.slow
def test_many_deselected_tests_warn_and_name_the_likely_fix(tmp_path, capsys, user_cache):
    files = {
        "LICENSE": "MIT\n",
        "pkg/__init__.py": (
            "def one():\n    return 1\n\n\n"
            "def peek():\n    with open('tests/test_peek.py') as f:\n        return f.read()\n"
        ),
        "tests/test_a.py": """
            import pytest
            from pkg import one


            def test_one():
                assert one() == 1


            @pytest.mark.parametrize("i", range(4))
            def test_fixture_missing(i, benchmark):
                benchmark(one)


            def test_two(benchmark):
                benchmark(one)


            def test_two_more():  # kept: deselection is by exact id, not pytest's prefix
                assert one() == 1
        """,
        # A test the scorer's integrity guard flags fails alone: it goes, the rest stays.
        "tests/test_peek.py": """
            from pkg import peek


            def test_reads_its_source():
                assert "def test" in peek()
        """,
        # A fuzzing harness of a library nobody declared: the file goes, the rest stays.
        "tests/test_fuzz.py": "import fuzzlib_nowhere\n\n\ndef test_fuzz():\n    pass\n",
    }
    src = write(tmp_path / "p", files)
    argv = ["make-task", str(src), "--name", "manydesel", "--out", str(tmp_path / "t")]
    assert main([*argv, "-q", "--deselect-failing"]) == 0
    text = capsys.readouterr().out
    assert "6 of 8 tests deselected (75%)" in text
    assert "dropped: tests/test_fuzz.py (does not collect here" in text
    assert "integrity guard" in text and "test_source_read" in text
    import tomllib

    m = tomllib.loads((tmp_path / "t" / "task.toml").read_text())
    assert "tests/test_a.py::test_one" not in m["tests"]["deselect"]
    assert "tests/test_peek.py::test_reads_its_source" in m["tests"]["deselect"]
    assert "tests/test_a.py::test_two" in m["tests"]["deselect"]
    assert "tests/test_a.py::test_two_more" not in m["tests"]["deselect"]
    assert "fixture 'benchmark' not found" in text and "pytest plugin" in text
    report = (tmp_path / "t" / "MAKE_TASK.md").read_text()
    assert "4 x" in report and "warning" in report.lower()


@pytest.mark.slow
def test_a_deprecation_helper_reading_its_callers_frame_keeps_every_test(
    tmp_path, capsys, user_cache
):
    # A deprecation helper that looks at its caller's frame (as semver's does): a view of
    # the frame gives it the line, and nothing is flagged or deselected (issue 31).
    files = {
        "LICENSE": "MIT\n",
        "pkg/__init__.py": """
            import inspect
            import warnings


            def deprecated(func):
                def wrapper(*args):
                    frame = inspect.currentframe().f_back
                    warnings.warn_explicit("old", DeprecationWarning, "x.py", frame.f_lineno)
                    return func(*args)

                return wrapper


            def one():
                return 1


            @deprecated
            def old_one():
                return one()
        """,
        "tests/test_a.py": """
            import warnings

            import pytest

            from pkg import old_one, one


            @pytest.mark.parametrize("i", range(30))
            def test_old(i):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    assert old_one() == 1


            @pytest.mark.parametrize("i", range(5))
            def test_new(i):
                assert one() == 1
        """,
    }
    src = write(tmp_path / "p", files)
    argv = ["make-task", str(src), "--name", "framey", "--out", str(tmp_path / "t")]
    assert main([*argv, "-q", "--deselect-failing"]) == 0, capsys.readouterr().out
    text = capsys.readouterr().out
    assert "integrity guard" not in text and "deselected" not in text, text
    import tomllib

    m = tomllib.loads((tmp_path / "t" / "task.toml").read_text())
    assert not m["tests"].get("deselect")


def sdist(folder: Path, name: str, version: str, files: dict[str, str]) -> Path:
    """A source distribution `name-version.tar.gz` of `files`, as `python -m build` makes."""
    root = write(folder / "unpacked" / f"{name}-{version}", files)
    out = folder / f"{name}-{version}.tar.gz"
    with tarfile.open(out, "w:gz") as tar:
        tar.add(root, arcname=root.name)
    return out


@pytest.mark.slow
def test_make_suite_builds_resumes_and_registers_a_suite(tmp_path, wheelhouse, user_cache, capsys):
    good = sdist(tmp_path, "spellnum", "1.4.2", REAL)
    broken = sdist(
        tmp_path,
        "notests",
        "0.1",
        {"LICENSE": "MIT\n", "notests/__init__.py": "X = 1\n"},
    )
    spec = tmp_path / "suite.txt"
    spec.write_text(f"# two projects\n{good}\n{broken}\n")
    argv = ["make-suite", str(spec), "--wheels", str(wheelhouse), "--workers", "2"]
    argv += ["--out", str(tmp_path / "built"), "--suite-name", "real-plus"]
    argv += ["--instances", "stub:1,bug:1", "--instance-k", "1", "--min-tests", "5"]
    assert main(argv) == 1  # one of two is not valid
    text = capsys.readouterr().out
    assert "spellnum" in text and "valid" in text
    assert re.search(r"notests-0\.1 +not valid +no tests in the sdist", text), text
    assert "1 x no tests in the sdist: notests-0.1" in text and "1 of 2 valid" in text
    status = json.loads((tmp_path / "built" / "suite.json").read_text())
    built = status["projects"]["spellnum-1.4.2"]
    assert built["valid"] is True
    # the generators ran over the valid task: one stub and one bug instance, both validated
    assert built["instances"] == {"spellnum_stub1_s0": True, "spellnum_bug1_s0": True}, built[
        "instance_problems"
    ]
    assert "2/2 instances valid" in text and re.search(r"instances valid +2 of 2", text)
    # resumable: a second run builds nothing again
    assert main(argv) == 1
    again = capsys.readouterr().out
    assert "already built" in again
    # the built task is in the suite by name, in a fresh process too
    import subprocess
    import sys

    code = (
        "from swarm_envs.bench.config import BenchConfig;"
        "print([t.name for t in BenchConfig(tasks=['real-plus']).resolved_tasks()])"
    )
    import os

    # Only the built suite: not the task folders earlier tests registered under this name.
    env = {k: v for k, v in os.environ.items() if k != "SWARM_ENVS_TASKS"}
    env["SWARM_ENVS_SUITES"] = str(tmp_path / "built")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert "spellnum" in r.stdout, r.stderr


def test_what_a_project_declares_is_read_from_each_place_it_may_be(tmp_path):
    from swarm_envs.project.layout import read_project

    base = {
        "LICENSE": "MIT\n",
        "pkg/__init__.py": "",
        "tests/test_a.py": "def test_a():\n    pass\n",
    }
    cfg = write(
        tmp_path / "cfgproj-0.3",
        {
            **base,
            "setup.cfg": """
                [metadata]
                name = cfgproj
                [options]
                install_requires =
                    attrs>=20
                    backport; python_version < "3.0"
                [options.extras_require]
                test = pytest-mock
                dev = black
            """,
            "requirements-test.txt": "# comment\nhypothesis==6.0  # pinned\n-r other.txt\n",
            "requirements/dev.txt": "sphinx==7\nbabel==2\n",
        },
    )
    d = read_project(cfg).declaration
    assert (d.name, d.version) == ("cfgproj", "0.3")  # the version from the folder's name
    assert d.runtime == ["attrs>=20"]  # the marker is false on this Python
    assert d.tests == ["pytest-mock", "hypothesis==6.0"]  # a dev extra and file only without
    lone_dev = write(
        tmp_path / "devonly",
        {
            **base,
            "pyproject.toml": '[project]\nname = "devonly"\nversion = "2"\n'
            '[project.optional-dependencies]\ndev = ["freezegun", "ruff", "devonly[dev]"]\n',
        },
    )
    d = read_project(lone_dev).declaration
    assert (d.version, d.tests, d.tooling) == ("2", ["freezegun"], ["ruff"])


def test_the_shipped_catalogue_pins_at_least_sixty_distinct_projects():
    from swarm_envs.project.suite import read_spec

    entries = read_spec("catalogue")
    assert len(entries) >= 60
    assert all(e.name and e.version and e.key == f"{e.name}=={e.version}" for e in entries)
    assert len({e.task_name for e in entries}) == len(entries)


def test_a_failed_projects_line_says_its_cause_once():
    from swarm_envs.project.suite import Outcome, _one_line

    o = Outcome(
        "jmespath==1.1.0",
        cause="too few tests",
        detail="too few tests: 1 canonical tests (fewer than 10; see MAKE_TASK.md)\nmore",
    )
    line = _one_line(o, 20)
    assert line.count("too few tests") == 1 and "1 canonical tests (fewer than 10" in line
    other = Outcome("x==1", cause="download failed", detail="pip said no")
    assert "download failed: pip said no" in _one_line(other, 10)


def test_a_unit_its_tests_do_not_notice_is_a_cause_of_its_own():
    from swarm_envs.project.suite import cause_of

    text = "unit pkg._url.URL.__ne__: stubbing it out fails none of its tests ['tests/t.py']"
    assert cause_of(text) == "a unit its tests do not notice"
    assert cause_of("no units were found") == "no units (no function the tests notice)"
    # validate's words for a reference that fails a test on a second run (a timing test)
    text = "reference fails 1 tests, e.g. tests/test_complexity.py::TestComplexity::test_perf"
    assert cause_of(text) == "the reference fails"


UPSTREAM = {
    "PKG-INFO": """\
        Metadata-Version: 2.1
        Name: upstream
        Version: 0.2
        Requires-Dist: pytest-timeout; extra == "test"
        Provides-Extra: test
    """,
    "setup.cfg": """
        [tool:pytest]
        addopts = --strict-markers -m "not stress" --ignore=upstream/tests/test_pyinstaller.py
        markers =
            stress: tens of thousands of cases
    """,
    "LICENSE": "MIT\n",
    "upstream/__init__.py": "def double(n):\n    return 2 * n\n",
    "upstream/test_helpers.py": "def four():\n    return 4\n",
    "upstream/tests/__init__.py": "",
    "upstream/tests/test_double.py": """
        import pytest

        from upstream import double, test_helpers


        @pytest.mark.timeout(5)
        def test_double():
            assert double(2) == test_helpers.four()


        @pytest.mark.stress
        def test_many():
            assert False, "a stress test the project's own selection leaves out"
    """,
    "upstream/tests/test_pyinstaller.py": "import PyInstaller_nowhere\n",
}


@pytest.mark.slow
def test_make_task_keeps_what_the_projects_config_says(tmp_path, user_cache, capsys):
    """Issue 31: `-m` and `--ignore` of the project's addopts are its own selection; a
    helper module imported by name moves with the tests; a declared test tool whose marker
    the tests use (`timeout`, under --strict-markers) is installed and enabled."""
    wheels = tmp_path / "wheels"
    make_wheel(
        wheels,
        "pytest_timeout",
        "2.3.1",
        {
            "pytest_timeout.py": """
                import pytest


                def pytest_configure(config):
                    config.addinivalue_line("markers", "timeout(seconds): a time limit")
            """
        },
        entry_points="[pytest11]\ntimeout = pytest_timeout\n",
    )
    src = write(tmp_path / "upstream-0.2", UPSTREAM)
    out = tmp_path / "task"
    argv = ["make-task", str(src), "--name", "upstream", "--out", str(out), "-q"]
    assert main([*argv, "--wheels", str(wheels)]) == 0, capsys.readouterr().out
    text = capsys.readouterr().out
    m = manifest(out)
    assert "-m 'not stress'" in m["tests"]["ini"]["addopts"], m
    assert "--strict-markers" in m["tests"]["ini"]["addopts"]
    assert not (out / "tests" / "test_pyinstaller.py").exists()
    assert "the project's own selection" in text
    assert m["tests"]["plugins"] == ["timeout"] and m["requires"] == ["pytest_timeout==2.3.1"]
    assert "from tests import test_helpers" in (out / "tests/test_double.py").read_text()
    task = Task(out)
    from swarm_envs.scoring.runner import ProjectRunner

    with ProjectRunner(task) as runner:
        rep = runner.run(task.solution_files())
    assert rep.passed == rep.total == 1, rep.failures


def test_an_unknown_marker_points_at_a_plugin():
    from swarm_envs.project import likely_fix

    fix = likely_fix(["'benchmark' not found in `markers` configuration option"])
    assert fix is not None and "defines the marker 'benchmark'" in fix and "--requires" in fix


def test_make_suite_leaves_out_a_few_tests_that_are_not_deterministic(tmp_path):
    """Validation's determinism check names the tests; make-suite deselects a few of them.

    A timing benchmark in a project's own suite passes in one run and fails in the next:
    the task keeps its other tests (and says why in MAKE_TASK.md) instead of being lost;
    a suite that is largely non-deterministic is still rejected.
    """
    from scoring.project import write_task

    from swarm_envs.generation.validation import ValidationReport
    from swarm_envs.project.suite import _deselect_flaky, _flaky_only
    from swarm_envs.scoring import collect_test_ids

    task = write_task(tmp_path / "mathy")
    (task.root / "MAKE_TASK.md").write_text("# make-task: mathy\n")
    flaky = "tests/test_ops.py::TestAdd::test_small"
    problem = "1 tests are not deterministic (or their ids differ between test processes)"
    few = ValidationReport("mathy", tests=40, problems=[problem], flaky=[flaky])
    assert _flaky_only(few)
    many = ValidationReport("mathy", tests=40, problems=[problem], flaky=[flaky] * 3)
    assert not _flaky_only(many)  # past 5 % of the tests
    other = ValidationReport(
        "mathy", tests=40, problems=[problem, "the start passes"], flaky=[flaky]
    )
    assert not _flaky_only(other)

    before = collect_test_ids(task).ids
    again = _deselect_flaky(task.root, [flaky])
    after = collect_test_ids(again).ids
    assert flaky in before and flaky not in after and len(after) == len(before) - 1
    assert flaky in (task.root / "MAKE_TASK.md").read_text()
