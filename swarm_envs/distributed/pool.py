"""The rollout pool: whole rollout workers on any transport, and the jobs they run.

`WorkerPool(n, backend=...)` runs `fn(item)` for a stream of items on `n` workers
hosted by `swarm_envs.distributed.transport` (in-process, worker processes, Ray actors);
`run_rollout(RolloutJob(...))` is the usual `fn`: one episode with scripted, LLM or any
picklable agents, its `Trajectory` back. A worker keeps one env per recipe between jobs
(`worker_env`); a job that raises, or a worker that dies or hangs, gives a failed
`WorkResult` and the worker is replaced.

Layer: above the transport and `swarm_envs.agents` (a worker runs whole rollouts).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from swarm_envs.agents.rollout import Trajectory, rollout
from swarm_envs.distributed.transport import (
    BACKENDS,
    Backend,
    EnvFactory,
    Host,
    InlineHost,
    ProcessHost,
    RayHost,
    WorkerError,
    WorkerRaised,
    check_workers,
    connect_ray,
)
from swarm_envs.error import ConfigError, Error

if TYPE_CHECKING:
    from swarm_envs.agents.protocol import Agent
    from swarm_envs.envs.parallel import SwarmParallelEnv

logger = logging.getLogger("swarm_envs")

# ---------------------------------------------------------------------- rollout jobs


AgentsFactory = Callable[["SwarmParallelEnv"], "Mapping[str, Agent] | Sequence[Agent]"]


@dataclass(frozen=True)
class RolloutJob:
    """One episode to run in a worker: the env recipe, the agents, the seed (picklable).

    Attributes:
        env: an `EnvRecipe` (or any picklable env factory).
        agents: `agents(env) -> team`: one agent per agent name (a mapping or a list in
            `env.possible_agents` order), built in the worker.
        seed: the seed of `env.reset`.
        options: the options of `env.reset` (e.g. `{"time_cap": 600}`).
        max_steps: stop the episode after this many steps.
        act_timeout_s: wall-clock limit of one async `act`.
    """

    env: EnvFactory
    agents: AgentsFactory
    seed: int | None = None
    options: Mapping[str, Any] | None = None
    max_steps: int | None = None
    act_timeout_s: float | None = None


class _EnvCache:
    """The envs of one worker, one per recipe, kept between episodes."""

    def __init__(self) -> None:
        self.envs: dict[bytes, SwarmParallelEnv] = {}

    def get(self, recipe: EnvFactory) -> SwarmParallelEnv:
        import cloudpickle

        key = cloudpickle.dumps(recipe)
        env = self.envs.get(key)
        if env is None:
            env = self.envs[key] = recipe()
        return env

    def drop(self, recipe: EnvFactory) -> None:
        import cloudpickle

        env = self.envs.pop(cloudpickle.dumps(recipe), None)
        if env is not None:
            env.close()

    def close(self) -> None:
        for env in self.envs.values():
            try:
                env.close()
            except Exception as e:
                logger.warning("closing an env failed: %r", e)
        self.envs.clear()


_cache = _EnvCache()


@contextmanager
def worker_env(recipe: EnvFactory) -> Iterator[SwarmParallelEnv]:
    """The env of `recipe` in this worker, built at first use and kept between jobs.

    The env a job ran on when it raised is dropped, so the next job builds a fresh one;
    `Runner.close` closes the rest when the worker stops. Any picklable zero-argument
    factory is a recipe (an `EnvRecipe`, or a `functools.partial` of `parallel_env`).
    """
    env = _cache.get(recipe)
    try:
        yield env
    except BaseException:
        _cache.drop(recipe)
        raise


def run_rollout(job: RolloutJob) -> Trajectory:
    """Run one episode of `job` in this process (on this worker's cached env)."""
    with worker_env(job.env) as env:
        return rollout(
            env,
            job.agents(env),
            seed=job.seed,
            options=dict(job.options) if job.options is not None else None,
            act_timeout_s=job.act_timeout_s,
            max_steps=job.max_steps,
        )


class Runner:
    """What lives in a pool's worker: runs `fn(item)`, closes the worker's envs at the end."""

    def run(self, fn: Callable[[Any], Any], item: Any) -> Any:
        """`fn(item)`."""
        return fn(item)

    def close(self) -> None:
        """Close the envs this worker kept."""
        _cache.close()


# ---------------------------------------------------------------------- the pool


@dataclass
class WorkResult:
    """What one item of `WorkerPool.map` gave.

    Attributes:
        index: the item's position in the input.
        item: the item itself.
        value: what `fn(item)` returned (None if it failed).
        error: why it failed (the job raised, its worker died or timed out), or None.
        wall_s: wall-clock seconds in the worker.
    """

    index: int
    item: Any
    value: Any = None
    error: str | None = None
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        """True when `fn(item)` returned."""
        return self.error is None

    @property
    def seed(self) -> int | None:
        """The item's seed, when it has one (a `RolloutJob`)."""
        return getattr(self.item, "seed", None)


@dataclass
class WorkerPool:
    """`num_workers` rollout workers in-process, in worker processes or in Ray actors.

    The seam the trainer and the bench call: the same `map` whichever the backend, so
    that `--ray` / `--ray-address` switch with one flag (`WorkerPool.from_flags`).

    Args:
        num_workers: workers; each runs one item at a time.
        backend: `"inline"` (this process, one item at a time), `"process"` (worker
            processes, the default) or `"ray"` (Ray actors).
        ray_address: the cluster for the ray backend (see `connect_ray`).
        timeout_s: wall-clock seconds one item may take before its worker is killed and
            the item failed; None: no limit.
        context: the start method of worker processes (see `vector.default_context`).
    """

    num_workers: int = 1
    backend: Backend = "process"
    ray_address: str | None = None
    timeout_s: float | None = None
    context: str | None = None
    _hosts: list[Host | None] = field(default_factory=list, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    closed: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ConfigError(f"backend={self.backend!r}: expected one of {BACKENDS}")
        n = self.num_workers
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ConfigError(f"num_workers={n!r}: expected a positive integer")
        if self.backend == "process":
            check_workers(n, stacklevel=5)  # the caller of the dataclass's __init__
        if self.backend == "ray":
            connect_ray(self.ray_address)  # an unreachable address fails here, fast
        self._hosts = [None] * n

    @staticmethod
    def add_arguments(parser: Any, *, workers: int = 1) -> None:
        """Add `--workers`, `--ray` and `--ray-address` to an argparse parser."""
        parser.add_argument(
            "--workers", type=int, default=workers, help="rollout workers (processes or actors)"
        )
        WorkerPool.add_ray_arguments(parser)

    @staticmethod
    def add_ray_arguments(parser: Any) -> None:
        """Add `--ray` and `--ray-address` (for a command that has its own `--workers`)."""
        parser.add_argument(
            "--ray", action="store_true", help="run the workers as Ray actors (extra `ray`)"
        )
        parser.add_argument(
            "--ray-address",
            metavar="ADDRESS",
            help="join this Ray cluster ('auto', 'host:port', 'ray://host:port'); implies --ray",
        )

    @classmethod
    def from_args(cls, args: Any, **kw: Any) -> WorkerPool:
        """The pool that the flags of `add_arguments` ask for."""
        return cls.from_flags(args.workers, ray=args.ray, ray_address=args.ray_address, **kw)

    @classmethod
    def from_flags(
        cls, workers: int = 1, *, ray: bool = False, ray_address: str | None = None, **kw: Any
    ) -> WorkerPool:
        """The pool a command's `--workers N [--ray] [--ray-address A]` ask for."""
        backend: Backend = "ray" if ray or ray_address else "process"
        return cls(workers, backend=backend, ray_address=ray_address, **kw)

    def _new_host(self) -> Host:
        if self.backend == "inline":
            return InlineHost(Runner())
        if self.backend == "process":
            return ProcessHost(Runner, "swarm-envs rollout worker", self.context)
        return RayHost(Runner, self.ray_address)

    def _host(self, w: int) -> Host:
        host = self._hosts[w]
        if host is None:
            host = self._hosts[w] = self._new_host()
        return host

    def _drop(self, w: int) -> None:
        host, self._hosts[w] = self._hosts[w], None
        if host is not None:
            try:
                host.close()
            except Exception as e:
                logger.warning("closing a failed worker: %r", e)

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[WorkResult]:
        """`fn(item)` for every item, on the workers; results in completion order.

        `fn` and the items must be picklable (for the process and ray backends). A
        failed item is a `WorkResult` with `error` set, and never stops the others.
        """
        if self.closed:
            raise Error("WorkerPool is closed; build a new one")
        todo: queue.Queue[tuple[int, Any] | None] = queue.Queue()
        count = 0
        for count, item in enumerate(items, 1):
            todo.put((count - 1, item))
        if self.backend == "inline":
            yield from self._serial(fn, todo)
            return
        done: queue.Queue[WorkResult | None] = queue.Queue()
        threads = [
            threading.Thread(target=self._feed, args=(w, fn, todo, done), daemon=True)
            for w in range(min(self.num_workers, count))
        ]
        for t in threads:
            t.start()
        try:
            for _ in range(count):
                result = done.get()
                assert result is not None
                yield result
        finally:  # the caller may stop early: no new item starts, the running ones end
            while not todo.empty():
                try:
                    todo.get_nowait()
                except queue.Empty:
                    break
            for t in threads:
                t.join()

    def run(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[WorkResult]:
        """`map`, as a list in the items' order."""
        return sorted(self.map(fn, items), key=lambda r: r.index)

    def _serial(self, fn: Callable, todo: queue.Queue) -> Iterator[WorkResult]:
        while not todo.empty():
            index, item = todo.get()
            yield self._one(0, fn, index, item)

    def _feed(self, w: int, fn: Callable, todo: queue.Queue, done: queue.Queue) -> None:
        """One worker's thread: take an item, run it, report; until no item is left."""
        while True:
            try:
                index, item = todo.get_nowait()
            except queue.Empty:
                return
            done.put(self._one(w, fn, index, item))

    def _one(self, w: int, fn: Callable, index: int, item: Any) -> WorkResult:
        t0 = time.monotonic()
        deadline = None if self.timeout_s is None else t0 + self.timeout_s
        try:
            host = self._host(w)
            host.started(deadline)
            host.submit("run", fn, item)
            value = host.result(deadline)
            return WorkResult(index, item, value, None, time.monotonic() - t0)
        except Exception as e:  # the item failed; the pool goes on
            error = str(e) if isinstance(e, WorkerError) else f"{type(e).__name__}: {e}"
            seed = getattr(item, "seed", None)
            logger.warning("item %d (seed %s) failed: %s", index, seed, error)
            if isinstance(e, WorkerError) and not isinstance(e, WorkerRaised):
                self._drop(w)  # dead, hung or broken: a fresh worker takes the next item
            return WorkResult(index, item, None, error, time.monotonic() - t0)

    def close(self) -> None:
        """Stop every worker (twice-safe; always returns)."""
        if self.closed:
            return
        self.closed = True
        for w in range(len(self._hosts)):
            self._drop(w)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
