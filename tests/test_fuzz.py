"""Property-based: arbitrary text and JSON never crash the environment."""

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.helpers import KeptScorers

import swarm_envs

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
tool_names = st.sampled_from(list(swarm_envs.core.actions.TOOLS) + ["", "nope"])
tool_calls = st.builds(
    lambda name, args: {"name": name, "arguments": args},
    tool_names,
    st.dictionaries(
        st.sampled_from(
            [
                "path",
                "content",
                "old",
                "new",
                "selection",
                "command",
                "to",
                "text",
                "channel",
                "seconds",
                "start_line",
                "end_line",
                "x",
            ]
        ),
        json_values,
        max_size=4,
    ),
)
actions = st.one_of(
    st.text(max_size=200),
    json_values.map(json.dumps),
    tool_calls,
    tool_calls.map(json.dumps),
)

ENV = None
SCORERS = KeptScorers()


def _env():
    global ENV
    if ENV is None:
        # run_command is costed out: the fuzzer explores parsing and file tools.
        ENV = swarm_envs.parallel_env(
            "calc", num_agents=2, time_cap_s=1e9, scorer="fast", scorer_factory=SCORERS
        )
    return ENV


def _tree(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            if "__pycache__" not in d:
                p = os.path.join(d, f)
                out[os.path.relpath(p, root)] = os.path.getsize(p)
    return out


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(actions, min_size=1, max_size=6))
def test_env_never_raises_and_workspace_stays_consistent(batch):
    env = _env()
    env.reset(seed=0)
    root = env.view().workspace_root
    protected_before = {
        rel: p.read_bytes() for rel, p in ((r, root / r) for r, _ in env.task.test_files())
    }
    for action in batch:
        if isinstance(action, dict) and action.get("name") == "run_command":
            continue
        if isinstance(action, str) and '"run_command"' in action:
            continue
        ready = env.ready_agents
        obs, rew, term, trunc, infos = env.step({a: action for a in ready})
        for a in env.agents:
            assert isinstance(obs[a], str)
            assert env.observation_space(a).contains(obs[a])
            assert rew[a] == rew[env.agents[0]]
        if not env.agents:
            break
    # Canonical tests are untouched; every file is still inside the workspace.
    for rel, data in protected_before.items():
        assert (root / rel).read_bytes() == data
    tree = _tree(root)
    assert all(not rel.startswith("..") for rel in tree)
    # The score the env reports is what an independent evaluation finds.
    assert env.view().tests_passed == SCORERS.last.evaluate().passed
