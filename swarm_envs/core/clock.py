"""The virtual clock: a priority queue of action completions.

Completions are popped in time order, ties broken by agent index, so the order
in which effects apply does not depend on dictionary order, on wall time or on
the order in which a trainer passed the actions. An agent has at most one
pending completion; rescheduling it (a waiting agent woken by a message)
invalidates the old entry lazily through a per-agent generation counter.
"""

from __future__ import annotations

import heapq


class Clock:
    """Virtual time and the schedule of pending completions."""

    def __init__(self, num_agents: int):
        self.now = 0.0
        self._heap: list[tuple[float, int, int]] = []
        self._generation = [0] * num_agents
        self.due: list[float | None] = [None] * num_agents

    def schedule(self, agent: int, at: float) -> None:
        """Set (or move) the completion time of `agent`'s action."""
        if at < self.now:
            raise ValueError(f"cannot schedule agent {agent} in the past ({at} < {self.now})")
        self._generation[agent] += 1
        self.due[agent] = at
        heapq.heappush(self._heap, (at, agent, self._generation[agent]))

    def cancel(self, agent: int) -> None:
        """Drop `agent`'s pending completion (it waits for a message, or was woken)."""
        self._generation[agent] += 1
        self.due[agent] = None

    def _prune(self) -> None:
        heap = self._heap
        while heap and heap[0][2] != self._generation[heap[0][1]]:
            heapq.heappop(heap)

    def peek(self) -> float | None:
        """Time of the next completion, or None when nothing is pending."""
        self._prune()
        return self._heap[0][0] if self._heap else None

    def pop_due(self, until: float) -> list[int]:
        """Advance to the earliest completion time T <= `until`; pop every agent due at T.

        Returns the agents in index order (the tie-break), or [] when nothing is due.
        """
        self._prune()
        heap = self._heap
        if not heap or heap[0][0] > until:
            return []
        t = heap[0][0]
        agents = []
        while heap and heap[0][0] == t:
            _, agent, gen = heapq.heappop(heap)
            if gen == self._generation[agent]:
                agents.append(agent)
                self.due[agent] = None
            self._prune()
        self.now = t
        return agents  # heap order at equal time is agent index order

    def advance_to(self, t: float) -> None:
        """Move the clock to `t` (never backwards), completing nothing."""
        if t < self.now:
            raise ValueError(f"time cannot go backwards ({t} < {self.now})")
        self.now = t

    def __len__(self) -> int:
        return sum(d is not None for d in self.due)
