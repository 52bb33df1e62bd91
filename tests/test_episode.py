"""The episode: one step protocol behind every API form, its state, its time cap."""

import math
import warnings
import weakref

import gymnasium
import pytest
from support.helpers import GCD, MEAN, SIMPLE_TIME, STUB_GCD, STUB_MEAN, TOKEN, call, step_one

import swarm_envs
from swarm_envs import checker as harness
from swarm_envs.core import observation
from swarm_envs.core.config import EnvConfig
from swarm_envs.core.outcome import END_KIND, EndReason, StepOutcome
from swarm_envs.envs.episode import Episode
from swarm_envs.envs.facade import UnknownResetOption
from swarm_envs.error import ConfigError, ResetNeeded


@pytest.fixture
def episode():
    ep = Episode(swarm_envs.get_task("calc"), EnvConfig.build(num_agents=2, time=SIMPLE_TIME))
    yield ep
    ep.close()


def make_all_forms(**config):
    """One environment of each form on calc: parallel, AEC (wrapped) and Gymnasium."""
    return [
        swarm_envs.parallel_env("calc", num_agents=1, **config),
        swarm_envs.env("calc", num_agents=1, **config),
        gymnasium.make("swarm/calc-v0", **config),
    ]


def form(env):
    return {"SwarmParallelEnv": "parallel", "SwarmAECEnv": "aec", "SwarmGymEnv": "gym"}[
        type(env.unwrapped).__name__
    ]


def time_left(env, info=None):
    if form(env) == "gym":
        return info["time_left"]
    return env.unwrapped.view().time_left  # every agent observed at the reset's time


# --------------------------------------------------------------- state and step


def test_state_exists_before_reset(episode):
    assert not episode.started and episode.ended is None and episode.end_reason is None
    assert episode.now == 0.0 and episode.ready == {0, 1} and episode.tokens == 0
    assert [st.name for st in episode.agents] == ["agent_0", "agent_1"]
    with pytest.raises(ResetNeeded, match="reset"):
        episode.step({0: call("list_files")})


def test_step_outcome_names_changed_agents_and_the_end(episode):
    episode.reset(seed=0)
    out = episode.step({0: call("list_files", tokens=1), 1: call("list_files", tokens=5)})
    assert isinstance(out, StepOutcome)
    assert out.reward == 0.0 and out.end is None and out.reason is None
    assert sorted(out.changed) == [0, 1]  # 0 observed its result, 1 is busy now
    assert episode.agents[1].info["ready"] is False
    assert episode.agents[1].info["busy_until"] == 6.0
    out = episode.step({0: call("done", tokens=1)})
    assert list(out.changed) == [0, 1]  # agent_1's action completed at t=6
    out = episode.step({1: call("done", tokens=1)})
    assert (out.end, out.reason, out.terminated, out.truncated) == (
        "terminated",
        "all_done",
        True,
        False,
    )
    assert list(out.changed) == [0, 1]
    with pytest.raises(ResetNeeded, match="all_done"):
        episode.step({0: call("list_files")})


def test_busy_and_done_agents_in_a_step():
    ep = Episode(swarm_envs.get_task("calc"), EnvConfig.build(num_agents=3, time=SIMPLE_TIME))
    try:
        ep.reset(seed=0)
        ep.step({0: call("done", tokens=1), 1: call("list_files", tokens=1), 2: call("wait")})
        assert ep.agents[0].done and ep.ready == {1}
        busy = ep.agents[2].actions
        out = ep.step({0: call("list_files"), 1: call("list_files", tokens=1), 2: call("done")})
        assert "already said done" in ep.agents[0].info["error"]
        assert ep.agents[2].actions == busy  # busy: ignored, never an error
        assert ep.agents[2].info["error"] is None and ep.agents[2].info["ignored"] is True
        assert {0, 1, 2} <= set(out.changed)  # 2: its info says its action was ignored
    finally:
        ep.close()


def test_every_end_reason_has_a_kind():
    assert set(END_KIND) == set(EndReason.__args__)
    assert {END_KIND[r] for r in ("all_tests_pass", "all_done")} == {"terminated"}


@pytest.mark.slow
def test_the_forms_give_the_same_trajectory():
    """Parallel, AEC and Gymnasium forms are translations of one step."""
    script = [
        call("write_file", tokens=3, path="notes.txt", content="x"),
        call("read_file", tokens=2, path="calc/numbers.py"),
        call("run_tests", tokens=1, selection=["tests/test_calc.py::TestGcd"]),
        call("nonsense", tokens=1),
        call("done", tokens=1),
    ]
    seen = {}
    for env in make_all_forms(time=SIMPLE_TIME):
        try:
            env.reset(seed=0)
            out = []
            for action in script:
                if form(env) == "gym":
                    obs, reward, term, trunc, info = env.step(action)
                elif form(env) == "aec":
                    env.step(action)
                    obs, reward, term, trunc, info = env.last()
                else:
                    o, r, te, tr, i = env.step({"agent_0": action})
                    obs, reward, term, trunc, info = (
                        o["agent_0"],
                        r["agent_0"],
                        te["agent_0"],
                        tr["agent_0"],
                        i["agent_0"],
                    )
                out.append((str(obs), reward, term, trunc, info["time"], info["error"]))
            seen[type(env.unwrapped).__name__] = out
        finally:
            env.close()
    first, *rest = seen.values()
    assert all(r == first for r in rest), seen
    assert first[-1][2] is True  # done terminates


# --------------------------------------------------------------- finished episodes


def test_stepping_a_finished_env_is_reset_needed_in_every_form():
    for env in make_all_forms(time=SIMPLE_TIME):
        try:
            with pytest.raises(ResetNeeded):  # before the first reset, too
                if form(env) == "parallel":
                    env.step({"agent_0": call("done", tokens=1)})
                else:  # below the wrappers, which have checks of their own
                    env.unwrapped.step(call("done", tokens=1))
            env.reset(seed=0)
            if form(env) == "gym":
                env.step(call("done", tokens=1))
                with pytest.raises(gymnasium.error.ResetNeeded):
                    env.unwrapped.step(call("list_files"))
            elif form(env) == "aec":
                env.step(call("done", tokens=1))
                env.step(None)  # the dead step PettingZoo asks for
                with pytest.raises(ResetNeeded):
                    env.unwrapped.step(call("list_files"))
            else:
                env.step({"agent_0": call("done", tokens=1)})
                with pytest.raises(ResetNeeded):
                    env.step({"agent_0": call("list_files")})
        finally:
            env.close()


# --------------------------------------------------------------- time cap


def test_set_time_cap_holds_for_every_later_reset_in_every_form():
    for env in make_all_forms(time_cap_s=100):
        try:
            _, info = env.reset(seed=0) or (None, None)
            assert time_left(env, info) == 100
            env.unwrapped.set_time_cap(50)
            _, info = env.reset(seed=0) or (None, None)
            assert time_left(env, info) == 50
            _, info = env.reset(seed=0, options={"time_cap": 7}) or (None, None)
            assert time_left(env, info) == 7  # one episode only
            _, info = env.reset(seed=0) or (None, None)
            assert time_left(env, info) == 50
        finally:
            env.close()


def test_set_time_cap_reaches_the_autoreset_of_a_vector_env():
    envs = gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make("swarm/calc-v0", time=SIMPLE_TIME, time_cap_s=100)] * 2,
        autoreset_mode=gymnasium.vector.AutoresetMode.NEXT_STEP,
    )
    try:
        _, infos = envs.reset(seed=0)
        assert list(infos["time_left"]) == [100, 100]
        envs.call("set_time_cap", 30.0)
        _, _, terminated, _, _ = envs.step([call("done", tokens=1)] * 2)
        assert terminated.all()
        _, _, _, _, infos = envs.step([call("list_files")] * 2)  # the automatic reset
        assert list(infos["time_left"]) == [30, 30]
    finally:
        envs.close()


def test_infinite_time_cap_is_accepted_in_config_reset_and_set_time_cap(make_env):
    env = make_env("calc", num_agents=2, time_cap_s=math.inf)
    _, infos = env.reset(seed=0)
    assert infos["agent_0"]["time_left"] == math.inf
    env.set_time_cap(math.inf)
    _, infos = env.reset(seed=0, options={"time_cap": math.inf})
    assert infos["agent_0"]["time_left"] == math.inf
    # Everyone waits for a message nobody sends: under no cap, nothing can ever happen.
    _, _, _, trunc, infos = env.step({a: call("wait", tokens=1) for a in env.agents})
    assert all(trunc.values()) and infos["agent_0"]["truncation"] == "stalled"
    assert math.isfinite(env.view().time)  # the clock never jumps to infinity


@pytest.mark.parametrize("bad", [0, -3, math.nan, "60", True, None])
def test_bad_time_caps_name_the_field(make_env, bad):
    env = make_env("calc", num_agents=1)
    if bad is not None:
        with pytest.raises(ConfigError, match="time_cap"):
            env.reset(options={"time_cap": bad})
    with pytest.raises(ConfigError, match="time_cap"):
        env.set_time_cap(bad)
    with pytest.raises(ConfigError, match="time_cap_s"):
        swarm_envs.parallel_env("calc", time_cap_s=bad)


def test_reset_options_unknown_keys_warn_with_the_allowed_ones(make_env):
    env = make_env("calc", num_agents=1, time_cap_s=100)
    with pytest.warns(UnknownResetOption, match=r"\['time_caps'\].*allowed: \['time_cap'\]"):
        _, infos = env.reset(options={"time_caps": 5})
    assert infos["agent_0"]["time_left"] == 100
    with pytest.raises(ConfigError, match="options"):
        env.reset(options=[("time_cap", 5)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(options={"time_cap": 5})


# --------------------------------------------------------------- memory


def test_environments_are_collected_after_close_and_del():
    refs = []
    for _ in range(3):
        for env in make_all_forms():
            env.reset(seed=0)
            if form(env) != "gym":
                env.observation_space("agent_0")
                env.action_space("agent_0")
            env.close()
            refs.append(weakref.ref(env.unwrapped))
            del env
    assert harness.all_collected(refs), [r() for r in refs]


def test_spaces_are_plain_attributes():
    env = swarm_envs.parallel_env("calc", num_agents=3)
    try:
        assert env.observation_space("agent_1") is env.observation_spaces["agent_1"]
        assert env.action_space("agent_2") is env.action_spaces["agent_2"]
        with pytest.raises(swarm_envs.error.Error, match="unknown agent 'agent_9'"):
            env.observation_space("agent_9")
    finally:
        env.close()


def test_parallel_idle_ready_agent_keeps_its_result(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    read = call("read_file", tokens=1, path="calc/numbers.py")
    obs, *_, infos = env.step({"agent_0": read, "agent_1": read})
    assert infos["agent_1"]["ready"] and "def gcd" in obs["agent_1"]
    obs, *_, infos = env.step({"agent_0": call("list_files", tokens=1)})  # agent_1 thinks on
    assert infos["agent_1"]["ready"] and infos["agent_1"]["time"] == 2.0
    assert "def gcd" in obs["agent_1"]


def test_per_test_is_current_when_the_count_does_not_change(make_env):
    env = make_env("calc", num_agents=1)
    env.reset(seed=0)
    _, reward, info = step_one(
        env, call("write_file", tokens=1, path="calc/numbers.py", content=GCD + STUB_MEAN)
    )
    assert reward == 2.0
    _, reward, info = step_one(
        env, call("write_file", tokens=1, path="calc/numbers.py", content=STUB_GCD + MEAN)
    )
    assert reward == 0.0 and info["tests_passed"] == 2
    per = info["per_test"]
    assert per["tests/test_calc.py::TestMean::test_basic"] is True
    assert per["tests/test_calc.py::TestGcd::test_basic"] is False


def test_time_cap_option_applies_to_one_rollout(make_env):
    env = make_env("calc", num_agents=1, time_cap_s=100)
    _, infos = env.reset(seed=0, options={"time_cap": 7})
    assert infos["agent_0"]["time_left"] == 7
    _, infos = env.reset(seed=0)
    assert infos["agent_0"]["time_left"] == 100


def test_observation_is_capped_with_a_marker_and_keeps_status_and_messages(make_env):
    env = make_env("calc", num_agents=2, max_observation_chars=600)
    env.reset(seed=0)
    big = "\n".join(f"line {i} " + "x" * 40 for i in range(200))
    env.step(
        {
            "agent_0": call("write_file", tokens=1, path="big.txt", content=big),
            "agent_1": call("send_message", tokens=1, to="agent_0", text="ping"),  # at t=4
        }
    )
    obs, _, _, _, infos = env.step(
        {
            "agent_0": call("read_file", tokens=3, path="big.txt"),  # observes at t=6
            "agent_1": call("wait", tokens=1, seconds=100),
        }
    )
    o = obs["agent_0"]
    assert infos["agent_0"]["ready"] and infos["agent_0"]["error"] is None
    assert len(o) <= 600
    assert "truncated" in o and "line 0 " in o
    assert "ping" in o and infos["agent_0"]["messages"][0]["text"] == "ping"
    v = env.view()
    team = observation.team(v.agents, "agent_0")
    status = observation.status_line(
        v.time, v.time_cap, v.tests_passed, v.tests_total, "agent_0", team
    )
    assert o.endswith(status)
    assert env.observation_space("agent_0").contains(o)


def test_ignored_busy_action_costs_no_tokens(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    env.step({"agent_0": call("list_files", tokens=1), "agent_1": call("list_files", tokens=5)})
    tokens = env.view().tokens
    _, _, _, _, infos = env.step(
        {"agent_0": call("list_files", tokens=1), "agent_1": call("list_files", tokens=99)}
    )
    assert env.view().tokens == tokens + TOKEN
    assert infos["agent_1"]["error"] is None


def test_reset_infos_say_which_protections_are_active():
    env = swarm_envs.parallel_env("calc", num_agents=2)
    _, infos = env.reset(seed=0)
    sandbox = infos["agent_0"]["sandbox"]
    assert sandbox["backend"] == "local"
    assert sandbox["protections"]["rlimits"] is True
    env.close()
