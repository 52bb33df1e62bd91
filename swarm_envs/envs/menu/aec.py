"""Menu mode's AEC form: PettingZoo's own conversion of the parallel form."""

from __future__ import annotations

from typing import Any

from swarm_envs.envs.menu.parallel import MenuParallelEnv
from swarm_envs.tasks import Task


def menu_aec_env(task: str | Task = "calc", num_agents: int = 4, **config: Any):
    """Menu mode as a PettingZoo `AECEnv` (PettingZoo's own conversion of the parallel form)."""
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(MenuParallelEnv(task, num_agents=num_agents, **config))
