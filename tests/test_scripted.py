"""Scripted agents: coordination strategies, the error model, reading cost, determinism.

Everything runs through the public API (`parallel_env`, `swarm_envs.rollout`) with the
real sandbox and scorer; the agents' plans are checked in the recording and the
trajectory.
"""

import pytest
from support.helpers import TOWER, write_files

import swarm_envs
from swarm_envs.agents import scripted
from swarm_envs.agents.scripted import STRATEGIES, make_team
from swarm_envs.core.recording import AttributionEvent, EffectEvent, read_events
from swarm_envs.error import ConfigError
from swarm_envs.generation.candidates import wrong_candidates
from swarm_envs.generation.generators import generate
from swarm_envs.tasks import register_task


@pytest.fixture(scope="module")
def tower(tmp_path_factory):
    """A two-unit task in which `quad` (tower/top.py) depends on `double` (tower/base.py)."""
    return register_task(write_files(tmp_path_factory.mktemp("tower"), TOWER))


def run(task, n, strategy="claim", seed=0, path=None, **options):
    env = swarm_envs.parallel_env(task, num_agents=n, record_path=str(path) if path else None)
    team = make_team(env.task, n, strategy, seed=seed, **options)
    try:
        trajectory = swarm_envs.rollout(env, team, seed=seed)
        return trajectory, list(env.view().attribution)
    finally:
        env.close()


def calls(trajectory, agent=None):
    """(agent, tool, arguments) of every decision, in each agent's order."""
    return [
        (a.name, d.action["name"], d.action["arguments"])
        for a in trajectory.agents
        if agent is None or a.name == agent
        for d in a.decisions
    ]


def test_a_unit_is_read_with_its_dependencies_files_before_the_edit(tower):
    trajectory, _ = run(tower, 2, "claim")
    assert trajectory.end_reason == "all_tests_pass"
    # agent_1's rotation starts at quad: its own file, then double's, then the edit.
    tools = [(t, a.get("path")) for _, t, a in calls(trajectory, "agent_1")]
    assert tools[:4] == [
        ("post", None),
        ("read_file", "tower/top.py"),
        ("read_file", "tower/base.py"),
        ("edit_file", "tower/top.py"),
    ]


def test_a_file_already_read_is_not_read_again_for_a_dependency(tower):
    trajectory, _ = run(tower, 1, "claim")
    reads = [a["path"] for _, t, a in calls(trajectory) if t == "read_file"]
    assert reads == ["tower/base.py", "tower/top.py"]  # double first, then quad


def test_wrong_candidates_are_applied_seen_failing_and_retried(tmp_path):
    task = swarm_envs.get_task("calc")
    wrong = wrong_candidates(task)
    assert sum(map(len, wrong.values())) >= len(task.units)  # calc has mutants everywhere
    trajectory, _ = run(task, 1, "none", path=tmp_path / "r.jsonl", p_wrong=1.0)
    assert trajectory.end_reason == "all_tests_pass"
    edits = [a for _, t, a in calls(trajectory) if t == "edit_file"]
    # p_wrong=1: every wrong candidate is tried once before the right implementation.
    assert len(edits) == sum(len(wrong[u.name]) + 1 for u in task.units)
    runs = [
        e.result
        for e in read_events(tmp_path / "r.jsonl")
        if isinstance(e, EffectEvent) and e.tool == "run_tests"
    ]
    failing = [r for r in runs if " 0 failed" not in r]
    assert len(failing) == len(edits) - len(task.units)  # each wrong attempt was seen failing
    assert all("FAILED" in r for r in failing)


def test_without_errors_every_attempt_is_right():
    trajectory, _ = run(swarm_envs.get_task("calc"), 1, "none", p_wrong=0.0)
    assert sum(t == "edit_file" for _, t, _ in calls(trajectory)) == 4  # one per unit


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_agent_alone_coordinates_with_nobody(strategy):
    trajectory, _ = run(swarm_envs.get_task("calc"), 1, strategy, p_wrong=0.5)
    assert trajectory.end_reason == "all_tests_pass"
    assert not {"post", "send_message", "wait"} & {t for _, t, _ in calls(trajectory)}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_solves_calc_despite_errors(strategy):
    trajectory, attribution = run(swarm_envs.get_task("calc"), 3, strategy, p_wrong=0.5)
    assert trajectory.end_reason == "all_tests_pass"
    assert trajectory.collective_return == 13
    if strategy != "none":  # coordinated: each unit's tests were made to pass by one agent
        task = swarm_envs.get_task("calc")
        for unit in task.units:
            credited = {
                a["agent"]
                for r in attribution
                for a in r["actions"]
                if any(t.startswith(unit.tests[0]) for t in r["gained"])
            }
            assert len(credited) == 1, (unit.name, credited)


@pytest.mark.slow
def test_uncoordinated_agents_duplicate_reading(tower):
    alone, _ = run(tower, 1, "none", seed=3)
    swarm, _ = run(tower, 4, "none", seed=3)

    def reads(t):
        return sum(tool == "read_file" for _, tool, _ in calls(t))

    assert reads(swarm) > reads(alone)


@pytest.mark.slow
def test_the_same_seed_gives_the_same_episode_and_another_seed_another():
    task = swarm_envs.get_task("calc")
    first, attribution = run(task, 3, "none", seed=5, p_wrong=0.5)
    again, attribution_again = run(task, 3, "none", seed=5, p_wrong=0.5)
    other, _ = run(task, 3, "none", seed=6, p_wrong=0.5)
    assert calls(first) == calls(again) and attribution == attribution_again
    assert [d.time for a in first.agents for d in a.decisions] == [
        d.time for a in again.agents for d in a.decisions
    ]
    assert calls(first) != calls(other)


@pytest.mark.slow
def test_stub_instances_are_solved_with_errors(tmp_path):
    instance = generate(swarm_envs.get_task("calc"), "stub", k=2, seed=1, dest=tmp_path / "i")
    trajectory, attribution = run(instance, 2, "claim", p_wrong=0.7)
    assert trajectory.end_reason == "all_tests_pass"
    assert trajectory.tests_passed_start > 0  # only two units were stubbed
    assert sum(len(r["gained"]) for r in attribution) == (
        trajectory.tests_total - trajectory.tests_passed_start
    )


@pytest.mark.parametrize(
    "options, fragment",
    [
        ({"strategy": "vote"}, "strategy='vote': expected one of ['none', 'claim', 'leader']"),
        ({"p_wrong": 1.5}, "p_wrong=1.5: expected a probability"),
        ({"context_tokens": -1}, "context_tokens=-1"),
        ({"edit_reasoning_tokens": -5}, "edit_reasoning_tokens=-5"),
    ],
)
def test_invalid_options_name_the_field(options, fragment):
    task = swarm_envs.get_task("calc")
    with pytest.raises(ConfigError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        make_team(task, 2, **options)


@pytest.mark.parametrize(
    "before, after",
    [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("x = 1\nx = 1\ny = 2\n", "x = 1\nx = 2\ny = 2\n"),  # the changed line is not unique
        ("a\n", "a\nb\n"),  # a pure insertion
    ],
)
def test_a_retry_edit_matches_once_and_gives_the_next_version(before, after):
    old, new = scripted._hunk(before, after)
    assert old and before.count(old) == 1
    assert before.replace(old, new, 1) == after


def test_attribution_credits_the_agent_whose_edit_made_tests_pass(tower, tmp_path):
    path = tmp_path / "r.jsonl"
    _, attribution = run(tower, 2, "claim", path=path)
    events = [e for e in read_events(path) if isinstance(e, AttributionEvent)]
    assert len(events) == len(attribution) >= 1
    files = {f for r in attribution for a in r["actions"] for f in a["files"] or ()}
    assert files <= {"tower/base.py", "tower/top.py"}
