"""Task format, generators, validation and bring-your-own."""

import textwrap

import pytest

import swarm_envs
from swarm_envs.error import ManifestError, ProjectError
from swarm_envs.generation import generators
from swarm_envs.generation.generators import generate, mutations
from swarm_envs.generation.validation import alone_sample, validate
from swarm_envs.project import make_task
from swarm_envs.project.suite import cause_of
from swarm_envs.scoring.runner import ProjectRunner
from swarm_envs.tasks import Task, get_task, registered
from swarm_envs.tasks.stubbing import stub_source

MINIMAL = """
name = "tiny"
description = "A tiny project."
[[units]]
name = "add"
path = "tiny/ops.py"
symbol = "add"
tests = ["tests/test_ops.py"]
"""


def write_task(root, manifest=MINIMAL):
    (root / "solution" / "tiny").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "solution" / "tiny" / "__init__.py").write_text("")
    (root / "solution" / "tiny" / "ops.py").write_text(
        'def add(a, b):\n    """Sum of a and b."""\n    return a + b\n\n\n'
        'def clamp(x, lo, hi):\n    """x limited to [lo, hi]."""\n    if x < lo:\n        return lo\n'
        "    if x > hi:\n        return hi\n    return x\n"
    )
    (root / "tests" / "test_ops.py").write_text(
        "from tiny.ops import add, clamp\n\n"
        "def test_add():\n    assert add(2, 3) == 5\n\n"
        "def test_add_neg():\n    assert add(-2, 1) == -1\n\n"
        "def test_clamp():\n    assert clamp(5, 0, 3) == 3 and clamp(-1, 0, 3) == 0 and clamp(2, 0, 3) == 2\n"
    )
    (root / "task.toml").write_text(manifest)
    return root


@pytest.mark.parametrize(
    "manifest, problem",
    [
        ("name = 'x'\ndescription = [", "not valid TOML"),
        ("name = 'x'", "description"),
        ("name = 'Bad Name'\ndescription = 'd'", "name"),
        (MINIMAL + "depends_on = ['nope']\n", "unknown units"),
        (MINIMAL.replace('name = "tiny"', 'name = "tiny"\nsuite = "huge"'), "suite"),
        (MINIMAL.replace("tiny/ops.py", "tiny/missing.py"), "units.add.path"),
        (MINIMAL + "colour = 'red'\n", "colour"),
    ],
)
def test_manifest_errors_name_file_and_field(tmp_path, manifest, problem):
    write_task(tmp_path, manifest)
    with pytest.raises(ManifestError) as e:
        Task(tmp_path)
    assert "task.toml" in str(e.value) and problem in str(e.value)


def test_dependency_cycle_is_rejected(tmp_path):
    cyc = MINIMAL + textwrap.dedent("""
        depends_on = ["b"]
        [[units]]
        name = "b"
        path = "tiny/ops.py"
        symbol = "clamp"
        tests = ["tests/test_ops.py"]
        depends_on = ["add"]
    """)
    write_task(tmp_path, cyc)
    with pytest.raises(ManifestError, match="cycle"):
        Task(tmp_path)


def test_stub_keeps_signature_and_docstring():
    src = 'class A:\n    def f(self, x: int) -> int:\n        """Doc."""\n        y = x\n        return y\n'
    out = stub_source(src, ["A.f"])
    assert (
        'def f(self, x: int) -> int:\n        """Doc."""\n        raise NotImplementedError' in out
    )
    assert "return y" not in out


def test_generated_stub_instances_are_reproducible(tmp_path):
    task = get_task("datespan") if "datespan-v0" in registered() else get_task("calc")
    a = generate(task, "stub", 3, seed=5, dest=tmp_path / "a")
    b = generate(task, "stub", 3, seed=5, dest=tmp_path / "b")
    c = generate(task, "stub", 3, seed=6, dest=tmp_path / "c")
    assert a.start_files() == b.start_files()
    assert [u.name for u in a.units] == [u.name for u in b.units]
    assert len(a.units) == 3
    if len(task.units) > 4:
        assert a.start_files() != c.start_files()


@pytest.mark.slow
def test_bug_instances_are_detected_and_reproducible(tmp_path):
    task = get_task("calc")
    a = generate(task, "bug", 2, seed=1, dest=tmp_path / "a")
    b = generate(task, "bug", 2, seed=1, dest=tmp_path / "b")
    assert a.start_files() == b.start_files()
    assert a.start_files() != task.solution_files()
    with ProjectRunner(a) as runner:
        start = runner.run(a.start_files())
        assert start.passed < start.total  # the bugs are detected
        for unit in a.units:
            assert runner.run(a.start_files(), list(unit.tests)).passed < len(
                [t for t in runner.test_ids() if t.startswith(unit.tests[0])]
            )
    env = swarm_envs.parallel_env(a.id, num_agents=1)
    _, infos = env.reset(seed=0)
    assert infos["agent_0"]["tests_passed"] == start.passed
    env.close()


def test_mutation_kinds():
    src = textwrap.dedent('''
        def f(xs, n):
            """Doc."""
            total = 0
            for i in range(0, n):
                if xs[i] > 0 and not xs[i] == 3:
                    total += xs[i] * 2
            return max(total, n - 1)
    ''')
    unit = swarm_envs.tasks.Unit(name="f", path="m.py", symbol="f", tests=["tests"])
    kinds = {m.kind for m in mutations(src, unit)}
    assert {
        "operator",
        "comparison",
        "boolean",
        "off_by_one",
        "swap_args",
        "drop_condition",
    } <= kinds
    for m in mutations(src, unit):
        out = m.apply(src)
        assert out != src and '"""Doc."""' in out


def test_candidates_one_right_rest_wrong():
    task = get_task("calc")
    unit = next(u for u in task.units if u.name == "rpn")
    cands = generators.candidates(task, unit, n_wrong=2, seed=0)
    assert sum(c.correct for c in cands) == 1 and len(cands) >= 2
    with ProjectRunner(task) as runner:
        for c in cands:
            files = task.start_files()
            for path, old, new in c.patches:
                files[path] = files[path].decode().replace(old, new).encode()
            report = runner.run(files, list(unit.tests))
            assert (report.passed == report.total) == c.correct


@pytest.mark.slow
def test_bring_your_own_project(tmp_path):
    proj = tmp_path / "proj"
    write_task(proj)  # reuse the tiny layout as a plain project
    plain = tmp_path / "plain"
    (plain / "tests").mkdir(parents=True)
    (plain / "tiny").mkdir()
    (plain / "tiny" / "__init__.py").write_text("")
    (plain / "tiny" / "ops.py").write_text((proj / "solution" / "tiny" / "ops.py").read_text())
    (plain / "tests" / "test_ops.py").write_text((proj / "tests" / "test_ops.py").read_text())
    (plain / "README.md").write_text("# tiny\n")
    task = make_task(plain, tmp_path / "task", name="tiny_byo")
    assert {u.symbol for u in task.units} == {"add", "clamp"}
    add = next(u for u in task.units if u.symbol == "add")
    assert add.tests == ["tests/test_ops.py::test_add", "tests/test_ops.py::test_add_neg"]
    rep = validate(task)
    assert rep.ok, rep.problems
    assert rep.start_passing == 0 and rep.tests == 3
    env = swarm_envs.parallel_env(str(task.root), num_agents=2)
    env.reset(seed=0)
    env.close()


def test_bring_your_own_errors(tmp_path):
    with pytest.raises(ProjectError, match="no pytest tests found"):
        make_task(tmp_path, tmp_path / "out", name="x")


def test_validation_catches_an_insensitive_unit(tmp_path):
    bad = MINIMAL.replace(
        'tests = ["tests/test_ops.py"]', 'tests = ["tests/test_ops.py::test_clamp"]'
    )
    rep = validate(Task(write_task(tmp_path, bad)))
    assert not rep.ok and "fails none of its tests" in rep.problems[0]


@pytest.mark.slow
def test_validation_runs_every_test_again_whatever_a_warm_cache_holds(tmp_path):
    # A second validation of the same task, in the same process and with the scorers' disk
    # cache warm from the first: both reference runs (the determinism re-run in other
    # worker processes included) must be runs made now, not outcomes read back.
    task = Task(write_task(tmp_path))
    first = validate(task)
    assert first.ok, first.problems
    again = validate(task)
    assert again.ok, again.problems


@pytest.mark.slow
def test_validation_names_a_test_that_passes_only_after_another(tmp_path):
    write_task(tmp_path)
    (tmp_path / "solution" / "tiny" / "ops.py").write_text(
        "_CACHE = {}\n\n\n"
        'def add(a, b):\n    """Sum of a and b, remembered."""\n    _CACHE[a, b] = a + b\n'
        "    return a + b\n\n\n"
        'def remembered(a, b):\n    """The sum add() remembered for a and b."""\n'
        "    return _CACHE.get((a, b))\n"
    )
    (tmp_path / "tests" / "test_ops.py").write_text(
        "from tiny.ops import add, remembered\n\n"
        "def test_a():\n    assert add(2, 3) == 5\n\n"
        "def test_b():\n    assert remembered(2, 3) == 5\n\n"
        "def test_c():\n    assert add(1, 1) == 2 and remembered(1, 1) == 2\n"
    )
    rep = validate(Task(tmp_path))
    assert rep.problems == [
        "1 test depends on the order of the suite (run alone, its outcome differs from the "
        "full run's): tests/test_ops.py::test_b (fails alone); each must set up what it needs "
        "itself (fix it), or be listed in the manifest's tests.deselect"
    ]
    assert cause_of(rep.problems[0]) == "tests depend on earlier tests"


def test_tests_run_alone_are_a_bounded_deterministic_sample():
    ids = [f"tests/test_{m}.py::test_{i}" for m in "abc" for i in range(30)]
    ids += ["tests/test_d.py::test_0"]
    got = alone_sample(ids, per_module=5, per_task=12)
    assert got == alone_sample(list(ids), per_module=5, per_task=12)
    assert len(got) == 12 and got == [t for t in ids if t in got]
    # every module's last test is among them, and no module gives more than 5
    assert {f"tests/test_{m}.py::test_29" for m in "abc"} <= set(got)
    assert "tests/test_d.py::test_0" in got
    assert max(sum(t.startswith(f"tests/test_{m}") for t in got) for m in "abc") <= 5
    assert alone_sample(ids[:3]) == ids[:3]


BUNDLED = sorted(t for t, p in registered().items() if p.parent.name == "tasks")
# The slow suite (CI) checks a task of each suite end to end; the long suite
# (`make test-long`, hours on two cores) every bundled task.
SAMPLE = ("calc-v0", "structkit-v0", "shortuuid-v0")


def _sampled(task_ids: list[str]) -> list:
    return [t if t in SAMPLE else pytest.param(t, marks=pytest.mark.long) for t in task_ids]


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("task_id", _sampled(BUNDLED))
def test_bundled_task_is_valid(task_id):
    rep = validate(get_task(task_id))
    assert rep.ok, rep.problems
    suite = get_task(task_id).manifest.suite
    assert rep.tests >= (13 if task_id == "calc-v0" else 15 if suite == "real" else 40)


def test_suites_and_sizes():
    tasks = [get_task(t) for t in BUNDLED]
    by_suite = {}
    for t in tasks:
        by_suite.setdefault(t.manifest.suite, []).append(t)
    assert "mini" in by_suite
    for t in by_suite.get("standard", []):
        assert len(t.units) >= 10, t.id
    for t in by_suite.get("long", []):
        assert len(t.units) >= 25 and any(u.depends_on for u in t.units), t.id


REAL = sorted(t for t in BUNDLED if get_task(t).manifest.suite == "real")
# Whole scripted episodes on a real task rescore its suite at every edit; on two cores
# tabulate's took 15 minutes, cachetools' (462 tests, 20 units) more. The slow suite (CI)
# solves the smallest real task and one generated from it; the long suite every real task,
# and instances of the two smallest.
REAL_SOLVED = _sampled(REAL)
REAL_GENERATED = _sampled([t for t in REAL if t.startswith(("shortuuid-", "xmltodict-"))])


def test_the_real_suite_is_made_of_licensed_real_projects():
    assert len(REAL) >= 5
    for task_id in REAL:
        task = get_task(task_id)
        names = {p.name for p in task.root.iterdir()}
        assert {"ATTRIBUTION.md", "MAKE_TASK.md", "README.md"} <= names, task_id
        licence = [n for n in names if n.upper().startswith(("LICEN", "COPYING"))]
        assert licence and (task.solution_dir / licence[0]).is_file(), task_id
        text = (task.root / "ATTRIBUTION.md").read_text()
        assert "swarm-envs make-task" in text and "sha256" in text, task_id
        assert len(task.units) >= 10, task_id


def _solve(task, num_agents=4):
    from swarm_envs.agents.scripted import make_team

    env = swarm_envs.parallel_env(task, num_agents=num_agents, time_cap_s=36000)
    team = make_team(env.task, num_agents, "claim", seed=0)
    obs, infos = env.reset(seed=0)
    while env.agents:
        acts = {a: team[a].act(obs[a], infos[a]) for a in env.agents if infos[a]["ready"]}
        obs, _, _, _, infos = env.step(acts)
    passed, total, ended = env.view().tests_passed, env.view().tests_total, env.view().end
    env.close()
    return passed, total, ended


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("task_id", REAL_SOLVED)
def test_scripted_agents_solve_the_real_tasks(task_id):
    passed, total, ended = _solve(get_task(task_id))
    assert passed == total, (task_id, passed, total, ended)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("task_id", REAL_GENERATED)
def test_generated_instances_of_the_real_tasks(task_id, tmp_path):
    for kind in ("stub", "bug"):
        inst = generate(get_task(task_id), kind, 2, seed=0, dest=tmp_path / kind)
        rep = validate(inst)
        assert rep.ok, (kind, rep.problems)
        passed, total, _ = _solve(inst, num_agents=2)
        assert passed == total, (kind, passed, total)
