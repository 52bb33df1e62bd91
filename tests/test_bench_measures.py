"""The bench's measures and the log-sigmoid fit: pure functions on hand-made curves."""

import math

import numpy as np
import pytest

from swarm_envs.bench.config import ScriptedAgents
from swarm_envs.bench.fit import fit_log_sigmoid, log_sigmoid, sample
from swarm_envs.bench.measures import (
    band,
    budget_label,
    mean_or_none,
    overtaking,
    peak_work_ratio,
    progress,
    scores_at,
    slowdown_to_final,
    speedup,
    time_to,
    time_unit,
    value_at,
    work_ratio,
)
from swarm_envs.bench.report import _dynamics_tables, comparisons, configurations, duration
from swarm_envs.bench.runner import EpisodeResult, EpisodeSpec

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


def test_work_ratio_per_agent_and_for_the_whole_swarm():
    single = [(0.0, 0.0), (100.0, 0.1), (200.0, 0.4)]
    swarm = [(0.0, 0.0), (50.0, 0.05), (150.0, 0.8)]
    assert work_ratio(swarm, single, 60.0) is None  # the single agent has done nothing yet
    assert work_ratio(swarm, single, 100.0) == pytest.approx(0.5)
    assert work_ratio(swarm, single, 100.0, size=4) == pytest.approx(0.125)
    assert work_ratio(swarm, single, 150.0, size=4) == pytest.approx(2.0)  # 0.8 / 4 / 0.1
    assert work_ratio(swarm, single, 300.0, size=2) == pytest.approx(1.0)


def test_the_peak_work_ratio_and_when_it_is_reached():
    single = [(0.0, 0.0), (100.0, 0.1), (200.0, 0.4)]
    swarm = [(0.0, 0.0), (50.0, 0.05), (150.0, 0.8)]
    assert peak_work_ratio(swarm, single, size=4) == (pytest.approx(2.0), 150.0)
    assert peak_work_ratio(swarm, single, size=4, horizon=140.0) == (pytest.approx(0.125), 100.0)
    assert peak_work_ratio(swarm, [(0.0, 0.0)]) is None


def test_slowdown_of_the_single_agent_to_the_swarms_final_score():
    swarm = [(0.0, 0.0), (100.0, 0.3), (200.0, 0.5)]
    s = slowdown_to_final(swarm, [(0.0, 0.0), (400.0, 0.4), (800.0, 0.6)])
    assert (s.target, s.swarm_s, s.single_s, s.factor) == (0.5, 200.0, 800.0, 4.0)
    never = slowdown_to_final(swarm, [(0.0, 0.0), (50.0, 0.45)])
    assert never.single_s is None and never.factor is None
    faster = slowdown_to_final(swarm, [(0.0, 0.0), (50.0, 0.6)])
    assert faster.factor == pytest.approx(0.25)
    assert slowdown_to_final([(0.0, 0.0)], [(0.0, 0.0), (5.0, 1.0)]).factor is None


def _result(index, strategy, size, seed, curve):
    spec = EpisodeSpec(
        index=index, task="t", task_id="t", suite="standard",
        agent=ScriptedAgents(strategy=strategy), size=size, seed=seed, time_cap_s=7200.0,
    )  # fmt: skip
    return EpisodeResult(spec=spec, tests_total=10, tests_start=0, curve=curve)


def test_comparisons_give_the_dynamics_per_seed_with_their_range():
    results = [
        _result(0, "claim", 1, 0, [(0.0, 0), (120.0, 2), (600.0, 8)]),
        _result(1, "claim", 1, 1, [(0.0, 0), (60.0, 2), (1200.0, 8)]),
        _result(2, "claim", 4, 0, [(0.0, 0), (300.0, 4)]),  # behind until 300 s
        _result(3, "claim", 4, 1, [(0.0, 0), (30.0, 1), (150.0, 4)]),
    ]
    (c,) = comparisons(configurations(results))
    seeds = c["seeds"]
    assert seeds["seeds"] == [0, 1]
    assert seeds["overtakes_at_s"]["values"] == [None, None]  # both end behind
    # seed 0: the single agent has 0.4 at 600 s, the swarm at 300 s: 2x slower
    # seed 1: the single agent 0.2 at 60 s, then 0.8; the swarm 0.4 at 150 s: 8x slower
    assert seeds["slowdown"]["values"] == [pytest.approx(2.0), pytest.approx(8.0)]
    assert (seeds["slowdown"]["low"], seeds["slowdown"]["high"]) == (2.0, 8.0)
    # @5m: seed 0: 0.4 / 4 / 0.2 = 0.5; seed 1: 0.4 / 4 / 0.2 = 0.5
    assert seeds["per_agent_at"]["@5m"]["values"] == [pytest.approx(0.5), pytest.approx(0.5)]
    assert seeds["ratio_at"]["@30s"]["values"] == [None, None]  # nobody alone fixed anything
    assert c["per_agent_at"]["@5m"] == pytest.approx(0.4 / 4 / 0.2)
    # the mean curves' best: 0.4 / 4 / 0.2 from 300 s (the single agent's 0.2 until 600 s)
    assert c["peak"]["per_agent"] == {"ratio": pytest.approx(0.5), "at_s": 300.0}
    assert seeds["peak"]["per_agent"]["values"] == [pytest.approx(0.5), pytest.approx(0.5)]
    table = "\n".join(_dynamics_tables([c]))
    assert "| claim x4 | - | never [never: 2] |" in table
    assert "| 2.00x [2.00x to 8.00x] |" in table  # mean curves: 0.4 at 300 s and 600 s
    # @1m: seed 0 alone had fixed nothing (-), seed 1: 0.1 / 4 / 0.2; @2.5m: 0 and 0.4 / 4 / 0.2
    assert (
        "| claim x4 | - | per agent | 0.50 at 5m [0.50 to 0.50] | - [-: 2] | 0.12 [0.12; -: 1] | 0.25 [0.00 to 0.50] |"
        in table
    )


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
