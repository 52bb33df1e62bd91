"""Menu mode: a swarm that chooses among discrete moves over a task's units.

Text mode is for language models; menu mode is for classic multi-agent RL and for
learning on a CPU in minutes. It is a layer over the text environment, not a second
engine: every move becomes tool calls of the text env (a claim is a `post` on
#general, applying a candidate is `edit_file`, running a unit's tests is
`run_tests`), so the clock, the workspace, the sandbox, the messages, the scorer
and the collective reward are the text env's own.

The candidate implementations of each unit (the reference and wrong-but-plausible
mutants that the unit's tests detect) come from `swarm_envs.generation.candidates`; they
are computed once per task and cached in memory and on disk, so a reset costs what a
text-mode reset costs.

`instances=` (a task distribution) is rejected: the menu's unit slots, candidates and
observation size are laid out for one task's units, and instances have units of their
own; make one menu env per instance, or use text mode.

Modules, each owning one concern (this package re-exports the public names):
`config` (the options), `layout` (where each move and feature lives), `code` (a unit's
function bodies from source), `features` (what is observed, and the duplicated-work
metric), `parallel`, `aec` and `gym_env` (the three API forms).

Layer: inside `swarm_envs.envs`, above the text forms it wraps and below registration;
may import the text env's public API, `swarm_envs.generation` (candidates),
`swarm_envs.scoring` (test selection), `swarm_envs.tasks` and `swarm_envs.core`.
"""

from swarm_envs.envs.menu.aec import menu_aec_env
from swarm_envs.envs.menu.code import UnitView, bodies
from swarm_envs.envs.menu.config import MOVE_KINDS, MenuConfig, MoveKind, split_config
from swarm_envs.envs.menu.features import (
    AGENT_ID_SLOTS,
    DEPENDENCY_FEATURE,
    GLOBAL_FEATURES,
    UNIT_FEATURES,
    WorkMeter,
)
from swarm_envs.envs.menu.gym_env import MenuGymEnv
from swarm_envs.envs.menu.layout import MenuLayout, Move
from swarm_envs.envs.menu.parallel import MenuParallelEnv

__all__ = [
    "AGENT_ID_SLOTS",
    "DEPENDENCY_FEATURE",
    "GLOBAL_FEATURES",
    "MOVE_KINDS",
    "UNIT_FEATURES",
    "MenuConfig",
    "MenuGymEnv",
    "MenuLayout",
    "MenuParallelEnv",
    "Move",
    "MoveKind",
    "UnitView",
    "WorkMeter",
    "bodies",
    "menu_aec_env",
    "split_config",
]
