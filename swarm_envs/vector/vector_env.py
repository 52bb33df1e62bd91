"""`SwarmVectorEnv` and `make_vec`: many swarm environments stepped together."""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from gymnasium.vector import AutoresetMode

from swarm_envs.core.channels import agent_names
from swarm_envs.core.config import EnvConfig, check_time_cap
from swarm_envs.distributed import (
    EnvFactory,
    Host,
    InlineHost,
    ProcessHost,
    RayHost,
    WorkerError,
    check_workers,
    usable_cores,
)
from swarm_envs.envs.registration import parallel_env
from swarm_envs.error import ConfigError, Error
from swarm_envs.tasks import Task, get_task, task_roots

if TYPE_CHECKING:
    from swarm_envs.envs.parallel import SwarmParallelEnv

logger = logging.getLogger("swarm_envs")

#: the truncation reason of an episode whose env (or its worker) failed
ENV_FAILED = "env_failed"
VECTORIZATION_MODES = ("sync", "async", "ray")
VectorizationMode = Literal["sync", "async", "ray"]

StepResult = tuple[dict[str, str], dict[str, float], dict[str, bool], dict[str, bool], dict]


# ---------------------------------------------------------------------- recipes


@dataclass(frozen=True)
class EnvRecipe:
    """How to build one parallel environment: a task and its configuration (picklable).

    Attributes:
        task: a task id (`"calc-v0"`), name, or a task folder (for tasks that are not
            bundled: a worker registers the folder itself).
        config: keyword arguments of `swarm_envs.parallel_env` (`num_agents`, ...).
    """

    task: str
    config: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, task: str | Path | Task = "calc", **config: Any) -> EnvRecipe:
        """A recipe, checked here: an unknown task or a bad option fails now, not in a worker."""
        t = get_task(task)
        EnvConfig.build(**config)
        bundled = t.root.parent.resolve() in task_roots()
        return cls(t.id if bundled else str(t.root), dict(config))

    def __call__(self) -> SwarmParallelEnv:
        """Build the environment."""
        return parallel_env(self.task, **self.config)

    @property
    def num_agents(self) -> int:
        """The size of the swarm this recipe builds."""
        return EnvConfig.build(**self.config).num_agents


@dataclass(frozen=True)
class EnvFailure:
    """An env whose worker died, hung or raised; its episode was marked failed."""

    index: int
    seed: int | None
    error: str


# ---------------------------------------------------------------------- one env


class _Slot:
    """One env and its autoreset state; lives wherever the env lives (process, actor)."""

    def __init__(self, make: EnvFactory, mode: AutoresetMode, stride: int, seed: int | None):
        self.make = make
        self.mode = mode
        self.stride = stride  # envs in the vector: successive seeds stay distinct
        self.env: SwarmParallelEnv | None = None
        self.seed = seed  # the seed of the running episode (the next one's, before a reset)
        self.needs_reset = True
        self.time_cap: float | None = None

    def _env(self) -> SwarmParallelEnv:
        if self.env is None:
            self.env = self.make()
            if self.time_cap is not None:
                self.env.set_time_cap(self.time_cap)
        return self.env

    def _next_seed(self) -> int | None:
        return None if self.seed is None else self.seed + self.stride

    def reset(self, seed: int | None, options: dict | None) -> tuple[dict, dict, list[str]]:
        env = self._env()
        obs, infos = env.reset(seed=seed, options=options)
        self.seed, self.needs_reset = seed, False
        return obs, infos, _ready(env, infos)

    def step(self, actions: Mapping[str, Any]) -> tuple[StepResult, list[str], int | None]:
        if self.needs_reset:  # next-step autoreset, or the first step after a failure
            obs, infos, ready = self.reset(self._next_seed(), None)
            zeros = dict.fromkeys(obs, 0.0)
            false = dict.fromkeys(obs, False)
            return (obs, zeros, false, dict(false), infos), ready, self.seed
        env = self._env()
        obs, rewards, terms, truncs, infos = env.step(dict(actions))
        if env.agents:
            return (obs, rewards, terms, truncs, infos), _ready(env, infos), self.seed
        if self.mode is AutoresetMode.SAME_STEP:
            new_obs, new_infos, ready = self.reset(self._next_seed(), None)
            infos = {
                a: {**new_infos.get(a, {}), "final_obs": obs[a], "final_info": infos[a]}
                for a in obs
            }
            return (new_obs, rewards, terms, truncs, infos), ready, self.seed
        self.needs_reset = True
        return (obs, rewards, terms, truncs, infos), [], self.seed

    def set_time_cap(self, seconds: float) -> None:
        self.time_cap = seconds
        if self.env is not None:
            self.env.set_time_cap(seconds)

    def call(self, name: str, args: tuple, kwargs: dict) -> Any:
        attr = getattr(self._env(), name)
        return attr(*args, **kwargs) if callable(attr) else attr

    def fail(self) -> None:
        """After an exception: drop the env (its state is unknown); rebuild at the next reset."""
        self.close()
        self.needs_reset = True

    def close(self) -> None:
        env, self.env = self.env, None
        if env is not None:
            try:
                env.close()
            except Exception as e:  # releasing is best effort
                logger.warning("closing an env failed: %r", e)


def _ready(env: Any, infos: Mapping[str, Any]) -> list[str]:
    ready = getattr(env, "ready_agents", None)  # a swarm env knows without a scan
    if ready is not None:
        return list(ready)
    return [a for a, info in infos.items() if info.get("ready")]


#: what a group answers for one env: ("ok", value) or ("failed", error text)
Reply = tuple[Literal["ok", "failed"], Any]


class EnvGroup:
    """Some envs of a vector env, stepped in turn; one per worker process or Ray actor.

    Every method answers per env, so that one env raising fails only its own episode.
    """

    def __init__(
        self,
        factories: Mapping[int, EnvFactory],
        mode: AutoresetMode,
        stride: int,
        seeds: Mapping[int, int | None],
        time_cap: float | None = None,
    ):
        self.slots = {i: _Slot(f, mode, stride, seeds.get(i)) for i, f in factories.items()}
        if time_cap is not None:
            for slot in self.slots.values():
                slot.time_cap = time_cap

    def _each(self, indices: Iterable[int], fn: Callable[[int, _Slot], Any]) -> dict[int, Reply]:
        out: dict[int, Reply] = {}
        for i in indices:
            slot = self.slots[i]
            try:
                out[i] = ("ok", fn(i, slot))
            except Exception as e:
                logger.warning("env %d failed: %r", i, e)
                out[i] = ("failed", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=8)}")
                slot.fail()
        return out

    def reset(self, requests: Mapping[int, tuple[int | None, dict | None]]) -> dict[int, Reply]:
        """Reset the given envs: index -> (seed, options)."""
        return self._each(requests, lambda i, s: s.reset(*requests[i]))

    def step(self, actions: Mapping[int, Mapping[str, Any]]) -> dict[int, Reply]:
        """Step every env of the group (an env missing from `actions` gets none)."""
        return self._each(self.slots, lambda i, s: s.step(actions.get(i, {})))

    def call(self, name: str, args: tuple, kwargs: dict) -> dict[int, Reply]:
        """Call a method (or read an attribute) of every env of the group."""
        return self._each(self.slots, lambda i, s: s.call(name, args, kwargs))

    def set_time_cap(self, seconds: float) -> dict[int, Reply]:
        """Set the sticky time cap of every env of the group."""
        return self._each(self.slots, lambda i, s: s.set_time_cap(seconds))

    def close(self) -> None:
        """Close every env of the group."""
        for slot in self.slots.values():
            slot.close()


# ---------------------------------------------------------------------- the vector env


class SwarmVectorEnv:
    """`num_envs` PettingZoo parallel swarm environments stepped together.

    Args:
        env_fns: one recipe per env (`EnvRecipe`) or any picklable zero-argument factory
            of a `SwarmParallelEnv`.
        vectorization_mode: `"sync"` (in this process, one after another), `"async"`
            (worker processes, stepped at the same time) or `"ray"` (Ray actors; see
            `swarm_envs.distributed`).
        num_workers: worker processes or Ray actors (async, ray); envs are split over
            them in contiguous groups. Default: one per env, at most one per core.
        autoreset_mode: `AutoresetMode.NEXT_STEP` (default) or `SAME_STEP`.
        timeout_s: wall-clock seconds a worker may take for one call (a reset, a step)
            before it is killed and its envs' episodes marked failed; None: no limit.
        context: multiprocessing start method of the workers (default `default_context()`).
        ray_address: the Ray cluster to join (ray mode); None starts or joins a local one.
    """

    metadata: dict[str, Any]

    def __init__(
        self,
        env_fns: Sequence[EnvFactory],
        *,
        vectorization_mode: VectorizationMode = "sync",
        num_workers: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        timeout_s: float | None = 600.0,
        context: str | None = None,
        ray_address: str | None = None,
    ):
        if not env_fns:
            raise ConfigError("env_fns: expected at least one env recipe or factory")
        if vectorization_mode not in VECTORIZATION_MODES:
            raise ConfigError(
                f"vectorization_mode={vectorization_mode!r}: expected one of {VECTORIZATION_MODES}"
            )
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            mode = None
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ConfigError(
                f"autoreset_mode={autoreset_mode!r}: expected AutoresetMode.NEXT_STEP or SAME_STEP"
            )
        if timeout_s is not None and not (
            isinstance(timeout_s, int | float) and not isinstance(timeout_s, bool) and timeout_s > 0
        ):
            raise ConfigError(f"timeout_s={timeout_s!r}: expected a positive number of seconds")
        self.env_fns = list(env_fns)
        self.num_envs = len(self.env_fns)
        self.vectorization_mode = vectorization_mode
        self.autoreset_mode = mode
        self.timeout_s = timeout_s
        self.context = context
        self.ray_address = ray_address
        self.possible_agents, self.metadata = self._probe()
        self.metadata["autoreset_mode"] = mode
        if vectorization_mode == "sync":
            num_workers = 1
        elif num_workers is None:
            num_workers = min(self.num_envs, usable_cores())
        elif not isinstance(num_workers, int) or isinstance(num_workers, bool) or num_workers < 1:
            raise ConfigError(f"num_workers={num_workers!r}: expected a positive integer")
        num_workers = min(num_workers, self.num_envs)
        if vectorization_mode == "async":
            check_workers(num_workers)
        self.num_workers = num_workers
        # Contiguous groups: env i lives in group _group_of[i].
        self.groups = [list(g) for g in _split(range(self.num_envs), num_workers)]
        self._group_of = {i: g for g, members in enumerate(self.groups) for i in members}
        self.seeds: list[int | None] = [None] * self.num_envs
        self.time_cap: float | None = None
        self.failures: list[EnvFailure] = []
        self.ready_agents: list[list[str]] = [[] for _ in range(self.num_envs)]
        self._last: list[tuple[dict, dict]] = [({}, {}) for _ in range(self.num_envs)]
        self.closed = False
        self.hosts: list[Host] = []
        try:
            for g in range(num_workers):
                self.hosts.append(self._host(g))
            for host in self.hosts:  # a worker that cannot start is an error now
                host.started(None if timeout_s is None else time.monotonic() + timeout_s)
        except BaseException:
            self.close()
            raise

    def _probe(self) -> tuple[list[list[str]], dict[str, Any]]:
        """Every env's agents, without building it when it is a recipe."""
        agents: list[list[str]] = []
        metadata: dict[str, Any] | None = None
        for fn in self.env_fns:
            if isinstance(fn, EnvRecipe) and metadata is not None:
                agents.append(agent_names(fn.num_agents))
                continue
            if not callable(fn):
                raise ConfigError(f"env_fns: {fn!r} is neither an EnvRecipe nor a factory")
            env = fn()  # built, not reset: no sandbox yet
            try:
                agents.append(list(env.possible_agents))
                metadata = metadata or dict(env.metadata)
            finally:
                env.close()
        return agents, dict(metadata or {})

    def _host(self, g: int) -> Host:
        members = self.groups[g]
        factories = {i: self.env_fns[i] for i in members}
        seeds = {i: self.seeds[i] for i in members}  # a rebuilt env goes on from there
        build = _GroupBuilder(factories, self.autoreset_mode, self.num_envs, seeds, self.time_cap)
        if self.vectorization_mode == "sync":
            return InlineHost(build())
        if self.vectorization_mode == "async":
            return ProcessHost(
                build, f"swarm-envs worker {g} (envs {_span(members)})", self.context
            )
        return RayHost(build, self.ray_address)

    # ------------------------------------------------------------------ calls

    def _broadcast(self, method: str, args_of: Callable[[int], tuple]) -> dict[int, Reply]:
        """Call every host at once, then gather; a host that fails fails its envs."""
        self._assert_open()
        deadline = None if self.timeout_s is None else time.monotonic() + self.timeout_s
        replies: dict[int, Reply] = {}
        sent: list[int] = []
        for g, host in enumerate(self.hosts):
            try:
                host.submit(method, *args_of(g))
                sent.append(g)
            except WorkerError as e:
                replies.update(self._replace(g, str(e)))
        for g in sent:
            try:
                replies.update(self.hosts[g].result(deadline))
            except WorkerError as e:
                replies.update(self._replace(g, str(e)))
        return replies

    def _replace(self, g: int, error: str) -> dict[int, Reply]:
        """A host died or hung: every env in it fails; a fresh host takes its place."""
        old = self.hosts[g]
        try:
            old.close()
        except Exception as e:  # a dead host closes as it can
            logger.warning("closing a failed worker: %r", e)
        self.hosts[g] = self._host(g)
        return {i: ("failed", error) for i in self.groups[g]}

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None
    ) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
        """Reset every env: `seed` gives env i `seed + i`, or one seed per env."""
        if seed is None or isinstance(seed, int):
            seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed) if isinstance(seed, Sequence) and not isinstance(seed, str) else []
            bad = [
                x for x in seeds if x is not None and (type(x) is bool or not isinstance(x, int))
            ]
            if not seeds or bad:
                raise ConfigError(
                    f"reset(seed={seed!r}): expected an int, None, or one int (or None) per env"
                )
            if len(seeds) != self.num_envs:
                raise ConfigError(
                    f"reset(seed=[...]): {len(seeds)} seeds for {self.num_envs} envs; "
                    "pass one per env, or one int"
                )
        self.seeds = seeds
        self._last = [({}, {}) for _ in range(self.num_envs)]
        replies = self._broadcast(
            "reset", lambda g: ({i: (seeds[i], options) for i in self.groups[g]},)
        )
        obs: list[dict[str, str]] = []
        infos: list[dict[str, Any]] = []
        for i in range(self.num_envs):
            status, value = replies[i]
            if status == "ok":
                o, inf, ready = value
                self._last[i] = (o, inf)
                self.ready_agents[i] = ready
            else:
                failed = self._failed(i, value)
                o, inf = failed[0], failed[4]
            obs.append(o)
            infos.append(inf)
        return obs, infos

    def step(
        self, actions: Sequence[Mapping[str, Any] | None]
    ) -> tuple[
        list[dict[str, str]],
        list[dict[str, float]],
        list[dict[str, bool]],
        list[dict[str, bool]],
        list[dict[str, Any]],
    ]:
        """Step every env with its actions (a dict per env; `{}` or None: none).

        Returns one PettingZoo dict per env for observations, rewards, terminations,
        truncations and infos. An env whose episode ended is reset by autoreset.
        """
        per_env = self._check_actions(actions)
        replies = self._broadcast(
            "step", lambda g: ({i: per_env[i] for i in self.groups[g] if per_env[i]},)
        )
        out: tuple[list, list, list, list, list] = ([], [], [], [], [])
        for i in range(self.num_envs):
            status, value = replies[i]
            if status == "ok":
                result, ready, seed = value
                self.ready_agents[i] = ready
                self.seeds[i] = seed
                self._last[i] = (result[0], result[4])
            else:
                result = self._failed(i, value)
            for column, part in zip(out, result, strict=True):
                column.append(part)
        return out

    def _check_actions(self, actions: Sequence[Mapping[str, Any] | None]) -> list[Mapping]:
        if isinstance(actions, Mapping) or not isinstance(actions, Sequence):
            raise ConfigError(
                f"actions: expected a list of {self.num_envs} dicts (one per env), "
                f"got {type(actions).__name__}"
            )
        if len(actions) != self.num_envs:
            raise ConfigError(
                f"actions: {len(actions)} action dicts for {self.num_envs} envs; pass one per env"
            )
        out: list[Mapping] = []
        for i, a in enumerate(actions):
            if a is None:
                out.append({})
                continue
            if not isinstance(a, Mapping):
                raise ConfigError(
                    f"actions[{i}]: expected a dict agent -> action, got {type(a).__name__}"
                )
            known = self.possible_agents[i]
            unknown = [n for n in a if n not in known]
            if unknown:
                raise ConfigError(
                    f"actions[{i}]: unknown agent(s) {unknown[:5]}; env {i} has agents "
                    f"{known[0]} .. {known[-1]}"
                )
            out.append(a)
        return out

    def _failed(self, i: int, error: str) -> StepResult:
        """Mark env i's episode failed: truncated, with the failure in every agent's info."""
        seed = self.seeds[i]
        failure = EnvFailure(i, seed, error)
        self.failures.append(failure)
        logger.warning("env %d (seed %s) failed; its episode is marked failed: %s", i, seed, error)
        obs, infos = self._last[i]
        names = list(obs) or self.possible_agents[i]
        marked = {
            a: {
                **infos.get(a, {}),
                "ready": False,
                "termination": None,
                "truncation": ENV_FAILED,
                "env_failure": {"index": i, "seed": seed, "error": error},
            }
            for a in names
        }
        self.ready_agents[i] = []
        false = dict.fromkeys(names, False)
        return (
            {a: obs.get(a, "") for a in names},
            dict.fromkeys(names, 0.0),
            false,
            dict.fromkeys(names, True),
            marked,
        )

    def set_time_cap(self, seconds: float) -> None:
        """Set the time cap (virtual seconds) of every later episode of every env (sticky).

        It holds for automatic resets and for envs rebuilt after a failure.
        """
        self.time_cap = check_time_cap(seconds, "time_cap")
        self._broadcast("set_time_cap", lambda g: (self.time_cap,))

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call a method (or read an attribute) of every env; one result per env.

        An env that raises gives the error text as `EnvFailure` in its place.
        """
        replies = self._broadcast("call", lambda g: (name, args, kwargs))
        return [
            v if s == "ok" else EnvFailure(i, self.seeds[i], v)
            for i, (s, v) in sorted(replies.items())
        ]

    def get_attr(self, name: str) -> list[Any]:
        """An attribute of every env."""
        return self.call(name)

    # ------------------------------------------------------------------ lifecycle

    def _assert_open(self) -> None:
        if self.closed:
            raise Error(f"{type(self).__name__} is closed; build a new one")

    def close(self) -> None:
        """Close every env and stop every worker (twice-safe; always returns)."""
        if self.closed:
            return
        self.closed = True
        for host in self.hosts:
            try:
                host.close()
            except Exception as e:
                logger.warning("closing a worker failed: %r", e)

    def __enter__(self) -> SwarmVectorEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "closed", True) and hasattr(self, "hosts"):
            self.close()

    def __repr__(self) -> str:
        return (
            f"SwarmVectorEnv(num_envs={self.num_envs}, mode={self.vectorization_mode!r}, "
            f"workers={self.num_workers})"
        )


@dataclass(frozen=True)
class _GroupBuilder:
    """Builds an `EnvGroup` where it will live (picklable: recipes, not envs)."""

    factories: Mapping[int, EnvFactory]
    mode: AutoresetMode
    stride: int
    seeds: Mapping[int, int | None]
    time_cap: float | None

    def __call__(self) -> EnvGroup:
        return EnvGroup(self.factories, self.mode, self.stride, self.seeds, self.time_cap)


def _split(items: range, parts: int) -> list[range]:
    """`items` in `parts` contiguous runs of near-equal length."""
    n = len(items)
    bounds = [n * k // parts for k in range(parts + 1)]
    return [items[bounds[k] : bounds[k + 1]] for k in range(parts)]


def _span(members: Sequence[int]) -> str:
    return f"{members[0]}" if len(members) == 1 else f"{members[0]}-{members[-1]}"


def make_vec(
    task: str | Path | Task = "calc",
    num_envs: int = 2,
    *,
    vectorization_mode: VectorizationMode = "sync",
    num_workers: int | None = None,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    timeout_s: float | None = 600.0,
    context: str | None = None,
    ray_address: str | None = None,
    **config: Any,
) -> SwarmVectorEnv:
    """`num_envs` copies of `parallel_env(task, **config)`, stepped together.

    See `SwarmVectorEnv` for the arguments; `config` is `EnvConfig`'s (num_agents, ...).
    """
    if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
        raise ConfigError(f"num_envs={num_envs!r}: expected a positive integer")
    recipe = EnvRecipe.of(task, **config)
    return SwarmVectorEnv(
        [recipe] * num_envs,
        vectorization_mode=vectorization_mode,
        num_workers=num_workers,
        autoreset_mode=autoreset_mode,
        timeout_s=timeout_s,
        context=context,
        ray_address=ray_address,
    )
