"""The authoritative end of an episode: a stale or forged cache entry moves credit in time
within the episode, but never creates it (docs/integrity.md, "The last count").

The forged entries stand for what a guard that missed an attack would have stored: the
test writes them into the fast scorer's in-process cache itself (the env is given a scorer
factory that keeps the real scorers it makes), then plays the episode through the public
API and reads it through `env.view()`.
"""

from __future__ import annotations

import pytest
from support.helpers import KeptScorers, call, step_one

from swarm_envs.scoring.keys import shared_entries

GCD = "tests/test_calc.py::TestGcd::"


def unreached(n: int) -> dict:
    """An edit no test can reach (a module nothing imports)."""
    return call("write_file", tokens=1, path="notes.py", content=f"X = {n}\n")


@pytest.fixture
def scorers():
    """The scorer factory of the test's envs: it keeps the (real) scorers it makes."""
    return KeptScorers()


@pytest.fixture
def forge(scorers):
    """Makes the cached outcomes of `TestGcd` say "passed" (undone afterwards)."""
    forged = []

    def apply(env) -> list[str]:
        lock, entries = shared_entries(scorers.last.collection)
        with lock:
            for per_file in entries.values():
                for entry in per_file:
                    entry.results.update({n: (True, "") for n in entry.results if GCD in n})
        forged.append((lock, entries))
        return sorted(n for n in env.view().per_test if GCD in n)

    yield apply
    for lock, entries in forged:
        with lock:
            entries.clear()  # no other test may see them


def test_a_forged_entry_is_taken_back_by_the_last_reward(make_env, scorers, forge):
    env = make_env("calc", num_agents=1, scorer_factory=scorers)
    _, infos = env.reset(seed=0)
    start = infos["agent_0"]["tests_passed"]
    assert step_one(env, unreached(1))[1] == 0  # the starting state's entries are made
    forged = forge(env)
    assert forged and not any(infos["agent_0"]["per_test"][t] for t in forged)
    # Another edit no test can reach: the per-step count comes from the forged entries.
    _, reward, info = step_one(env, unreached(2))
    assert reward == len(forged) and info["tests_passed"] == start + len(forged)
    _, last, _, _, infos = env.step({"agent_0": call("done", tokens=1, summary="x")})
    info = infos["agent_0"]
    # The final count is a fresh run: the last reward takes the forged credit back.
    assert last["agent_0"] == -len(forged)
    assert reward + last["agent_0"] == 0 == info["tests_passed"] - start
    assert info["swarm_episode"]["r"] == 0
    recount = [f for f in info["integrity"] if f["kind"] == "final_recount"]
    assert len(recount) == 1 and recount[0]["since_step"] == "2"
    recount = env.view().recount
    assert recount is not None and recount["tests"] == forged
    assert recount["per_step"] == start + len(forged) and recount["final"] == start


def test_an_honest_episode_ends_without_a_correction(make_env):
    env = make_env("calc", num_agents=1)
    _, infos = env.reset(seed=0)
    _, reward, _ = step_one(env, unreached(1))
    _, last, _, _, infos = env.step({"agent_0": call("done", tokens=1, summary="x")})
    assert reward == last["agent_0"] == 0
    assert not [f for f in infos["agent_0"]["integrity"] if f["kind"] == "final_recount"]
    view = env.view()
    assert view.settled and view.recount is None


def test_close_mid_episode_still_counts_fresh(make_env, scorers, forge):
    env = make_env("calc", num_agents=1, scorer_factory=scorers)
    _, infos = env.reset(seed=0)
    start = infos["agent_0"]["tests_passed"]
    step_one(env, unreached(1))
    forge(env)
    assert step_one(env, unreached(2))[2]["tests_passed"] > start
    assert not env.view().settled
    env.close()
    view = env.view()  # the closed episode's last count
    assert view.settled and view.recount is not None and view.recount["final"] == start


def _count_fresh_runs(scorer) -> list[bool]:
    """Records every fresh evaluation `scorer` (an episode's) makes from now on."""
    runs: list[bool] = []
    evaluate = scorer.evaluate

    def spy(*args, **kwargs):
        if kwargs.get("fresh"):
            runs.append(True)
        return evaluate(*args, **kwargs)

    scorer.evaluate = spy
    return runs


@pytest.mark.parametrize(
    ("action", "recounts"),
    [
        (call("read_file", tokens=1, path="calc/__init__.py"), 0),
        (call("run_tests", tokens=1), 1),
        (call("run_command", tokens=1, command="true"), 1),
        (unreached(1), 1),
    ],
    ids=["read", "run_tests", "run_command", "write"],
)
def test_the_last_count_reruns_once_anything_has_touched_the_sandbox(
    make_env, scorers, action, recounts
):
    # The starting count of a fresh run is the final one too while no action has touched the
    # sandbox; a write, a command or a test run makes the final count run again.
    env = make_env("calc", num_agents=1, scorer_factory=scorers)
    env.reset(seed=0)
    runs = _count_fresh_runs(scorers.last)
    step_one(env, action)
    _, _, _, _, infos = env.step({"agent_0": call("done", tokens=1, summary="x")})
    assert len(runs) == recounts
    assert infos["agent_0"]["swarm_episode"]["r"] == 0


@pytest.mark.slow
def test_a_forged_all_pass_does_not_end_the_episode(make_env, scorers):
    # The per-step count says every test passes (every cached outcome forged): a fresh run
    # says otherwise, so the episode goes on with the fresh count and says why.
    env = make_env("calc", num_agents=1, scorer_factory=scorers)
    _, infos = env.reset(seed=0)
    start = infos["agent_0"]["tests_passed"]
    step_one(env, unreached(1))
    lock, entries = shared_entries(scorers.last.collection)
    try:
        with lock:
            for per_file in entries.values():
                for entry in per_file:
                    entry.results.update({n: (True, "") for n in entry.results})
        obs, reward, info = step_one(env, unreached(2))
    finally:
        with lock:
            entries.clear()
    assert env.agents == ["agent_0"] and env.view().end is None
    assert reward == 0 and info["tests_passed"] == start < info["tests_total"]
    found = [f for f in info["integrity"] if f["kind"] == "all_pass_recount"]
    assert len(found) == 1 and "goes on" in found[0]["detail"]
    # The finding stays in the infos of the later steps.
    _, reward, info = step_one(env, unreached(3))
    assert reward == 0 and [f for f in info["integrity"] if f["kind"] == "all_pass_recount"]


def test_an_honest_all_pass_ends_the_episode_with_one_fresh_run(make_env, scorers):
    from swarm_envs.agents.scripted import make_team

    env = make_env("calc", num_agents=2, time_cap_s=36000, scorer_factory=scorers)
    team = make_team(env.unwrapped.task, 2, "claim", seed=0)
    obs, infos = env.reset(seed=0)
    runs = _count_fresh_runs(scorers.last)
    total = 0.0
    while env.agents:
        acts = {a: team[a].act(obs[a], infos[a]) for a in env.agents if infos[a]["ready"]}
        obs, rewards, _, _, infos = env.step(acts)
        total += sum(rewards.values()) / 2
    info = infos["agent_0"]
    assert env.view().end_reason == "all_tests_pass"
    assert info["tests_passed"] == info["tests_total"] and info["swarm_episode"]["r"] == total
    assert len(runs) == 1  # the confirmation is the end's recount too
