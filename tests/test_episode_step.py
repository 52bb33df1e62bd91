"""`Episode.step` against a scorer handed to it: the step protocol, the book's answers
acted on (ends, the last reward's correction), and the frozen view readers get.

The sandbox is the real one; the scorer is `MemoryScorer` (support/memory_scorer.py),
which reads the workspace's files in this process, so each case runs in milliseconds
once the sandbox exists. The same protocol on the real scorer: test_episode.py,
test_final_recount.py and the tests of every form.
"""

from __future__ import annotations

import dataclasses

import gymnasium
import pytest
from support.helpers import SIMPLE_TIME, call
from support.memory_scorer import GCD_BODY, MEAN_BODY, RULES, MemoryScorer, memory_scorer

import swarm_envs
from swarm_envs.core.config import EnvConfig
from swarm_envs.core.outcome import EpisodeView
from swarm_envs.envs.episode import Episode

GCD = f"def gcd(a, b):\n    {GCD_BODY}\n    while b:\n        a, b = b, a % b\n    return a\n"
MEAN = f"def mean(values):\n    values = list(values)\n    {MEAN_BODY}\n"
GCD_TESTS = [t for t in RULES if "gcd" in t]


@pytest.fixture
def make_episode():
    made = []

    def make(num_agents=1, **config) -> tuple[Episode, MemoryScorer]:
        scorers: list[MemoryScorer] = []

        def factory(task, sandbox, **options):
            scorers.append(memory_scorer(task, sandbox, **options))
            return scorers[-1]

        cfg = EnvConfig.build(num_agents=num_agents, time=SIMPLE_TIME, **config)
        ep = Episode(swarm_envs.get_task("calc"), cfg, scorer_factory=factory)
        made.append(ep)
        ep.reset(seed=0)
        return ep, scorers[-1]

    yield make
    for ep in made:
        ep.close()


def write(path, content, tokens=1):
    return call("write_file", tokens=tokens, path=path, content=content)


def test_the_scorer_handed_in_is_the_episodes(make_episode):
    ep, scorer = make_episode()
    assert ep.scorer is scorer and scorer.root == ep.view().workspace_root
    assert scorer.calls == ["count"]  # the starting state, scored once
    view = ep.view()
    assert (view.tests_passed, view.tests_total) == (0, len(RULES))
    assert (view.held_out_passed, view.held_out_total) == (0, 1)


def test_a_write_is_rewarded_in_its_step_and_seen_by_the_next_observation(make_episode):
    ep, scorer = make_episode()
    out = ep.step({0: write("calc/numbers.py", GCD)})
    assert out.reward == 2 and out.end is None and list(out.changed) == [0]
    info = ep.agents[0].info
    assert info["tests_passed"] == 2 and info["per_test"][GCD_TESTS[0]] is True
    (record,) = info["attribution"]
    assert record["gained"] == GCD_TESTS and record["actions"][0]["files"] == ["calc/numbers.py"]
    out = ep.step({0: call("read_file", tokens=1, path="calc/numbers.py")})
    assert out.reward == 0 and ep.agents[0].info["attribution"] == []
    assert scorer.calls == ["count", "count"]  # a read is never rescored


def test_every_test_passing_ends_the_episode_after_one_fresh_run(make_episode):
    ep, scorer = make_episode()
    ep.step({0: write("calc/numbers.py", GCD + MEAN)})
    scorer.calls.clear()
    out = ep.step({0: write("NOTES.md", "done\n")})
    assert (out.end, out.reason, out.reward) == ("terminated", "all_tests_pass", 1)
    assert scorer.calls == ["count", "fresh"]  # the confirmation is the final count too
    assert ep.agents[0].info["swarm_episode"]["r"] == len(RULES) == ep.view().total_reward
    assert ep.view().held_out_passed == 1


def test_the_last_reward_takes_back_a_forged_count(make_episode):
    ep, scorer = make_episode()
    scorer.forge(GCD_TESTS)
    out = ep.step({0: write("notes.py", "X = 1\n")})  # the count comes from the forgery
    assert out.reward == 2
    out = ep.step({0: call("done", tokens=1)})
    assert out.reason == "all_done" and out.reward == -2
    info = ep.agents[0].info
    assert info["swarm_episode"]["r"] == 0 and info["tests_passed"] == 0
    assert [f["kind"] for f in info["integrity"]] == ["final_recount"]
    view = ep.view()
    assert view.settled and view.recount is not None and view.recount["tests"] == GCD_TESTS
    assert view.attribution[-1]["lost"] == GCD_TESTS  # the correction is attributed too


def test_a_forged_all_pass_does_not_end_the_step(make_episode):
    ep, scorer = make_episode()
    scorer.forge(list(RULES))
    out = ep.step({0: write("notes.py", "X = 1\n")})
    assert out.end is None and out.reward == 0
    assert [f["kind"] for f in ep.agents[0].info["integrity"]] == ["all_pass_recount"]


def test_the_scorer_failing_ends_the_episode_after_max_failures(make_episode):
    ep, scorer = make_episode(max_scorer_failures=2)
    ep.step({0: write("calc/numbers.py", GCD)})
    scorer.close()
    out = ep.step({0: write("notes.txt", "1")})
    assert out.end is None and ep.agents[0].info["verdict"] == "no_verdict"
    out = ep.step({0: write("notes.txt", "2")})
    assert (out.end, out.reason) == ("truncated", "scorer_failure")
    assert ep.agents[0].info["tests_passed"] == 2  # the last verdict stands


def test_run_tests_reports_the_scorers_outcomes_on_a_selection(make_episode):
    ep, scorer = make_episode()
    ep.step({0: write("calc/numbers.py", GCD)})
    ep.step({0: call("run_tests", tokens=1, selection=["tests/test_numbers.py"])})
    result = ep.agents[0].info["result"]
    assert "2 passed" in result and "1 failed" in result, result
    assert scorer.calls[-1] == "selection"


def test_the_view_is_a_snapshot_that_no_reader_can_change(make_episode):
    ep, _ = make_episode(num_agents=2)
    before = ep.view()
    assert isinstance(before, EpisodeView)
    assert before.ready == ("agent_0", "agent_1") and before.busy == () and before.done == ()
    ep.step({0: write("calc/numbers.py", GCD), 1: call("list_files", tokens=5)})
    after = ep.view()
    assert after.time == 2.0 and after.tests_passed == 2 and after.step == 1
    assert after.ready == ("agent_0",) and after.busy == ("agent_1",)
    assert len(after.attribution) == 1 and after.tokens > before.tokens
    # The earlier snapshot kept what it saw.
    assert before.time == 0.0 and before.tests_passed == 0 and before.attribution == ()
    assert not any(before.per_test.values())
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.tests_passed = 99  # type: ignore[misc]
    with pytest.raises(TypeError):
        after.per_test[GCD_TESTS[0]] = False  # type: ignore[index]
    ep.step({0: call("done", tokens=1)})
    ep.step({1: call("done", tokens=1)})
    end = ep.view()
    assert (end.end, end.end_reason, end.done) == ("terminated", "all_done", ("agent_0", "agent_1"))
    ep.close()
    assert ep.view().workspace_root is None and not ep.view().started


def test_every_form_gives_the_view():
    forms = [
        swarm_envs.parallel_env("calc", num_agents=1, scorer_factory=memory_scorer),
        swarm_envs.raw_env("calc", num_agents=1, scorer_factory=memory_scorer),
        gymnasium.make("swarm/calc-v0", scorer_factory=memory_scorer).unwrapped,
        swarm_envs.parallel_env("calc", num_agents=1, mode="menu"),
    ]
    try:
        for env in forms:
            assert env.view().started is False and env.view().tests_total == 0
        for env in forms[:3]:
            env.reset(seed=3)
            view = env.view()
            assert (view.task, view.seed, view.agents, view.roles) == (
                "calc-v0",
                3,
                ("agent_0",),
                ("agent",),
            )
            assert view.tests_total == len(RULES)  # the memory scorer's tests
    finally:
        for env in forms:
            env.close()
