"""Real projects as they come: each failure class of bring-your-own, reproduced small.

Scorer-facing classes (ids across worker processes, helper-module tests, an installed copy
of the package) run against both scorers on a hand-written task folder; make-task classes
go through `make_task` and the CLI on a project folder.
"""

import functools
import textwrap
from pathlib import Path

import pytest
from support.helpers import write_files

from swarm_envs.scoring.runner import ProjectRunner
from swarm_envs.tasks import Task

SCORERS = ("fast", "subprocess")


write = functools.partial(write_files, lstrip=False)  # the texts as given, dedented


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
    assert rep.integrity and rep.integrity[0]["kind"] == "code_forged", rep.integrity


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
    monkeypatch.setenv("SWARM_ENVS_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.slow
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


# ---------------------------------------------------------------------------- make-task

from swarm_envs.error import ProjectError, TaskError  # noqa: E402
from swarm_envs.generation.validation import validate  # noqa: E402
from swarm_envs.project import build_task, make_task  # noqa: E402

TINY_TESTS = """
    from tiny.ops import add, clamp

    def test_add():
        assert add(2, 3) == 5

    def test_add_neg():
        assert add(-2, 1) == -1

    def test_clamp():
        assert clamp(5, 0, 3) == 3 and clamp(-1, 0, 3) == 0 and clamp(2, 0, 3) == 2
"""
TINY_OPS = """
    def add(a, b):
        \"\"\"Sum of a and b.\"\"\"
        return a + b


    def clamp(x, lo, hi):
        \"\"\"x limited to [lo, hi].\"\"\"
        if x < lo:
            return lo
        if x > hi:
            return hi
        return x
"""


def project(root: Path, files: dict[str, str]) -> Path:
    return write(root, {"LICENSE": "MIT License\n", **files})


def made(tmp_path, files, name="proj", **kw):
    result = build_task(
        project(tmp_path / "src_project", files), tmp_path / "task", name=name, **kw
    )
    return result, result.task


def units(task):
    return {u.symbol: u for u in task.units}


@pytest.mark.slow
def test_decorated_one_line_and_nested_functions_become_valid_units(tmp_path):
    _, task = made(
        tmp_path,
        {
            "shapes/__init__.py": "",
            "shapes/ops.py": """
                import functools

                def twice(op):
                    @functools.wraps(op)
                    def inner(*args):
                        return op(op(*args))
                    return inner

                def inc(x): return x + 1

                def total(xs):
                    def add(a, b):
                        return a + b
                    return functools.reduce(add, xs, 0)
            """,
            "tests/test_ops.py": """
                from shapes.ops import inc, total, twice

                def test_twice():
                    assert twice(inc)(1) == 3

                def test_inc():
                    assert inc(1) == 2

                def test_total():
                    assert total([1, 2, 3]) == 6
            """,
        },
    )
    assert set(units(task)) == {"twice", "inc", "total"}
    start = task.start_files()["shapes/ops.py"].decode()
    assert "def inc(x):\n    raise NotImplementedError" in start and "@functools.wraps" not in start
    rep = validate(task)
    assert rep.ok, rep.problems


@pytest.mark.slow
def test_a_property_pair_is_one_unit(tmp_path):
    _, task = made(
        tmp_path,
        {
            "temp.py": """
                class Temp:
                    def __init__(self):
                        self._c = 0.0

                    @property
                    def fahrenheit(self):
                        return self._c * 9 / 5 + 32

                    @fahrenheit.setter
                    def fahrenheit(self, f):
                        self._c = (f - 32) * 5 / 9
            """,
            "tests/test_temp.py": """
                from temp import Temp

                def test_read():
                    assert Temp().fahrenheit == 32

                def test_write():
                    t = Temp()
                    t.fahrenheit = 212
                    assert round(t.fahrenheit) == 212
            """,
        },
    )
    assert [u.symbol for u in task.units].count("Temp.fahrenheit") == 1
    assert task.start_files()["temp.py"].decode().count("NotImplementedError") == 3
    assert validate(task).ok


@pytest.mark.slow
def test_skipped_and_xfailed_tests_are_deselected_and_listed(tmp_path):
    result, task = made(
        tmp_path,
        {
            "tiny/__init__.py": "",
            "tiny/ops.py": TINY_OPS,
            "tests/test_ops.py": textwrap.dedent(TINY_TESTS)
            + textwrap.dedent("""
                import pytest

                @pytest.mark.skip(reason="needs Python 4")
                def test_future():
                    pass

                @pytest.mark.xfail(reason="known bug")
                def test_known_bug():
                    assert add(1, 1) == 3
            """),
        },
    )
    assert sorted(result.deselected) == [
        "tests/test_ops.py::test_future",
        "tests/test_ops.py::test_known_bug",
    ]
    assert "a skip is not a pass" in result.deselected["tests/test_ops.py::test_future"]
    assert "test_future" in (task.root / "MAKE_TASK.md").read_text()
    rep = validate(task)
    assert rep.ok and rep.tests == 3, rep.problems


@pytest.mark.slow
def test_a_failing_reference_stops_with_the_failures_grouped(tmp_path):
    files = {
        "tiny/__init__.py": "",
        "tiny/ops.py": TINY_OPS,
        "tests/test_ops.py": textwrap.dedent(TINY_TESTS)
        + "\n\ndef test_wrong_a():\n    assert add(1, 1) == 3\n\ndef test_wrong_b():\n    assert add(1, 1) == 3\n",
    }
    with pytest.raises(
        ProjectError,
        match=r"fails 2 of 5 tests(.|\n)*2 x AssertionError: assert 2 == 3(.|\n)*--deselect-failing",
    ):
        made(tmp_path, files)
    assert not (tmp_path / "task").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".task")]  # no staging left
    result, task = made(tmp_path, files, deselect_failing=True)
    assert set(result.deselected) == {
        "tests/test_ops.py::test_wrong_a",
        "tests/test_ops.py::test_wrong_b",
    }
    assert validate(task).ok


@pytest.mark.slow
def test_deselect_failing_leaves_out_exactly_the_failing_tests(tmp_path):
    """pytest's `--deselect` takes prefixes: `test_main` would take `test_main_ok`, and
    `test_p[1]` would take `test_p[10]`, with it. Only the failing tests go."""
    files = {
        "tiny/__init__.py": "",
        "tiny/ops.py": TINY_OPS,
        "tests/test_ops.py": textwrap.dedent(TINY_TESTS)
        + textwrap.dedent("""
            import pytest

            def test_main():
                assert add(1, 1) == 3

            def test_main_ok():
                assert add(1, 1) == 2

            @pytest.mark.parametrize("n", [1, 10])
            def test_p(n):
                assert add(n, 0) == 10
        """),
    }
    result, task = made(tmp_path, files, deselect_failing=True)
    assert set(result.deselected) == {
        "tests/test_ops.py::test_main",
        "tests/test_ops.py::test_p[1]",
    }
    rep = validate(task)
    # test_add, test_add_neg, test_clamp, test_main_ok, test_p[10]
    assert rep.ok and rep.tests == 5, rep.problems


@pytest.mark.parametrize("tests_package", [False, True])
@pytest.mark.slow
def test_modules_of_a_non_code_folder_that_the_tests_import_move_with_them(tmp_path, tests_package):
    """A root `tools/` folder is not the package, but the tests import helpers from it."""
    files = {
        "tiny/__init__.py": "",
        "tiny/ops.py": TINY_OPS,
        "tools/__init__.py": "",
        "tools/helpers.py": "from tools.numbers import TWO\n\n\ndef two():\n    return TWO\n",
        "tools/numbers.py": "TWO = 2\n",
        "tools/other.py": "THREE = 3\n",
        "tools/third.py": "from . import numbers\n\nFOUR = numbers.TWO * 2\n",
        "tools/unused.py": "raise SystemExit('not for the tests')\n",
        "tests/test_tools.py": """
            import tools.other
            from tools import third
            from tools.helpers import two
            from tiny.ops import add

            def test_two():
                assert add(two(), 1) == 3

            def test_other():
                assert add(tools.other.THREE, 1) == 4

            def test_third():
                assert add(third.FOUR, 0) == 4
        """,
        **({"tests/__init__.py": ""} if tests_package else {}),
    }
    result, task = made(tmp_path, files)
    moved = {f"tools/{m}.py" for m in ("__init__", "helpers", "numbers", "other", "third")}
    test_files = {rel for rel, _ in task.test_files()}
    assert {f"tests/{m}" for m in moved} <= test_files, test_files
    assert "tests/tools/unused.py" not in test_files
    notes = [str(n) for n in result.notes]
    assert any("tools/helpers.py" in n for n in notes), notes
    rep = validate(task)
    assert rep.ok and rep.tests == 3, rep.problems


@pytest.mark.slow
def test_src_layout_tests_inside_the_package_and_test_folder(tmp_path):
    _, task = made(
        tmp_path,
        {
            "src/geo/__init__.py": "from .core import area\n",
            "src/geo/core.py": "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n",
            "src/geo/tests/__init__.py": "",
            "src/geo/tests/helpers.py": "SQUARE = (3, 3)\n",
            "src/geo/tests/test_core.py": """
                from ..core import perimeter
                from . import helpers
                from geo.tests.helpers import SQUARE
                from geo import area

                def test_area():
                    assert area(*helpers.SQUARE) == 9

                def test_perimeter():
                    assert perimeter(*SQUARE) == 12
            """,
            "setup.py": "raise SystemExit('not for make-task')\n",
            "docs/conf.py": "project = 'geo'\n",
        },
    )
    assert "geo/core.py" in task.solution_files() and "setup.py" not in task.solution_files()
    test = (task.tests_dir / "test_core.py").read_text()
    assert "from geo.core import perimeter" in test and "from tests.helpers import SQUARE" in test
    assert validate(task).ok


@pytest.mark.slow
def test_a_test_folder_with_a_rootless_helper(tmp_path):
    _, task = made(
        tmp_path,
        {
            "tiny/__init__.py": "",
            "tiny/ops.py": TINY_OPS,
            "test/common.py": "def same(a, b):\n    assert a == b\n",
            "test/test_ops.py": "from common import same\nfrom tiny.ops import add\n\ndef test_add():\n    same(add(1, 2), 3)\n",
        },
    )
    assert (task.tests_dir / "common.py").is_file()
    assert validate(task).ok


@pytest.mark.slow
def test_root_conftest_and_settings_kept_where_safe(tmp_path):
    result, task = made(
        tmp_path,
        {
            "tiny/__init__.py": "",
            "tiny/ops.py": TINY_OPS,
            "conftest.py": """
                import pytest

                @pytest.fixture
                def three():
                    return 3

                def pytest_runtest_makereport(item, call):
                    pass
            """,
            "pyproject.toml": """
                [tool.pytest.ini_options]
                addopts = "--doctest-modules -ra --strict-markers -W error::UserWarning"
                markers = ["slowish: takes a while"]
                timeout = 5
            """,
            "tests/test_ops.py": """
                import pytest
                from tiny.ops import add

                @pytest.mark.slowish
                def test_add(three):
                    assert add(three, 1) == 4
            """,
        },
    )
    ini = task.manifest.tests.ini
    assert ini["markers"] == ["slowish: takes a while"] and ini["addopts"] == ["--strict-markers"]
    assert ini["filterwarnings"] == ["error::UserWarning"]
    conftest = (task.tests_dir / "conftest.py").read_text()
    assert "def three" in conftest and "pytest_runtest_makereport" not in conftest
    said = "\n".join(str(n) for n in result.notes)
    for why in ("--doctest-modules", "timeout", "pytest_runtest_makereport"):
        assert why in said
    assert validate(task).ok


@pytest.mark.slow
def test_a_third_party_test_dependency_is_recorded_and_provided(tmp_path, user_cache):
    wheels = tmp_path / "wheelhouse"
    make_wheel(wheels, "frozentime", "1.0", {"frozentime.py": "NOW = 42\n"})
    _, task = made(
        tmp_path,
        {
            "clock/__init__.py": "def now(source):\n    return source.NOW\n",
            "tests/test_clock.py": "import frozentime\nfrom clock import now\n\ndef test_now():\n    assert now(frozentime) == 42\n",
        },
        requires=["frozentime"],
        wheels=wheels,
    )
    assert task.manifest.requires == ["frozentime==1.0"]
    assert (task.root / "wheels" / "frozentime-1.0-py3-none-any.whl").is_file()
    assert validate(task).ok


def test_a_missing_third_party_module_is_explained(tmp_path):
    files = {
        "clock/__init__.py": "def now():\n    return 1\n",
        "tests/test_clock.py": "import nosuchlib_xyz\n\ndef test_now():\n    pass\n",
    }
    with pytest.raises(Exception, match="nosuchlib_xyz.*--requires"):
        made(tmp_path, files)


@pytest.mark.slow
def test_a_lock_helper_whose_stub_makes_tests_wait_is_probed_within_limits(tmp_path):
    from swarm_envs.project.units import probe_limit

    _, task = made(
        tmp_path,
        {
            "sync.py": """
                import threading

                class Gate:
                    def __init__(self):
                        self._event = threading.Event()

                    def release(self):
                        self._event.set()

                    def wait(self, timeout=None):
                        return self._event.wait(timeout)
            """,
            "tests/test_sync.py": """
                import threading
                import pytest
                from sync import Gate

                @pytest.mark.parametrize("n", range(3))
                def test_across_threads(n):
                    gate = Gate()
                    threading.Thread(target=gate.release).start()
                    assert gate.wait(timeout=600)
            """,
        },
    )
    # The waits are cut at the probe's limit, far below the tests' own 600 s timeout.
    assert units(task)["Gate.release"].tests == ["tests/test_sync.py"]
    from swarm_envs.project.profile import ReferenceProfile, TestProfile

    quick = TestProfile("passed", "", 0.01, frozenset(), False)
    prof = ReferenceProfile({"t": quick}, ["t"], {}, frozenset(), {}, 0.1)
    assert probe_limit(["t"], prof, ceiling=120) == 2.0


def test_import_time_and_unparsable_code_is_not_offered_with_file_and_line(tmp_path):
    result, task = made(
        tmp_path,
        {
            "table.py": """
                def build():
                    return {i: i * i for i in range(10)}

                SQUARES = build()

                def square(i):
                    return SQUARES[i]
            """,
            "legacy.py": "print 'python 2'\n",
            "tests/test_table.py": "from table import square\n\ndef test_square():\n    assert square(3) == 9\n",
        },
    )
    assert set(units(task)) == {"square"}
    said = "\n".join(str(n) for n in result.notes)
    assert "table.py:2 build" in said and "stub would break the import" in said
    assert "legacy.py:1" in said


def test_the_dependency_graph_of_a_made_task(tmp_path):
    _, task = made(
        tmp_path,
        {
            "calc/__init__.py": "from .lexer import tokenize\n",
            "calc/lexer.py": "def tokenize(text):\n    return text.split()\n",
            "calc/ast.py": """
                from . import lexer

                class Node:
                    def __init__(self, parts):
                        self.parts = parts

                    def size(self, format=None):
                        match = len(self.parts)
                        return match
            """,
            "calc/parser.py": """
                from .ast import Node
                from .lexer import tokenize

                def parse(text):
                    return Node(tokenize(text))
            """,
            "tests/test_calc.py": """
                from calc.parser import parse
                from calc import tokenize

                def test_tokenize():
                    assert tokenize("a b") == ["a", "b"]

                def test_parse():
                    assert parse("a b").size() == 2
            """,
        },
    )
    deps = {u.symbol: set(u.depends_on) for u in task.units}
    assert deps["parse"] == {"calc.lexer.tokenize", "calc.ast.Node.__init__"}
    assert deps["Node.size"] == set() and deps["tokenize"] == set()
    order = [u.symbol for u in task.units]
    assert order.index("tokenize") < order.index("parse") > order.index("Node.__init__")


def test_names_and_paths_are_checked_first(tmp_path):
    with pytest.raises(ProjectError, match="taken by the bundled task calc"):
        make_task(tmp_path / "nowhere", tmp_path / "out", name="calc")
    with pytest.raises(ProjectError, match="name 'Bad Name'"):
        make_task(tmp_path / "nowhere", tmp_path / "out", name="Bad Name")
    with pytest.raises(ProjectError, match="no such folder"):
        make_task(tmp_path / "nowhere", tmp_path / "out", name="fine")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    with pytest.raises(ProjectError, match="not an empty folder"):
        make_task(tmp_path, tmp_path / "full", name="fine")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_made_task_is_usable_by_name_path_and_gymnasium(tmp_path, monkeypatch):
    import gymnasium

    import swarm_envs
    from swarm_envs.tasks import get_task

    _, task = made(
        tmp_path,
        {"tiny/__init__.py": "", "tiny/ops.py": TINY_OPS, "tests/test_ops.py": TINY_TESTS},
        name="tiny_gym",
    )
    env = gymnasium.make("swarm_envs:swarm/tiny_gym-v0")
    env.reset(seed=0)
    env.close()
    with pytest.raises(TaskError, match="no such folder"):
        get_task(str(tmp_path / "typo" / "tiny_gym"))
    monkeypatch.chdir(tmp_path)
    assert get_task("task").root == task.root  # a bare folder name
    penv = swarm_envs.parallel_env(str(task.root), num_agents=2)
    penv.reset(seed=0)
    penv.close()


def test_a_task_named_like_a_bundled_one_is_refused(tmp_path):
    from swarm_envs.tasks import register_task

    task_folder(
        tmp_path / "calc", {"solution/x.py": "", "tests/test_x.py": "def test_x():\n    pass\n"}
    )
    with pytest.raises(TaskError, match="taken by the bundled task calc-v0"):
        register_task(tmp_path / "calc")


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda p: None, "no such folder"),
        (lambda p: p.write_text("x"), "not a folder"),
        (lambda p: p.mkdir(), "no pytest tests found"),
        (lambda p: write(p, {"tests/test_x.py": "def test_x():\n    pass\n"}), "no Python code"),
        (
            lambda p: write(p, {"m.py": "x = 1\n", "tests/test_x.py": "def test_x(:\n"}),
            "do not collect",
        ),
    ],
)
def test_bad_projects_give_one_line_errors_not_tracebacks(tmp_path, capsys, setup, message):
    from swarm_envs.cli import main

    src = tmp_path / "proj"
    setup(src)
    code = main(["make-task", str(src), "--name", "proj", "--out", str(tmp_path / "out"), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_the_cli_reports_what_make_task_did(tmp_path, capsys):
    from swarm_envs.cli import main

    src = project(
        tmp_path / "p",
        {"tiny/__init__.py": "", "tiny/ops.py": TINY_OPS, "test_ops.py": TINY_TESTS},
    )
    assert (
        main(["make-task", str(src), "--name", "tiny_cli", "--out", str(tmp_path / "t"), "-q"]) == 0
    )
    out = capsys.readouterr().out
    assert "moved: test_ops.py" in out and "2 units" in out and "swarm-envs validate" in out


DECORATED = {
    "solution/pk/__init__.py": "import os\n\ndef home():\n    return os.environ.get('WHERE', 'nowhere')\n",
    "tests/__init__.py": "",
    "tests/test_a.py": """
        from unittest import mock

        import pk

        @mock.patch.dict("os.environ", {"WHERE": "here"})
        def test_patched():
            assert pk.home() == "here"

        class TestInClass:
            @mock.patch("pk.home", return_value="there")
            def test_method(self, fake):
                assert pk.home() == "there"
    """,
}


@pytest.mark.parametrize("scorer", SCORERS)
def test_tests_wrapped_by_a_librarys_decorator_are_canonical(tmp_path, scorer):
    rep = reference(task_folder(tmp_path / "decorated", DECORATED), scorer)
    assert rep.passed == rep.total == 2, rep.failures


@pytest.mark.parametrize("scorer", SCORERS)
def test_a_wrapper_forged_as_library_code_is_caught(tmp_path, scorer):
    # The workspace wraps the canonical test in a no-op compiled under a library's file name.
    forged = """
        import functools
        import sys

        def home():
            raise NotImplementedError

        def _swap():
            import tests
            src = "def passes(*args, **kwargs):\\n    return None\\n"
            ns = {}
            exec(compile(src, functools.__file__, "exec"), ns)
            fake = functools.wraps(tests.Helper.test_home)(ns["passes"])
            tests.Helper.test_home = fake

        _swap()
    """
    files = {
        "solution/pk/__init__.py": forged,
        "tests/__init__.py": "class Helper:\n    def test_home(self):\n        from pk import home\n        assert home()\n",
        "tests/test_a.py": "import pk  # noqa: F401\nfrom tests import Helper\n\nclass TestOne(Helper):\n    pass\n",
    }
    rep = reference(task_folder(tmp_path / "forgedwrap", files), scorer)
    assert rep.passed == 0
    assert rep.integrity and rep.integrity[0]["kind"] == "code_forged", rep.integrity


@pytest.mark.parametrize("scorer", SCORERS)
def test_a_workspace_wrapper_around_a_canonical_test_is_caught(tmp_path, scorer):
    # A wrapper of the workspace's own, with `__wrapped__` leading to the canonical test:
    # the chain from the test function to canonical code may pass through library code only.
    forged = """
        import functools

        def home():
            raise NotImplementedError

        def _swap():
            import tests
            real = tests.Helper.test_home

            @functools.wraps(real)
            def passes(*args, **kwargs):
                return None

            tests.Helper.test_home = passes

        _swap()
    """
    files = {
        "solution/pk/__init__.py": forged,
        "tests/__init__.py": "class Helper:\n    def test_home(self):\n        from pk import home\n        assert home()\n",
        "tests/test_a.py": "import pk  # noqa: F401\nfrom tests import Helper\n\nclass TestOne(Helper):\n    pass\n",
    }
    rep = reference(task_folder(tmp_path / "workspacewrap", files), scorer)
    assert rep.passed == 0
    assert any("not canonical code" in f["detail"] for f in rep.integrity), rep.integrity


# ---------------------------------------------------------------------------- the graph


def graph_of(sources: dict[str, str], names: list[tuple[str, str]]):
    from swarm_envs.project.graph import UnitRef, dependencies

    refs = [UnitRef(f"{p}:{s}", p, s) for p, s in names]
    deps = dependencies({k: textwrap.dedent(v) for k, v in sources.items()}, refs)
    return {k.split(":")[1]: {d.split(":")[1] for d in v} for k, v in deps.items()}


def test_references_resolve_through_imports_reexports_self_super_and_constructors():
    deps = graph_of(
        {
            "pkg/__init__.py": "from .base import *\n",
            "pkg/base.py": """
                __all__ = ["Base", "helper"]

                def helper(x):
                    return x

                class Base:
                    def __init__(self):
                        self.n = 0

                    def shared(self):
                        return 1
            """,
            "pkg/core.py": """
                import functools
                import pkg
                from pkg import helper as h

                class Node(pkg.Base):
                    @property
                    def size(self):
                        return 2

                    def total(self, format=None):
                        match = h(1)
                        return self.size + super().shared() + match

                @functools.lru_cache(maxsize=h(8))
                def build(x: "Node" = None) -> "Node":
                    def inner():
                        from .base import helper
                        return helper(x)
                    return Node(), inner()
            """,
        },
        [
            ("pkg/base.py", "helper"),
            ("pkg/base.py", "Base.__init__"),
            ("pkg/base.py", "Base.shared"),
            ("pkg/core.py", "Node.size"),
            ("pkg/core.py", "Node.total"),
            ("pkg/core.py", "build"),
        ],
    )
    assert deps["Node.total"] == {"helper", "Node.size", "Base.shared"}
    # Calling Node links to the __init__ it inherits; decorators, defaults and
    # annotations do not count, a local import inside does.
    assert deps["build"] == {"Base.__init__", "helper"}
    assert deps["helper"] == deps["Node.size"] == set()


def test_locals_and_parameters_named_like_units_are_not_references():
    deps = graph_of(
        {
            "m.py": """
                def match(x):
                    return x

                def format(x):
                    return x

                def user(format):
                    match = 1
                    for match in range(3):
                        pass
                    return format + match
            """
        },
        [("m.py", "match"), ("m.py", "format"), ("m.py", "user")],
    )
    assert deps["user"] == set()


def test_order_breaks_cycles_only_where_they_are_and_restrict_keeps_paths():
    from swarm_envs.project.graph import order, restrict

    deps = {"z": {"a"}, "a": {"b"}, "b": {"a", "c"}, "c": set()}
    names, acyclic, dropped = order(["z", "a", "b", "c"], deps)
    # The a <-> b cycle loses its edge towards the later unit, nothing else is dropped,
    # and z (first in source order) still comes after what it needs.
    assert dropped == [("a", "b")]
    assert acyclic == {"z": ["a"], "a": [], "b": ["a", "c"], "c": []}
    assert names.index("a") < names.index("z") and names.index("c") < names.index("b")
    # Keeping z and c only: z needs a, a needs nothing now; b -> c stays through b.
    assert restrict({"z": ["b"], "b": ["c"], "c": []}, ["z", "c"]) == {"z": ["c"], "c": []}


@pytest.mark.slow
def test_a_probe_run_shared_by_two_candidates_credits_neither_with_the_others_failure(tmp_path):
    # `note` is best effort (its failures are swallowed), so its stub fails none of its
    # tests; `compute` calls it. Their quickest tests are disjoint, so they share a run in
    # which both are stubbed: `note`'s tests then fail because of `compute`'s stub.
    from dataclasses import replace

    from swarm_envs.project.profile import profile_reference
    from swarm_envs.project.units import find_candidates, map_tests, probe
    from swarm_envs.scoring.runner import RunnerPool

    _, task = made(
        tmp_path,
        {
            "hooks.py": """
                def note(x):
                    return str(x)

                def compute(x, quiet=False):
                    if not quiet:
                        try:
                            note(x)
                        except Exception:
                            pass
                    return x * 2
            """,
            "tests/test_hooks.py": """
                import pytest
                from hooks import compute

                @pytest.mark.parametrize("x", range(4))
                def test_noted(x):
                    assert compute(x) == 2 * x

                @pytest.mark.parametrize("x", range(2))
                def test_quiet(x):
                    assert compute(x, quiet=True) == 2 * x
            """,
        },
    )
    assert set(units(task)) == {"compute"}
    profile = profile_reference(task)
    # The quiet tests are the quickest: `compute` is tried on them, `note` on two noted ones.
    profile.tests = {
        nid: replace(t, duration=0.001 if "quiet" in nid else 0.002)
        for nid, t in profile.tests.items()
    }
    solution = task.solution_files()
    cands = map_tests(find_candidates(solution, []), profile, [], {})
    assert {c.symbol for c in cands} == {"note", "compute"}
    with RunnerPool(task) as pool:
        found, probed, _ = probe(pool, solution, cands, profile)
    assert set(found) == {c.name for c in cands if c.symbol == "compute"}
    assert probed == {c.name for c in cands}


def test_the_two_copies_of_exact_deselection_agree():
    """make-task's instrumented run is a script of its own (the standard library only, in the
    sandbox) and keeps a copy of the scorer's rule; both must leave out the same tests."""
    from swarm_envs.project import _profile_run
    from swarm_envs.scoring.worker import settings

    cases = [
        ("tests/test_a.py::test_main", "tests/test_a.py::test_main"),
        ("tests/test_a.py::test_main", "tests/test_a.py::test_main_ok"),
        ("tests/test_a.py::test_p[1]", "tests/test_a.py::test_p[10]"),
        ("tests/test_a.py::test_p", "tests/test_a.py::test_p[10]"),
        ("tests/test_a.py::TestA", "tests/test_a.py::TestA::test_x"),
        ("tests/test_a.py", "tests/test_a.py::test_x"),
        ("tests/sub", "tests/sub/test_b.py::test_y"),
        ("tests/sub", "tests/subway/test_b.py::test_y"),
        ("tests/sub/", "tests/sub/test_b.py::test_y"),
        ("", "tests/test_a.py::test_x"),
    ]
    got = [(_profile_run.deselects(e, n), settings.deselects(e, n)) for e, n in cases]
    assert all(a == b for a, b in got), list(zip(cases, got, strict=True))
    assert [a for a, _ in got] == [True, False, False, True, True, True, True, False, True, False]
