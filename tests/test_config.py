import pytest

import swarm_envs
from swarm_envs.core.config import EnvConfig
from swarm_envs.error import ConfigError, UnknownTask


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"num_agents": 0}, "num_agents"),
        ({"sync": "lockstep"}, "sync"),
        ({"time_cap_s": -1}, "time_cap_s"),
        ({"time": {"tool_s": {"teleport": 1.0}}}, "time.tool_s"),
        ({"time": {"speed": 3}}, "time.speed"),
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"colour": "blue"}, "colour"),
        ({"token_budget": 0}, "token_budget"),
        ({"sandbox": "vm"}, "sandbox"),
    ],
)
def test_invalid_config_names_field(kwargs, field):
    with pytest.raises(ConfigError) as e:
        EnvConfig.build(**kwargs)
    assert field in str(e.value)


def test_invalid_config_lists_allowed_values():
    with pytest.raises(ConfigError, match="'event'.*'round'"):
        swarm_envs.parallel_env("calc", sync="lockstep")


def test_unknown_task_suggests():
    with pytest.raises(UnknownTask, match="did you mean: calc"):
        swarm_envs.parallel_env("calcc")


def test_defaults_and_tool_override_keeps_others():
    cfg = EnvConfig.build(time={"tool_s": {"read_file": 9.0}})
    assert cfg.time.tool_s["read_file"] == 9.0
    assert cfg.time.tool_s["write_file"] == 0.5
    assert cfg.sync == "event"
