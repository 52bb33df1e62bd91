import math

import pytest

from swarm_envs import TimeCapSchedule
from swarm_envs.error import ConfigError


def test_constant():
    s = TimeCapSchedule(start=600)
    assert s.value() == s.value(10_000) == 600


def test_linear():
    s = TimeCapSchedule(kind="linear", start=100, end=300, total_steps=10)
    assert s.value(0) == 100
    assert s.value(5) == 200
    assert s.value(10) == s.value(50) == 300


def test_geometric():
    s = TimeCapSchedule(kind="geometric", start=100, end=1600, total_steps=4)
    assert [round(s.value(i)) for i in range(6)] == [100, 200, 400, 800, 1600, 1600]


def test_step_and_advance():
    s = TimeCapSchedule(kind="step", start=60, end=500, every=3, factor=2)
    caps = [s.value()] + [s.advance() for _ in range(12)]
    assert caps[:3] == [60, 60, 60]
    assert caps[3] == 120
    assert max(caps) == 500
    assert s.is_finished


def test_bad_schedule_is_a_config_error_naming_the_field():
    with pytest.raises(ConfigError, match="kind='linear' needs an 'end' cap"):
        TimeCapSchedule(kind="linear", start=10)
    with pytest.raises(ConfigError, match="field 'start' = 0"):
        TimeCapSchedule(start=0)
    s = TimeCapSchedule(start=10)
    with pytest.raises(ConfigError, match="field 'step' = -1"):
        s.step = -1
    with pytest.raises(ConfigError, match="step=-2"):
        s.value(-2)
    assert math.isclose(TimeCapSchedule(kind="linear", start=1, end=2, total_steps=4)(2), 1.5)
