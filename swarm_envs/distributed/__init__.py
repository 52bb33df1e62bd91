"""Rollouts beyond one process: worker pools of processes or Ray actors, and Ray vector envs.

Two ways to scale out, each with the same interface in-process, on worker processes and
on Ray (extra `ray`), switched by one argument:

- `SwarmVectorEnv(..., vectorization_mode="ray")` (or `make_vec`): the envs live in Ray
  actors and the policy in the caller, as with worker processes (`swarm_envs.vector`).
- `WorkerPool`: whole rollout workers, each holding its envs *and* its agents, run
  `fn(item)` for a stream of items; `run_rollout(RolloutJob(...))` is the usual `fn`:
  one episode with scripted, LLM or any picklable agents, its `Trajectory` back.

      with WorkerPool(4, backend="ray") as pool:          # or backend="process"
          for result in pool.map(run_rollout, jobs):
              ...                                         # result.value is a Trajectory

  A worker keeps one env per recipe alive between episodes, so the sandbox, the scorer's
  workers and the task's collected tests are paid once per worker, not per episode. A job
  that raises, or a worker that dies or outlives `timeout_s`, gives a failed `WorkResult`
  (its index, its seed, the error) and the worker is replaced; the other jobs go on.

Ray is the distributed engine (no home-made layer): `connect_ray(address)` joins a
cluster (`"auto"`, `"host:port"`, `"ray://host:port"`) or starts a local one, and an
address that cannot be reached fails within seconds with a `RayUnavailable` that says so.

Two modules: `transport` (how a worker is hosted: in this process, a worker process or
a Ray actor, and joining Ray) and `pool` (the worker pool and the rollout jobs it runs,
above the transport). This package re-exports their public names.

Layer: above `swarm_envs.agents` (a worker runs whole rollouts) and the environments.
"""

from swarm_envs.distributed.pool import (
    AgentsFactory,
    RolloutJob,
    Runner,
    WorkerPool,
    WorkResult,
    run_rollout,
    worker_env,
)
from swarm_envs.distributed.transport import (
    BACKENDS,
    CLOSE_TIMEOUT_S,
    RAY_CONNECT_TIMEOUT_S,
    EnvFactory,
    Host,
    InlineHost,
    ProcessHost,
    RayAddressIgnored,
    RayHost,
    RayUnavailable,
    TooManyWorkers,
    WorkerError,
    WorkerRaised,
    check_ray_address,
    check_workers,
    connect_ray,
    default_context,
    usable_cores,
)

__all__ = [
    "BACKENDS",
    "CLOSE_TIMEOUT_S",
    "RAY_CONNECT_TIMEOUT_S",
    "AgentsFactory",
    "EnvFactory",
    "Host",
    "InlineHost",
    "ProcessHost",
    "RayAddressIgnored",
    "RayHost",
    "RayUnavailable",
    "RolloutJob",
    "Runner",
    "TooManyWorkers",
    "WorkResult",
    "WorkerError",
    "WorkerPool",
    "WorkerRaised",
    "check_ray_address",
    "check_workers",
    "connect_ray",
    "default_context",
    "run_rollout",
    "usable_cores",
    "worker_env",
]
