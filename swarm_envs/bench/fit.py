"""A log-sigmoid fit of progress against log time (`scipy.optimize.curve_fit`).

Progress of an agent on a long task looks like a sigmoid in log time: nothing passes
for a while, then tests pass at a rate, then the last ones come slowly. The model is

    progress(t) = plateau / (1 + (t50 / t) ** slope)
                = plateau * sigmoid(slope * (ln t - ln t50))

with `plateau` the level it tends to (at most 1), `t50` the time at which it is half
way to the plateau, and `slope` how steep the rise is per unit of ln t. The fit runs on
the curve sampled at log-spaced times, so every decade of time weighs the same.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from swarm_envs.bench.measures import Curve, value_at


def log_sigmoid(t: np.ndarray, plateau: float, t50: float, slope: float) -> np.ndarray:
    """The model, at times `t` > 0."""
    t = np.asarray(t, dtype=float)
    return plateau / (1.0 + np.exp(-slope * (np.log(t) - math.log(t50))))


@dataclass(frozen=True)
class Fit:
    """The fitted parameters and how well they fit.

    Attributes:
        plateau: the progress the curve tends to (0..1).
        t50: virtual seconds to half the plateau.
        slope: steepness per unit of ln(time).
        r2: the coefficient of determination on the sampled points.
        points: how many points were fitted.
    """

    plateau: float
    t50: float
    slope: float
    r2: float
    points: int

    def as_dict(self) -> dict[str, float]:
        """The fit as plain data (for figures.json)."""
        return asdict(self)


def sample(curve: Curve, end: float, n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """The curve at `n` log-spaced times from its first rise (or a small time) to `end`."""
    positive = [t for t, _ in curve if t > 0]
    first = min(positive) if positive else end / 100
    lo = max(first / 2, end * 1e-4, 1e-3)
    if end <= lo:
        end = lo * 10
    times = np.geomspace(lo, end, n)
    return times, np.array([value_at(curve, float(t)) for t in times])


def fit_log_sigmoid(times: np.ndarray, values: np.ndarray) -> Fit | None:
    """Least-squares fit of `log_sigmoid` to (times, values); None if it cannot fit.

    A flat curve (nothing ever passed, or everything at once) has no sigmoid to fit.
    """
    from scipy.optimize import curve_fit

    times = np.asarray(times, dtype=float)
    values = np.asarray(values, dtype=float)
    keep = times > 0
    times, values = times[keep], values[keep]
    if len(times) < 4 or np.ptp(values) < 1e-6:
        return None
    top = float(values.max())
    half = times[np.argmax(values >= top / 2)]
    lo, hi = float(times.min()), float(times.max())
    try:
        params, _ = curve_fit(
            log_sigmoid,
            times,
            values,
            p0=(max(top, 1e-3), float(half), 2.0),
            bounds=([0.0, lo / 100, 0.01], [1.0, hi * 100, 100.0]),
            maxfev=20_000,
        )
    except (RuntimeError, ValueError):
        return None
    predicted = log_sigmoid(times, *params)
    ss_res = float(np.sum((values - predicted) ** 2))
    ss_tot = float(np.sum((values - values.mean()) ** 2))
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 0.0
    plateau, t50, slope = (float(x) for x in params)
    return Fit(plateau, t50, slope, r2, len(times))
