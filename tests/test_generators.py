"""Generated instances: true descriptions, runnable output, solvable by the scripted baseline."""

import re

import pytest

import swarm_envs
from swarm_envs.agents.scripted import make_team
from swarm_envs.cli import main
from swarm_envs.error import InstanceError
from swarm_envs.generation.generators import generate, unit_patches
from swarm_envs.scoring.runner import ProjectRunner
from swarm_envs.tasks import get_task


def solve(task, num_agents=2, strategy="claim"):
    env = swarm_envs.parallel_env(task, num_agents=num_agents, time_cap_s=3600)
    team = make_team(env.task, num_agents, strategy, seed=0)
    obs, infos = env.reset(seed=0)
    start = env.view().tests_passed
    while env.agents:
        acts = {a: team[a].act(obs[a], infos[a]) for a in env.agents if infos[a]["ready"]}
        obs, _, _, _, infos = env.step(acts)
    result = (start, env.view().tests_passed, env.view().tests_total, env.view().end)
    env.close()
    return result


@pytest.mark.slow
def test_a_bug_instance_says_what_is_true(tmp_path):
    inst = generate(get_task("calc"), "bug", 2, seed=1, dest=tmp_path / "bug")
    text = inst.manifest.description
    assert "stubbed" not in text.lower() and "Four functions" not in text
    failing, total = map(int, re.search(r"(\d+) of the (\d+) tests fail", text).groups())
    with ProjectRunner(inst) as runner:
        start = runner.run(inst.start_files())
    assert (failing, total) == (start.total - start.passed, start.total)
    assert all(u.name in text for u in inst.units)


def test_a_stub_instance_names_exactly_its_stubbed_units(tmp_path):
    inst = generate(get_task("calc"), "stub", 1, seed=3, dest=tmp_path / "stub")
    text = inst.manifest.description
    assert "1 unit is stubbed out" in text and inst.units[0].name in text
    assert "Four functions" not in text


@pytest.mark.parametrize("kind", ["bug", "stub"])
@pytest.mark.slow
def test_the_scripted_baseline_solves_generated_instances(tmp_path, kind):
    inst = generate(get_task("calc"), kind, 2, seed=1, dest=tmp_path / kind)
    start, end, total, ended = solve(inst)
    assert start < total and end == total, (start, end, total, ended)


def test_patches_come_from_the_instances_own_starting_state(tmp_path):
    inst = generate(get_task("calc"), "bug", 1, seed=2, dest=tmp_path / "one")
    (unit,) = inst.units
    (patch,) = unit_patches(inst, unit)
    start = inst.start_files()[unit.path].decode()
    assert start.count(patch.old) == 1 and "NotImplementedError" not in patch.old
    fixed = start.replace(patch.old, patch.new)
    assert fixed == inst.solution_files()[unit.path].decode()


@pytest.mark.slow
def test_generate_prints_what_run_accepts(tmp_path, capsys):
    assert main(["generate", "calc", "--kind", "stub", "-k", "1", "--out", str(tmp_path)]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "swarm-envs run" in ln)
    folder = line.split("swarm-envs run", 1)[1].strip()
    assert main(["run", folder, "--agents", "1", "--quiet", "--time-cap", "600"]) == 0


@pytest.mark.parametrize(
    "kind, k, match",
    [("typo", 1, r"kind='typo': expected 'stub' or 'bug'"), ("stub", 99, r"k=99: expected 1\.\.")],
)
def test_bad_arguments_are_instance_errors(kind, k, match):
    with pytest.raises(InstanceError, match=match):
        generate(get_task("calc"), kind, k, seed=0)


LOOPS = {
    "task.toml": """
        name = "loops"
        suite = "custom"
        description = "A union-find root: a mutant of its loop condition never ends."
        [[units]]
        name = "find"
        path = "loops/uf.py"
        symbol = "find"
        tests = ["tests/test_uf.py"]
    """,
    "solution/loops/__init__.py": "",
    "solution/loops/uf.py": '''
        def find(parent, x):
            """The root of x and its depth: follow parent links to a node that is its own."""
            depth = 0
            while parent[x] != x:
                x = parent[x]
                depth += 1
            return x, depth
    ''',
    "tests/test_uf.py": """
        from loops.uf import find

        def test_a_root_is_its_own():
            assert find([0, 1], 1) == (1, 0)

        def test_a_chain_ends_at_its_root():
            assert find([0, 0, 1, 2], 3) == (0, 3)
    """,
}


@pytest.mark.slow
def test_mutants_that_make_a_test_hang_are_not_candidates(tmp_path):
    from support.helpers import write_files

    from swarm_envs.generation.generators import candidates, mutations
    from swarm_envs.tasks import register_task

    task = register_task(write_files(tmp_path / "loops", LOOPS))
    (unit,) = task.units
    files = task.solution_files()
    source = files[unit.path].decode()
    hanging = next(m for m in mutations(source, unit) if "== x" in m.apply(source))
    with ProjectRunner(task, test_timeout_s=1.0) as runner:
        report = runner.run({**files, unit.path: hanging.apply(source).encode()}, list(unit.tests))
        # Detected (a test fails), but only by the scorer killing the test that hangs.
        assert report.verdict == "ok" and report.passed < report.total
        assert report.hung == ("tests/test_uf.py::test_a_root_is_its_own",)
        found = candidates(task, unit, n_wrong=16, runner=runner)
    wrong = [c.patches for c in found if not c.correct]
    assert wrong  # the other detected mutants are candidates
    hang = tuple(
        (p.path, p.old, p.new) for p in unit_patches(task, unit, target=hanging.apply(source))
    )
    assert hang not in wrong
