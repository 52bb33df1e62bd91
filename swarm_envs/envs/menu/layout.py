"""The move layout: where each move and each feature lives in the action and observation.

`MenuLayout` maps action indices to `Move`s (claim, apply a candidate, run a unit's
tests, wait, done) for `max_units` slots of `n_candidates`; it sizes the observation
from `features` (with `dependency_feature`, one more feature per unit slot).
"""

from __future__ import annotations

from dataclasses import dataclass

from swarm_envs.envs.menu.config import MoveKind
from swarm_envs.envs.menu.features import (
    AGENT_ID_SLOTS,
    DEPENDENCY_FEATURE,
    GLOBAL_FEATURES,
    UNIT_FEATURES,
)


@dataclass(frozen=True)
class Move:
    """A decoded move: its kind, and the unit slot and candidate it names."""

    kind: MoveKind
    unit: int | None = None
    candidate: int | None = None


@dataclass(frozen=True)
class MenuLayout:
    """Where each move and each feature lives, for `max_units` slots of `n_candidates`.

    Moves of unit slot `u` start at `u * (n_candidates + 2)`: claim, apply candidate
    0 .. n_candidates-1, run its tests. Then `wait`, then `done`.
    """

    max_units: int
    n_candidates: int
    dependency_feature: bool = False

    @property
    def unit_features(self) -> tuple[str, ...]:
        """The features of each unit slot, in their order in the observation."""
        return UNIT_FEATURES + ((DEPENDENCY_FEATURE,) if self.dependency_feature else ())

    @property
    def per_unit(self) -> int:
        """Moves per unit slot: claim, one apply per candidate, run its tests."""
        return self.n_candidates + 2

    @property
    def n_moves(self) -> int:
        """The size of the action space."""
        return self.max_units * self.per_unit + 2

    @property
    def wait(self) -> int:
        """The index of the wait move."""
        return self.max_units * self.per_unit

    @property
    def done(self) -> int:
        """The index of the done move."""
        return self.wait + 1

    @property
    def obs_size(self) -> int:
        """The length of the observation `Box`."""
        return self.max_units * len(self.unit_features) + len(GLOBAL_FEATURES) + AGENT_ID_SLOTS

    def claim(self, u: int) -> int:
        """The index of the move that claims unit slot `u`."""
        return u * self.per_unit

    def apply(self, u: int, k: int) -> int:
        """The index of the move that applies candidate `k` of unit slot `u`."""
        return u * self.per_unit + 1 + k

    def run_tests(self, u: int) -> int:
        """The index of the move that runs the tests of unit slot `u`."""
        return u * self.per_unit + self.n_candidates + 1

    def decode(self, index: int) -> Move:
        """The move of an action index (its kind, unit slot and candidate)."""
        if index == self.wait:
            return Move("wait")
        if index == self.done:
            return Move("done")
        u, r = divmod(index, self.per_unit)
        if r == 0:
            return Move("claim", u)
        if r == self.per_unit - 1:
            return Move("run_tests", u)
        return Move("apply", u, r - 1)
