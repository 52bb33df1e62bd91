"""Time-cap curricula: the cap grows over training so that organising pays off."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from swarm_envs.error import ConfigError, describe_invalid


class TimeCapSchedule(BaseModel):
    """The time cap (virtual seconds) as a function of training progress.

    A trainer calls `advance()` after each update (or sets `step`) and passes
    `reset(options={"time_cap": schedule.value()})`.

    Kinds, for step `s` of `total_steps`:

    - `constant`: `start`;
    - `linear`: from `start` to `end` over `total_steps`, then `end`;
    - `geometric`: `start * (end / start) ** (s / total_steps)`, then `end`;
    - `step`: `start`, multiplied by `factor` every `every` steps, at most `end`.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    kind: Literal["constant", "linear", "geometric", "step"] = "constant"
    start: float = Field(gt=0, description="cap at step 0, in virtual seconds")
    end: float | None = Field(default=None, gt=0, description="final cap (not for constant)")
    total_steps: int = Field(default=1, ge=1, description="steps to reach `end`")
    every: int = Field(default=1, ge=1, description="`step` kind: steps between increases")
    factor: float = Field(default=2.0, gt=1, description="`step` kind: growth per increase")
    step: int = Field(default=0, ge=0, description="current training step")

    def __init__(self, **data: Any) -> None:
        """Validate the schedule.

        Raises:
            ConfigError: naming the field, its value and what was expected.
        """
        try:
            super().__init__(**data)
        except ValidationError as e:
            raise ConfigError(f"invalid TimeCapSchedule: {describe_invalid(e)}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            super().__setattr__(name, value)
        except ValidationError as e:
            raise ConfigError(f"invalid TimeCapSchedule: {describe_invalid(e)}") from None

    @model_validator(mode="after")
    def _check(self) -> TimeCapSchedule:
        if self.kind != "constant" and self.end is None:
            raise ValueError(f"kind={self.kind!r} needs an 'end' cap")
        return self

    def value(self, step: int | None = None) -> float:
        """The cap at `step` (default: the current step)."""
        s = self.step if step is None else step
        if s < 0:
            raise ConfigError(f"step={s}: expected a training step >= 0")
        if self.kind == "constant" or self.end is None:
            return self.start
        frac = min(s / self.total_steps, 1.0)
        if self.kind == "linear":
            return self.start + (self.end - self.start) * frac
        if self.kind == "geometric":
            return self.start * (self.end / self.start) ** frac
        grown = self.start * self.factor ** (s // self.every)
        return min(grown, self.end) if self.end >= self.start else max(grown, self.end)

    def advance(self, n: int = 1) -> float:
        """Move `n` steps forward; returns the new cap."""
        self.step += n
        return self.value()

    def __call__(self, step: int | None = None) -> float:
        """The cap at `step` (default: the current step); the same as `value`."""
        return self.value(step)

    @property
    def is_finished(self) -> bool:
        """True once the cap has reached its final value."""
        return self.end is None or math.isclose(self.value(), self.end)
