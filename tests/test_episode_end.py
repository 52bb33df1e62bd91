"""How episodes end, including when the scorer itself fails."""

import pytest
from support.helpers import KeptScorers, call


def test_all_tests_pass_terminates(make_env):
    env = make_env("calc", num_agents=1)
    env.reset(seed=0)
    files = env.task.solution_files()
    total = 0.0
    for path in ("calc/core.py", "calc/numbers.py"):
        _, rew, term, trunc, infos = env.step(
            {"agent_0": call("write_file", tokens=1, path=path, content=files[path].decode())}
        )
        total += rew["agent_0"]
    assert total == 13 and term["agent_0"] and not trunc["agent_0"]
    assert infos["agent_0"]["termination"] == "all_tests_pass"
    assert env.agents == []


def test_scorer_failure_is_no_verdict_not_zero(make_env):
    scorers = KeptScorers()
    env = make_env("calc", num_agents=1, max_scorer_failures=3, scorer_factory=scorers)
    env.reset(seed=0)
    files = env.task.solution_files()
    _, rew, *_ = env.step(
        {
            "agent_0": call(
                "write_file",
                tokens=1,
                path="calc/numbers.py",
                content=files["calc/numbers.py"].decode(),
            )
        }
    )
    assert rew["agent_0"] == 4
    scorers.last.close()  # the scorer dies: every evaluation now has no verdict
    for k in range(3):
        _, rew, term, trunc, infos = env.step(
            {"agent_0": call("write_file", tokens=1, path="notes.txt", content=str(k))}
        )
        assert rew["agent_0"] == 0
        assert infos["agent_0"]["verdict"] == "no_verdict"
        assert infos["agent_0"]["tests_passed"] == 4  # the last verdict, never a silent zero
    assert trunc["agent_0"] and infos["agent_0"]["truncation"] == "scorer_failure"
    assert not term["agent_0"]


def test_the_scorers_reason_is_in_infos_and_in_the_reset_error(make_env):
    from swarm_envs.error import ScoringError

    closing = []  # once it holds True, each new scorer is closed before its first count
    scorers = KeptScorers(on_make=lambda scorer: scorer.close() if closing else None)
    env = make_env("calc", num_agents=1, scorer_factory=scorers)
    env.reset(seed=0)
    scorers.last.close()
    _, _, _, _, infos = env.step(
        {"agent_0": call("write_file", tokens=1, path="n.txt", content="")}
    )
    assert infos["agent_0"]["verdict"] == "no_verdict"
    assert infos["agent_0"]["verdict_error"] == "the scorer is closed"

    closing.append(True)  # a real scorer that can give no verdict
    with pytest.raises(ScoringError, match="starting state of calc-v0: the scorer is closed"):
        env.reset(seed=0)
