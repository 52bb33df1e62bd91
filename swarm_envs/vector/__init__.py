"""Many swarm environments stepped together: in this process, in worker processes, on Ray.

    envs = swarm_envs.vector.make_vec("calc", num_envs=4, num_agents=2, vectorization_mode="async")
    observations, infos = envs.reset(seed=0)            # one PettingZoo dict per env
    while training:
        actions = [{a: policy(observations[i][a]) for a in ready}
                   for i, ready in enumerate(envs.ready_agents)]
        observations, rewards, terminations, truncations, infos = envs.step(actions)
    envs.close()

Gymnasium's vector conventions, adapted to agent dicts and text observations:

- `reset(seed=s)` seeds env `i` with `s + i` (or takes one seed per env); `step` takes
  one action dict per env and returns, for each of the five values, one PettingZoo dict
  per env (`observations[i][agent]`), since text observations and swarms of different
  sizes do not stack into arrays.
- **Autoreset** (`metadata["autoreset_mode"]`, Gymnasium's `AutoresetMode`): `NEXT_STEP`
  (the default, as in Gymnasium) resets an env in the step after its episode ended, its
  actions ignored (the step returns the new episode's first observations, zero rewards);
  `SAME_STEP` resets it at once and puts the last observation and info of the ended
  episode in `infos[i][agent]["final_obs"]` and `["final_info"]`. An env's successive
  episodes are seeded `s + i`, `s + i + num_envs`, ... . The time cap set with
  `set_time_cap` is sticky: every later reset, automatic or not, uses it.
- A worker that dies, hangs past `timeout_s` or raises never hangs or breaks the rest:
  its envs' episodes end `truncated` with `infos[i][agent]["truncation"] == "env_failed"`
  and an `"env_failure"` entry (`index`, `seed`, `error`), the failure is logged and kept
  in `failures`, and the env is rebuilt from its recipe at its next reset.
- `close()` always returns: workers that do not stop in time are terminated, then killed.

Workers are built from construction recipes (`EnvRecipe`: a task and a configuration,
or any picklable zero-argument factory), never from pickled live environments: a live
sandbox cannot cross processes. Actions with an agent name that an env does not have are
a programmer mistake: `step` raises `ConfigError` naming the env and the agent, before
any env is stepped.

Layer: above `swarm_envs.distributed` (its worker transports) and the environments;
owns stepping many environments together for a policy in the caller.
"""

from gymnasium.vector import AutoresetMode

from swarm_envs.vector.vector_env import (
    ENV_FAILED,
    VECTORIZATION_MODES,
    EnvFailure,
    EnvGroup,
    EnvRecipe,
    Reply,
    StepResult,
    SwarmVectorEnv,
    VectorizationMode,
    make_vec,
)

__all__ = [
    "AutoresetMode",
    "ENV_FAILED",
    "EnvFailure",
    "EnvGroup",
    "EnvRecipe",
    "Reply",
    "StepResult",
    "SwarmVectorEnv",
    "VECTORIZATION_MODES",
    "VectorizationMode",
    "make_vec",
]
