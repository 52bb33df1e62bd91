"""swarm-envs: PettingZoo environments in which a swarm of agents works on one software project.

    >>> import swarm_envs
    >>> env = swarm_envs.parallel_env("calc", num_agents=4)
    >>> observations, infos = env.reset(seed=0)

The reward is collective: the change in the number of the project's tests that pass.
"""

from swarm_envs.agents.rollout import Trajectory, arollout, rollout
from swarm_envs.core.actions import Action, ToolCall, Usage, tool_schemas
from swarm_envs.core.config import EnvConfig, TimeModel
from swarm_envs.core.outcome import AgentInfo, EpisodeView, StepOutcome
from swarm_envs.core.schedule import TimeCapSchedule
from swarm_envs.envs.registration import env, gym_id, parallel_env, raw_env, register_envs
from swarm_envs.tasks import Task, get_task, register_task, registered

__version__ = "0.1.0"

__all__ = [
    "Action",
    "AgentInfo",
    "EnvConfig",
    "EpisodeView",
    "Task",
    "StepOutcome",
    "TimeCapSchedule",
    "TimeModel",
    "Trajectory",
    "ToolCall",
    "Usage",
    "__version__",
    "arollout",
    "env",
    "get_task",
    "gym_id",
    "parallel_env",
    "raw_env",
    "register_envs",
    "register_task",
    "registered",
    "rollout",
    "tool_schemas",
]

register_envs()
