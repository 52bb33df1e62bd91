"""How a worker is hosted: in this process, in a worker process, or in a Ray actor.

A host holds one object (built from a picklable factory) and calls its methods for the
caller, the same way whatever the transport: `InlineHost` (here, for debugging and
tests), `ProcessHost` (a spawned process over a pipe, killed on a timeout), `RayHost`
(a Ray actor, `connect_ray` joining or starting the cluster). `SwarmVectorEnv` hosts
its envs on these; the pool (`swarm_envs.distributed.pool`) hosts its rollout workers.

Layer: below the pool; imports nothing of the library but its errors.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import socket
import time
import traceback
import warnings
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any, Literal, Protocol

from gymnasium.vector.utils import CloudpickleWrapper

from swarm_envs.error import ConfigError, Error

if TYPE_CHECKING:
    from swarm_envs.envs.parallel import SwarmParallelEnv

logger = logging.getLogger("swarm_envs")

EnvFactory = Callable[[], "SwarmParallelEnv"]
BACKENDS = ("inline", "process", "ray")
Backend = Literal["inline", "process", "ray"]
#: seconds `close()` waits for a worker process to stop before it terminates it
CLOSE_TIMEOUT_S = 10.0
#: seconds within which an unreachable Ray address must fail
RAY_CONNECT_TIMEOUT_S = 5.0


class TooManyWorkers(UserWarning):
    """More worker processes were asked for than the machine has cores."""


class RayAddressIgnored(UserWarning):
    """An address was given, but this process already runs with another Ray cluster."""


class WorkerError(Error):
    """A worker (process or Ray actor) died, hung past its timeout, or could not start."""


class WorkerRaised(WorkerError):
    """The object in a worker raised; the worker itself is fine."""


class RayUnavailable(Error):
    """Ray is not installed, or the cluster at the given address cannot be reached."""


# ---------------------------------------------------------------------- hosts


class Host(Protocol):
    """Where an object (an `EnvGroup`, a rollout worker) lives: one call in flight at a time."""

    def submit(self, method: str, *args: Any) -> None:
        """Start `obj.method(*args)`."""

    def result(self, deadline: float | None) -> Any:
        """The result of the call in flight; raises `WorkerError` if the host died or hung."""

    def started(self, deadline: float | None) -> None:
        """Wait until the object is built; raises `WorkerError` if that failed."""

    def close(self) -> None:
        """Stop the host; always returns."""


class InlineHost:
    """The object in this process: `submit` runs the call."""

    def __init__(self, obj: Any):
        self.obj = obj
        self._result: Any = None

    def submit(self, method: str, *args: Any) -> None:
        """Run `obj.method(*args)` now."""
        self._result = getattr(self.obj, method)(*args)

    def result(self, deadline: float | None) -> Any:
        """What the last call returned."""
        out, self._result = self._result, None
        return out

    def started(self, deadline: float | None) -> None:
        """Built already."""

    def close(self) -> None:
        """Close the object."""
        try:
            self.obj.close()
        except Exception as e:
            logger.warning("closing %s failed: %r", type(self.obj).__name__, e)


def _serve(pipe: Connection, parent_pipe: Connection, build: CloudpickleWrapper) -> None:
    """A worker process: build the object, answer calls until `close` or the pipe closes."""
    parent_pipe.close()
    obj = None
    try:
        obj = build.fn()
        pipe.send(("ok", None))
        while True:
            try:
                method, args = pipe.recv()
            except (EOFError, OSError):
                return  # the parent is gone
            if method == "close":
                obj.close()
                obj = None
                pipe.send(("ok", None))
                return
            try:
                pipe.send(("ok", getattr(obj, method)(*args)))
            except Exception as e:
                pipe.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=8)}"))
    except (KeyboardInterrupt, Exception) as e:
        try:
            pipe.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=8)}"))
        except OSError:
            pass
    finally:
        if obj is not None:
            try:
                obj.close()
            except Exception:
                pass


def default_context() -> str:
    """The multiprocessing start method of workers: forkserver where it exists, else spawn.

    Not fork: the parent holds threads (scorer pools, event loops) that a forked child
    would inherit in whatever state they were.
    """
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else "spawn"


class ProcessHost:
    """An object built by `build()` in a worker process of its own, called over a pipe."""

    def __init__(self, build: Callable[[], Any], name: str, context: str | None = None):
        ctx = multiprocessing.get_context(context or default_context())
        self.name = name
        self.pipe, child = ctx.Pipe()
        self.process = ctx.Process(  # type: ignore[attr-defined]
            target=_serve, args=(child, self.pipe, CloudpickleWrapper(build)), name=name
        )
        self.process.daemon = True
        self.process.start()
        child.close()
        self._started = False

    def submit(self, method: str, *args: Any) -> None:
        """Send the call; the worker answers in `result`."""
        try:
            self.pipe.send((method, args))
        except (OSError, ValueError) as e:
            raise WorkerError(f"{self.name}: cannot send {method!r}: {self._death(e)}") from None

    def _recv(self, deadline: float | None) -> Any:
        timeout = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        ready = wait([self.pipe, self.process.sentinel], timeout)
        if self.pipe in ready:
            try:
                status, value = self.pipe.recv()
            except (EOFError, OSError) as e:
                raise WorkerError(f"{self.name}: {self._death(e)}") from None
            if status == "error":
                if not self._started:
                    raise WorkerError(f"{self.name} could not start: {value}")
                raise WorkerRaised(f"{self.name} raised {value}")
            return value
        if ready:  # the sentinel: the process ended without answering
            raise WorkerError(f"{self.name}: {self._death(None)}")
        self.kill()
        raise WorkerError(f"{self.name}: no answer within the timeout; the worker was killed")

    def started(self, deadline: float | None) -> None:
        """Wait for the worker to have built its object."""
        if not self._started:
            self._recv(deadline)
            self._started = True

    def result(self, deadline: float | None) -> Any:
        """The answer to the call in flight (the first call also waits for the start)."""
        self.started(deadline)
        return self._recv(deadline)

    def _death(self, error: BaseException | None) -> str:
        self.process.join(1.0)
        code = self.process.exitcode
        if code is None:
            return f"the pipe failed ({error!r})"
        if code < 0:
            return f"the worker process died (killed by signal {-code})"
        hint = ""
        if not self._started:  # the usual cause: an unguarded script run again by the child
            hint = (
                " before it started (its stderr says why; a script that starts workers "
                "needs its top-level code under `if __name__ == '__main__':`)"
            )
        return f"the worker process exited with code {code}{hint}"

    def kill(self) -> None:
        """Kill the process now."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5.0)

    def close(self) -> None:
        """Ask the worker to close its object and exit; terminate, then kill, if it does not."""
        try:
            if self.process.is_alive():
                self.pipe.send(("close", ()))
                deadline = time.monotonic() + CLOSE_TIMEOUT_S
                self.started(deadline)
                self._recv(deadline)
        except (WorkerError, OSError, ValueError) as e:
            logger.warning("%s did not close cleanly: %s", self.name, e)
        finally:
            self.process.join(CLOSE_TIMEOUT_S if self.process.is_alive() else 0)
            if self.process.is_alive():
                self.process.terminate()
                self.process.join(2.0)
            if self.process.is_alive():
                self.process.kill()
                self.process.join(2.0)
            self.pipe.close()


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def check_workers(num_workers: int, what: str = "worker processes", stacklevel: int = 3) -> None:
    """Warn (once per call) when more workers than cores are asked for."""
    cores = usable_cores()
    if num_workers > cores:
        warnings.warn(
            f"{num_workers} {what} on {cores} cores: they will compete for the CPU; "
            f"use at most {cores}",
            TooManyWorkers,
            stacklevel=stacklevel,
        )


# ---------------------------------------------------------------------- Ray


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable(
            "Ray is not installed; install the extra: pip install 'swarm-envs[ray]'"
        ) from None
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of `host:port` or `ray://host:port`; None for any other text."""
    host, _, port = address.split("://", 1)[-1].rpartition(":")
    return (host.strip("[]"), int(port)) if host and port.isdigit() else None


def check_ray_address(address: str | None, field: str = "ray_address") -> str | None:
    """`address` when it has a form `connect_ray` takes (without connecting).

    Raises:
        ConfigError: naming `field`, for an address that is none of the forms.
    """
    if address is None or address in ("auto", "local") or _host_port(address) is not None:
        return address
    raise ConfigError(f"{field}={address!r}: expected 'auto', 'host:port' or 'ray://host:port'")


def _probe(address: str, timeout_s: float) -> None:
    """Fail fast when nothing listens at `host:port` (Ray itself would retry for a minute)."""
    where = _host_port(address)
    if where is None:
        raise RayUnavailable(
            f"ray_address={address!r}: expected 'auto', 'host:port' or 'ray://host:port'"
        )
    try:
        with socket.create_connection(where, timeout=timeout_s):
            pass
    except OSError as e:
        raise RayUnavailable(
            f"ray_address={address!r}: no Ray cluster answers there ({e.strerror or e}); "
            "start one with `ray start --head`, fix the address, or pass none to run Ray "
            "on this machine"
        ) from None


def connect_ray(
    address: str | None = None,
    *,
    num_cpus: int | None = None,
    timeout_s: float = RAY_CONNECT_TIMEOUT_S,
) -> Any:
    """Join the Ray cluster at `address`, or start a local one; returns the `ray` module.

    Does nothing when Ray is already initialised (tests and trainers call `ray.init`
    themselves, e.g. `ray.init(num_cpus=2)`); a `host:port` that is not that cluster's
    then warns (`RayAddressIgnored`): a process joins one cluster at a time.

    Args:
        address: `"auto"` (a cluster started on this machine), `"host:port"`,
            `"ray://host:port"` (Ray Client), or None for a new local instance.
        num_cpus: CPUs of a new local instance (None: every core).
        timeout_s: how long the address may take to answer.

    Raises:
        RayUnavailable: Ray is not installed, or nothing answers at `address`.
    """
    ray = _import_ray()
    if ray.is_initialized():
        _check_joined(ray, address)
        return ray
    if address not in (None, "auto", "local"):
        _probe(address, timeout_s)
    try:
        ray.init(
            address=address,
            num_cpus=num_cpus if address in (None, "local") else None,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
        )
    except (ConnectionError, TimeoutError, RuntimeError) as e:
        raise RayUnavailable(f"ray_address={address!r}: cannot join the cluster: {e}") from None
    return ray


def _check_joined(ray: Any, address: str | None) -> None:
    """Warn when `address` names a cluster other than the one this process is in."""
    wanted = _host_port(address) if address and not address.startswith("ray://") else None
    if wanted is None:
        return  # None, auto, local, or a Ray Client address: nothing to compare
    try:
        current = ray.get_runtime_context().gcs_address
    except Exception:  # noqa: BLE001 - an older or a client runtime: cannot tell
        return
    joined = _host_port(current or "")
    if joined is None or joined[1] != wanted[1] or not _same_host(joined[0], wanted[0]):
        warnings.warn(
            f"ray_address={address!r} ignored: this process already runs with the Ray "
            f"cluster at {current}; call ray.shutdown() first to join another",
            RayAddressIgnored,
            stacklevel=3,
        )


def _same_host(a: str, b: str) -> bool:
    """Whether two host names or addresses are one machine (loopback counts as this one)."""

    def ip(host: str) -> str:
        try:
            return socket.gethostbyname(host)
        except OSError:
            return host

    def here(addr: str) -> bool:  # an address of this machine is one a socket binds to
        try:
            with socket.socket() as sock:
                sock.bind((addr, 0))
            return True
        except OSError:
            return False

    x, y = ip(a), ip(b)
    return x == y or (here(x) and here(y))


class _Served:
    """What a Ray actor holds: the object built by `build()`, called by method name."""

    def __init__(self, build: Callable[[], Any]):
        self.obj = build()

    def ready(self) -> bool:
        return True

    def call(self, method: str, args: tuple) -> Any:
        return getattr(self.obj, method)(*args)

    def close(self) -> None:
        self.obj.close()


_actor_class: Any = None


class RayHost:
    """An object built by `build()` in a Ray actor of its own (the same `Host` interface)."""

    def __init__(self, build: Callable[[], Any], address: str | None = None):
        global _actor_class
        self.ray = connect_ray(address)
        if _actor_class is None:
            # Ray reserves no CPU for an idle actor by default: more actors than CPUs
            # still schedule, as worker processes would.
            _actor_class = self.ray.remote(_Served)
        self.actor = _actor_class.remote(build)
        self.ref: Any = None
        self._started = False

    def _get(self, ref: Any, deadline: float | None, what: str) -> Any:
        ray = self.ray
        timeout = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        try:
            return ray.get(ref, timeout=timeout)
        except ray.exceptions.GetTimeoutError:
            self.kill()
            raise WorkerError(
                f"Ray actor: no answer to {what} within the timeout; killed"
            ) from None
        except ray.exceptions.RayActorError as e:
            raise WorkerError(f"Ray actor died during {what}: {_first_line(e)}") from None
        except ray.exceptions.RayTaskError as e:
            cause = e.cause if getattr(e, "cause", None) is not None else e
            error = f"{type(cause).__name__}: {cause}"
            if not self._started:
                raise WorkerError(f"Ray actor could not start: {error}") from None
            raise WorkerRaised(f"Ray actor raised in {what}: {error}") from None

    def started(self, deadline: float | None) -> None:
        """Wait until the actor has built its object."""
        if not self._started:
            self._get(self.actor.ready.remote(), deadline, "start")
            self._started = True

    def submit(self, method: str, *args: Any) -> None:
        """Start `obj.method(*args)` in the actor."""
        self.ref = (method, self.actor.call.remote(method, args))

    def result(self, deadline: float | None) -> Any:
        """The answer of the call in flight."""
        method, ref = self.ref
        self.ref = None
        return self._get(ref, deadline, method)

    def kill(self) -> None:
        """Kill the actor now."""
        try:
            self.ray.kill(self.actor, no_restart=True)
        except Exception as e:
            logger.warning("killing a Ray actor failed: %r", e)

    def close(self) -> None:
        """Close the actor's object, then the actor; always returns."""
        try:
            self.ray.get(self.actor.close.remote(), timeout=10.0)
        except Exception as e:
            logger.debug("a Ray actor did not close cleanly: %r", e)
        self.kill()


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]
