"""Measures of progress curves: pure functions over plain data, each unit-tested.

A curve is a step function given as `[(time, value), ...]`, times increasing, the first
at 0: the value holds from its time until the next point, and after the last point for
ever (an episode that ended keeps its final score). Values here are *progress*: the
fraction of the tests failing at the start that pass (1.0 = all of them).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

Curve = list[tuple[float, float]]

#: the progress fractions whose first time is reported ("time to 90 percent")
MILESTONES = (0.25, 0.5, 0.9, 1.0)
_EPS = 1e-9


def progress(points: Sequence[tuple[float, int]], start: int, total: int) -> Curve:
    """Passing-test counts as progress: (passing - start) / (total - start).

    A task with nothing left to do at the start is complete from t=0.
    """
    room = total - start
    if room <= 0:
        return [(0.0, 1.0)]
    return [(t, (passed - start) / room) for t, passed in points] or [(0.0, 0.0)]


def value_at(curve: Curve, t: float) -> float:
    """The curve's value at time `t` (its value before the first point is the first's)."""
    times = [p[0] for p in curve]
    i = bisect.bisect_right(times, t) - 1
    return curve[max(i, 0)][1]


def time_to(curve: Curve, fraction: float) -> float | None:
    """The first time the curve reaches `fraction`, or None if it never does."""
    for t, v in curve:
        if v >= fraction - _EPS:
            return t
    return None


def scores_at(curve: Curve, budgets: Sequence[float]) -> list[float]:
    """The curve's value at each time budget (the "@2h" scores)."""
    return [value_at(curve, b) for b in budgets]


@dataclass(frozen=True)
class Band:
    """Curves of several seeds on their common breakpoints: mean, lowest and highest."""

    times: list[float]
    mean: list[float]
    low: list[float]
    high: list[float]

    def curve(self) -> Curve:
        """The mean as a curve."""
        return list(zip(self.times, self.mean, strict=True))


def band(curves: Sequence[Curve]) -> Band:
    """The exact mean, min and max of step curves (a step function at the union of times)."""
    if not curves:
        return Band([0.0], [0.0], [0.0], [0.0])
    times = sorted({t for c in curves for t, _ in c} | {0.0})
    values = [[value_at(c, t) for c in curves] for t in times]
    return Band(
        times,
        [sum(v) / len(v) for v in values],
        [min(v) for v in values],
        [max(v) for v in values],
    )


@dataclass(frozen=True)
class Overtaking:
    """When a swarm overtakes a single agent.

    Attributes:
        time: the start of the swarm's last stretch at or above the single agent
            (0.0 if it was never behind), or None if it ends behind.
        behind_s: how long the swarm was behind in all.
        deficit: the largest lead of the single agent (progress fraction).
    """

    time: float | None
    behind_s: float
    deficit: float


def overtaking(swarm: Curve, single: Curve, horizon: float | None = None) -> Overtaking:
    """When `swarm` overtakes `single` for good, and how far behind it was before.

    Both curves are compared at every breakpoint of either, up to `horizon` (default:
    the last breakpoint); "behind" means strictly below.
    """
    times = sorted({t for t, _ in swarm} | {t for t, _ in single} | {0.0})
    end = horizon if horizon is not None else times[-1]
    times = [t for t in times if t <= end]
    behind_s = deficit = 0.0
    last_behind: int | None = None
    for i, t in enumerate(times):
        gap = value_at(single, t) - value_at(swarm, t)
        if gap > _EPS:
            last_behind = i
            deficit = max(deficit, gap)
            behind_s += (times[i + 1] if i + 1 < len(times) else end) - t
    if last_behind is None:
        return Overtaking(0.0, 0.0, 0.0)
    if last_behind + 1 >= len(times):
        return Overtaking(None, behind_s, deficit)
    return Overtaking(times[last_behind + 1], behind_s, deficit)


def work_ratio(swarm: Curve, single: Curve, t: float, size: int = 1) -> float | None:
    """Useful work of `swarm` by time `t` relative to `single`'s, per agent of the swarm.

    The work done by `t` is the progress reached by then: the ratio is
    `swarm(t) / size / single(t)`, None while the single agent has done nothing. With
    `size = 1` it is the swarm's total against the single agent's; with the swarm's size,
    what each of its agents did on average against the single agent: below 1 a swarm
    agent does less useful work than an agent alone, above 1 more.
    """
    alone = value_at(single, t)
    if alone <= _EPS:
        return None
    return value_at(swarm, t) / size / alone


def peak_work_ratio(
    swarm: Curve, single: Curve, size: int = 1, horizon: float | None = None
) -> tuple[float, float] | None:
    """The highest `work_ratio` at a breakpoint of either curve, and when it is first reached.

    Returns `(ratio, time)` up to `horizon`, or None if the single agent never gained.
    """
    times = sorted({t for t, _ in swarm} | {t for t, _ in single})
    best: tuple[float, float] | None = None
    for t in times:
        if horizon is not None and t > horizon:
            break
        r = work_ratio(swarm, single, t, size)
        if r is not None and (best is None or r > best[0] + _EPS):
            best = (r, t)
    return best


@dataclass(frozen=True)
class Slowdown:
    """How much longer a single agent takes to reach a swarm's final score.

    Attributes:
        target: the swarm's final progress (its last value).
        swarm_s: when the swarm first reached it.
        single_s: when the single agent first reached it, or None if it never did.
        factor: `single_s / swarm_s` (inf if the swarm had it at 0), or None if the
            single agent never got there or the swarm gained nothing.
    """

    target: float
    swarm_s: float | None
    single_s: float | None
    factor: float | None


def slowdown_to_final(swarm: Curve, single: Curve) -> Slowdown:
    """The single agent's time to the swarm's final score against the swarm's own."""
    target = swarm[-1][1] if swarm else 0.0
    if target <= _EPS:
        return Slowdown(target, None, None, None)
    swarm_s, single_s = time_to(swarm, target), time_to(single, target)
    return Slowdown(target, swarm_s, single_s, speedup(single_s, swarm_s))


def speedup(single_s: float | None, swarm_s: float | None) -> float | None:
    """How many times faster the swarm got somewhere (None if either never got there)."""
    if single_s is None or swarm_s is None:
        return None
    if swarm_s <= 0:
        return math.inf if single_s > 0 else 1.0
    return single_s / swarm_s


def budget_label(seconds: float) -> str:
    """A time budget as long-horizon benchmarks write it: `@30s`, `@10m`, `@2h`, `@1.5h`."""
    for unit, size in (("h", 3600.0), ("m", 60.0)):
        if seconds >= size:
            return f"@{seconds / size:g}{unit}"
    return f"@{seconds:g}s"


def time_unit(horizon: float) -> tuple[str, float]:
    """A readable unit for a time axis up to `horizon` seconds: (name, seconds per unit)."""
    if horizon >= 3 * 3600:
        return "h", 3600.0
    if horizon >= 3 * 60:
        return "min", 60.0
    return "s", 1.0


def mean_or_none(values: Sequence[float | None]) -> float | None:
    """The mean of the values, or None if any is None (a seed that never got there)."""
    if not values or any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None) / len(values)
