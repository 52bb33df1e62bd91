"""A checker harness for swarm-envs tasks, in the spirit of `pettingzoo.test`.

`check_task(task)` runs PettingZoo's `parallel_api_test`, `parallel_seed_test` and
`api_test`, Gymnasium's `check_env`, and checks of our own (the reward is the change in
`tests_passed`, every end has a reason, `close()` is safe twice, a closed environment is
garbage-collected) over a task with the given agent counts and sync modes. Run it over
your own tasks the same way the suite runs it over every registered one.

Warnings are not silenced: the checkers' known complaints about text spaces are listed
in `EXPECTED_WARNINGS`, and any other warning fails the check.

Layer: the top, beside the bench; uses the environments through their public API.
"""

from __future__ import annotations

import contextlib
import gc
import re
import time
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import gymnasium
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

import swarm_envs
from swarm_envs.envs.facade import UnknownResetOption
from swarm_envs.envs.registration import gym_id

# Random text actions are errors, so episodes are long; small action samples and a
# short cap keep the checkers quick without changing what they check.
CHECK_CONFIG: dict[str, Any] = {"max_action_chars": 128, "time_cap_s": 300.0}

#: warnings the checkers are known to raise on our environments, and why they are fine
EXPECTED_WARNINGS: tuple[tuple[type[Warning], str], ...] = (
    # PettingZoo's API tests probe `reset` with options={"options": 1}.
    (UnknownResetOption, r"unknown option\(s\) \['options'\]"),
    # PettingZoo's AEC test prefers numeric spaces; ours are text, by design.
    (UserWarning, r"^Observation is not a NumPy array"),
    (UserWarning, r"^(Observation|Action) space for each agent probably should be"),
)


@contextlib.contextmanager
def expected_warnings() -> Iterator[None]:
    """Fail on any warning raised inside the block that `EXPECTED_WARNINGS` does not list."""
    gc.collect()  # what earlier code left to the collector warns now, not inside the block
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    unexpected = [
        w
        for w in caught
        if not any(
            issubclass(w.category, kind) and re.search(pattern, str(w.message))
            for kind, pattern in EXPECTED_WARNINGS
        )
    ]
    if unexpected:
        listed = "; ".join(f"{w.category.__name__}: {w.message}" for w in unexpected)
        raise AssertionError(f"unexpected warnings: {listed}")


def check_parallel(task: str, num_agents: int, sync: str = "event", cycles: int = 200) -> None:
    """PettingZoo's parallel API and seed tests."""
    cfg = {**CHECK_CONFIG, "sync": sync}
    with expected_warnings():
        env = swarm_envs.parallel_env(task, num_agents=num_agents, **cfg)
        try:
            parallel_api_test(env, num_cycles=cycles)
        finally:
            env.close()
        parallel_seed_test(
            lambda: swarm_envs.parallel_env(task, num_agents=num_agents, **cfg), num_cycles=20
        )


def check_aec(task: str, num_agents: int, sync: str = "event", cycles: int = 50) -> None:
    """PettingZoo's AEC API test."""
    with expected_warnings():
        env = swarm_envs.env(task, num_agents=num_agents, sync=sync, **CHECK_CONFIG)
        try:
            api_test(env, num_cycles=cycles, verbose_progress=False)
        finally:
            env.close()


def check_gymnasium(task: str, sync: str = "event") -> None:
    """Gymnasium's `check_env` on the single-agent form made by id."""
    task_obj = swarm_envs.get_task(task)
    swarm_envs.register_envs()  # a task registered after import (your own folder) too
    with expected_warnings():
        env = gymnasium.make(f"swarm_envs:{gym_id(task_obj)}", sync=sync, **CHECK_CONFIG)
        try:
            check_env(env.unwrapped, skip_render_check=True)
        finally:
            env.close()


def check_rewards_and_ends(task: str, num_agents: int = 2, sync: str = "event") -> None:
    """The reward is the change in `tests_passed`, the same for every agent; ends have reasons.

    The agents write the reference solution file by file (so that the score moves), then
    say `done`: the rewards must add up to the whole change, every test must pass at the
    end (the reference passes them all), and the episode must end with its reason.
    """
    # No time cap to speak of: every file of the solution gets written.
    env = swarm_envs.parallel_env(task, num_agents=num_agents, sync=sync, time_cap_s=1e9)
    try:
        _, infos = env.reset(seed=0)
        task_obj = env.task
        start = task_obj.start_files()
        edits = [
            {"name": "write_file", "arguments": {"path": path, "content": data.decode()}}
            for path, data in sorted(task_obj.solution_files().items())
            if start.get(path) != data and not task_obj.is_protected(path)
        ]
        passed = start_passed = infos[env.possible_agents[0]]["tests_passed"]
        total = 0.0
        while env.agents:
            actions = {a: edits.pop() if edits else {"name": "done"} for a in env.ready_agents}
            _, rewards, terminations, truncations, infos = env.step(actions)
            now = _current_score(infos)
            values = set(rewards.values())
            assert len(values) <= 1, f"{task}: agents got different rewards {rewards}"
            reward = values.pop() if values else 0.0
            assert reward == now - passed, (
                f"{task}: reward {reward} but tests_passed went {passed} -> {now}"
            )
            passed = now
            total += reward
            for agent, info in infos.items():
                ended = terminations.get(agent) or truncations.get(agent)
                if terminations.get(agent):
                    assert info["termination"], f"{task}: {agent} terminated without a reason"
                if truncations.get(agent):
                    assert info["truncation"], f"{task}: {agent} truncated without a reason"
                if not ended:
                    assert info["termination"] is None and info["truncation"] is None
        tests_total = infos[env.possible_agents[0]]["tests_total"]
        assert passed == tests_total, f"{task}: the reference written, {passed}/{tests_total} pass"
        assert total == passed - start_passed, f"{task}: rewards add up to {total}"
    finally:
        env.close()


def _current_score(infos: dict[str, Any]) -> int:
    # A busy agent's info is what it observed last; the agents that observed at the
    # latest time see the current score, and they all see the same.
    latest = max(info["time"] for info in infos.values())
    scores = {info["tests_passed"] for info in infos.values() if info["time"] == latest}
    assert len(scores) == 1, f"agents observing at t={latest} see different scores {scores}"
    return scores.pop()


def check_close_and_collect(make: Callable[[], Any]) -> None:
    """`close()` is safe twice, before and after `reset`, and a closed env is collected."""
    fresh = make()
    fresh.close()
    fresh.close()
    env = make()
    env.reset(seed=0)
    env.close()
    env.close()
    refs = [weakref.ref(fresh.unwrapped), weakref.ref(env.unwrapped)]
    del env, fresh
    assert all_collected(refs), "closed environments are still alive after 30 s"


def all_collected(refs: Iterable[weakref.ref[Any]], timeout_s: float = 30.0) -> bool:
    """Collect garbage until every referent is gone or `timeout_s` passes.

    A scorer's pool threads finish on their own after `close()`, and may hold the last
    reference for a moment; a real leak holds it for good.
    """
    refs = list(refs)
    deadline = time.monotonic() + timeout_s
    while True:
        gc.collect()
        if all(r() is None for r in refs):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def check_task(
    task: str, agent_counts: Iterable[int] = (1, 2, 8), syncs: Iterable[str] = ("event", "round")
) -> None:
    """Every checker, for every agent count and sync mode."""
    counts = list(agent_counts)
    for sync in syncs:
        check_gymnasium(task, sync)
        check_rewards_and_ends(task, max(counts), sync)
        for n in counts:
            check_parallel(task, n, sync)
            check_aec(task, n, sync)
    check_close_and_collect(lambda: swarm_envs.parallel_env(task, num_agents=2, **CHECK_CONFIG))
    check_close_and_collect(lambda: swarm_envs.env(task, num_agents=2, **CHECK_CONFIG))
    swarm_envs.register_envs()
    check_close_and_collect(
        lambda: gymnasium.make(f"swarm_envs:{gym_id(swarm_envs.get_task(task))}", **CHECK_CONFIG)
    )
