"""The bench's measures and the log-sigmoid fit: pure functions on hand-made curves."""

import math

import numpy as np
import pytest

from swarm_envs.bench.fit import fit_log_sigmoid, log_sigmoid, sample
from swarm_envs.bench.measures import (
    band,
    budget_label,
    mean_or_none,
    overtaking,
    progress,
    scores_at,
    speedup,
    time_to,
    time_unit,
    value_at,
)
from swarm_envs.bench.report import duration

H = 3600.0
CURVE = [(0.0, 0.0), (H, 0.25), (2 * H, 0.5), (4 * H, 1.0)]


def test_progress_counts_only_the_tests_left_to_fix():
    assert progress([(0.0, 2), (10.0, 6), (20.0, 10)], start=2, total=10) == [
        (0.0, 0.0),
        (10.0, 0.5),
        (20.0, 1.0),
    ]
    assert progress([(0.0, 5)], start=5, total=5) == [(0.0, 1.0)]  # nothing to do


def test_a_step_curve_holds_its_value_until_the_next_point_and_after_the_last():
    assert value_at(CURVE, 0.0) == 0.0
    assert value_at(CURVE, H - 1) == 0.0
    assert value_at(CURVE, H) == 0.25
    assert value_at(CURVE, 3 * H) == 0.5
    assert value_at(CURVE, 100 * H) == 1.0


def test_scores_at_time_budgets_like_long_horizon_benchmarks():
    assert scores_at(CURVE, [H, 2 * H, 3 * H, 4 * H]) == [0.25, 0.5, 0.5, 1.0]
    assert [budget_label(b) for b in (30, 600, 2 * H, 1.5 * H)] == ["@30s", "@10m", "@2h", "@1.5h"]


def test_time_to_a_fraction_is_the_first_time_it_is_reached_or_none():
    assert time_to(CURVE, 0.25) == H
    assert time_to(CURVE, 0.3) == 2 * H
    assert time_to(CURVE, 1.0) == 4 * H
    assert time_to([(0.0, 0.0), (5.0, 0.8)], 0.9) is None


def test_band_is_the_exact_mean_min_and_max_of_step_curves():
    b = band([[(0.0, 0.0), (10.0, 1.0)], [(0.0, 0.0), (20.0, 0.5)]])
    assert b.times == [0.0, 10.0, 20.0]
    assert b.mean == [0.0, 0.5, 0.75]
    assert b.low == [0.0, 0.0, 0.5]
    assert b.high == [0.0, 1.0, 1.0]


def test_overtaking_a_swarm_that_starts_behind():
    single = [(0.0, 0.0), (100.0, 0.5), (1000.0, 0.6)]
    swarm = [(0.0, 0.0), (300.0, 0.7)]
    o = overtaking(swarm, single, horizon=2000.0)
    assert o.time == 300.0
    assert o.behind_s == 200.0
    assert o.deficit == 0.5


def test_overtaking_a_swarm_never_behind_and_one_that_ends_behind():
    assert overtaking([(0.0, 0.0), (10.0, 1.0)], [(0.0, 0.0), (50.0, 1.0)]).time == 0.0
    o = overtaking([(0.0, 0.0), (10.0, 0.2)], [(0.0, 0.0), (5.0, 0.1), (50.0, 0.9)], horizon=60)
    assert o.time is None
    assert o.behind_s == pytest.approx(15.0)  # behind 5..10 and 50..60
    assert o.deficit == pytest.approx(0.7)


def test_overtaking_for_good_ignores_an_earlier_lead():
    single = [(0.0, 0.0), (20.0, 0.6), (80.0, 1.0)]
    swarm = [(0.0, 0.0), (10.0, 0.5), (40.0, 0.7)]  # ahead, behind 20..40, ahead, behind 80..
    assert overtaking(swarm, single, horizon=100.0).time is None
    swarm.append((90.0, 1.0))
    assert overtaking(swarm, single, horizon=100.0).time == 90.0


def test_speedup_and_means_with_seeds_that_never_got_there():
    assert speedup(100.0, 25.0) == 4.0
    assert speedup(None, 25.0) is None
    assert speedup(100.0, None) is None
    assert speedup(10.0, 0.0) == math.inf
    assert mean_or_none([1.0, 3.0]) == 2.0
    assert mean_or_none([1.0, None]) is None


def test_time_units_and_durations_for_axes_and_tables():
    assert time_unit(60.0) == ("s", 1.0)
    assert time_unit(600.0) == ("min", 60.0)
    assert time_unit(8 * H) == ("h", H)
    assert [duration(x) for x in (None, 45.0, 90.0, 720.0, 2.4 * H)] == [
        "-",
        "45s",
        "1.5m",
        "12m",
        "2.4h",
    ]


@pytest.mark.parametrize("plateau,t50,slope", [(1.0, 1800.0, 3.0), (0.7, 120.0, 1.2)])
def test_the_fit_recovers_known_parameters(plateau, t50, slope):
    t = np.geomspace(1.0, 100 * t50, 80)
    fit = fit_log_sigmoid(t, log_sigmoid(t, plateau, t50, slope))
    assert fit is not None
    assert fit.plateau == pytest.approx(plateau, rel=1e-3)
    assert fit.t50 == pytest.approx(t50, rel=1e-3)
    assert fit.slope == pytest.approx(slope, rel=1e-3)
    assert fit.r2 == pytest.approx(1.0, abs=1e-6)


def test_the_fit_of_a_step_curve_sampled_in_log_time():
    # tests passing one by one at the times a log-sigmoid says: a fit close to it
    levels = np.arange(1, 21) / 20 * 0.9
    times = 600.0 * (levels / (0.9 - levels + 1e-9)) ** (1 / 2.0)
    curve = [(0.0, 0.0), *zip(times.tolist(), levels.tolist(), strict=True)]
    fit = fit_log_sigmoid(*sample(curve, end=20 * 3600.0))
    assert fit is not None
    assert fit.t50 == pytest.approx(600.0, rel=0.25)
    assert fit.plateau == pytest.approx(0.9, abs=0.05)
    assert fit.r2 > 0.95


def test_a_flat_curve_has_no_fit():
    assert fit_log_sigmoid(*sample([(0.0, 0.0)], end=100.0)) is None
    assert fit_log_sigmoid(np.array([1.0, 2.0]), np.array([0.0, 1.0])) is None
