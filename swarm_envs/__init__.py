"""swarm-envs: PettingZoo environments in which a swarm of agents works on one software project.

    >>> import swarm_envs
    >>> env = swarm_envs.parallel_env("calc", num_agents=4)
    >>> observations, infos = env.reset(seed=0)

The reward is collective: the change in the number of the project's tests that pass.
"""

from swarm_envs.actions import ToolCall, tool_schemas
from swarm_envs.config import EnvConfig, TimeModel
from swarm_envs.outcome import AgentInfo, StepOutcome
from swarm_envs.registration import env, parallel_env, raw_env, register_envs
from swarm_envs.schedule import TimeCapSchedule
from swarm_envs.task import Task, get_task, register_task, registered

__version__ = "0.1.0"

__all__ = [
    "AgentInfo",
    "EnvConfig",
    "Task",
    "StepOutcome",
    "TimeCapSchedule",
    "TimeModel",
    "ToolCall",
    "__version__",
    "env",
    "get_task",
    "parallel_env",
    "raw_env",
    "register_envs",
    "register_task",
    "registered",
    "tool_schemas",
]

register_envs()
