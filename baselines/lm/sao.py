"""Asynchronous rollouts with bounded staleness (the "A" of SAO).

Rollout workers keep generating with a slightly stale copy of the policy while the
learner updates. Staleness is bounded by *pacing*, not by discarding: with `B` episodes
per update and bound `k`, a worker may start episode number `n` only once the learner
has published version `v` with `n < (v + k + 1) * B`; otherwise it waits for a fresh
policy. An episode that is long is never thrown away: it is consumed when it is done,
and its turns carry the version that sampled them (the staleness is logged), while the
importance ratio against the stored behaviour log-probabilities corrects for it.
"""

from __future__ import annotations

import copy
import queue
import threading
from collections.abc import Callable, Mapping
from typing import Any

import torch


class StalenessGate:
    """Paces episode starts so that none is sampled more than `max_staleness` versions old.

    Args:
        episodes_per_update: episodes the learner consumes per update (`B`).
        max_staleness: most updates between the policy that samples an episode and the
            one that learns from it (`k`; 0 is synchronous).
    """

    def __init__(self, episodes_per_update: int, max_staleness: int):
        if episodes_per_update < 1 or max_staleness < 0:
            raise ValueError(
                f"episodes_per_update={episodes_per_update} (>= 1), "
                f"max_staleness={max_staleness} (>= 0)"
            )
        self.batch = episodes_per_update
        self.max_staleness = max_staleness
        self.version = 0
        self.started = 0
        self.closed = False
        self._waiting = 0
        self._cond = threading.Condition()

    def waiting(self) -> int:
        """Workers blocked in `acquire` now, waiting for a fresh policy (or a slot)."""
        with self._cond:
            return self._waiting

    def allowed(self) -> int:
        """Episodes that may have started by now."""
        return (self.version + self.max_staleness + 1) * self.batch

    def acquire(self, timeout: float | None = None) -> int | None:
        """Wait for a slot; returns the policy version to sample with (None when closed)."""
        with self._cond:
            # Counted only while blocked: the lock is held whenever the predicate holds.
            self._waiting += 1
            try:
                ok = self._cond.wait_for(
                    lambda: self.closed or self.started < self.allowed(), timeout=timeout
                )
            finally:
                self._waiting -= 1
            if self.closed or not ok:
                return None
            self.started += 1
            return self.version

    def publish(self, version: int) -> None:
        """The learner has a new policy: release the workers waiting for it."""
        with self._cond:
            self.version = version
            self._cond.notify_all()

    def close(self) -> None:
        """Release every waiting worker: no more episodes start."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()


class WeightStore:
    """The latest published weights of every policy, with their version."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.version = 0
        self._state: dict[str, dict[str, torch.Tensor]] = {}

    def publish(self, version: int, modules: Mapping[str, torch.nn.Module]) -> None:
        """Store a copy of the modules' weights as version `version`."""
        state = {
            name: {k: v.detach().clone() for k, v in m.state_dict().items()}
            for name, m in modules.items()
        }
        with self._lock:
            self._state, self.version = state, version

    def pull(self, into: Mapping[str, torch.nn.Module], have: int) -> int:
        """Load newer weights into `into` if there are any; returns the version held now."""
        with self._lock:
            if self.version <= have:
                return have
            state, version = self._state, self.version
        for name, module in into.items():
            module.load_state_dict(state[name])
        return version


def snapshot(modules: Mapping[str, torch.nn.Module]) -> dict[str, torch.nn.Module]:
    """Independent copies of the policies, for a rollout worker to sample from."""
    return {name: copy.deepcopy(m).eval() for name, m in modules.items()}


class AsyncRollouts:
    """Rollout worker threads feeding a queue, paced by a `StalenessGate`.

    Args:
        rollout: `rollout(worker, version) -> item`, runs one episode with the worker's
            current policy (which it first refreshes from the store, see `WeightStore`).
        num_workers: worker threads.
        gate: the pacing gate.
    """

    def __init__(self, rollout: Callable[[int, int], Any], num_workers: int, gate: StalenessGate):
        self.gate = gate
        self.results: queue.Queue = queue.Queue()
        self._rollout = rollout
        self._threads = [
            threading.Thread(target=self._work, args=(w,), daemon=True, name=f"rollout-{w}")
            for w in range(num_workers)
        ]
        self.error: BaseException | None = None

    def start(self) -> AsyncRollouts:
        """Start the worker threads; returns self."""
        for t in self._threads:
            t.start()
        return self

    def _work(self, worker: int) -> None:
        while True:
            version = self.gate.acquire()
            if version is None:
                return
            try:
                self.results.put(self._rollout(worker, version))
            except BaseException as e:  # surfaced to the learner by get()
                self.error = e
                self.gate.close()
                self.results.put(None)
                return

    def get(self, n: int, timeout: float | None = None) -> list[Any]:
        """The next `n` finished rollouts, in completion order."""
        out: list[Any] = []
        while len(out) < n:
            item = self.results.get(timeout=timeout)
            if item is None and self.error is not None:
                raise RuntimeError("a rollout worker failed") from self.error
            out.append(item)
        return out

    def close(self) -> None:
        """Stop the workers (after the episodes they are running) and join them."""
        self.gate.close()
        for t in self._threads:
            t.join(timeout=60)
