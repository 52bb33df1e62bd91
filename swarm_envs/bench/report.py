"""The bench's figures (`figures.json`) and its Markdown report (`report.md`).

Episodes are grouped into *configurations*: one suite, one kind of agents, one swarm
size, with or without the equal token budget. A configuration's curve is the mean of its
episodes' progress curves (every task of the suite and every seed), with the lowest and
highest episode as its band; the @time scores, the times to 25/50/90/100 percent and the
log-sigmoid fit are read from that mean curve. Every swarm is compared with the single
agent of its family under the same budget: the speed-up to 90 and 100 percent and the
time at which it overtakes the single agent for good.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from swarm_envs.bench.config import suite_scale
from swarm_envs.bench.fit import fit_log_sigmoid, sample
from swarm_envs.bench.measures import (
    MILESTONES,
    Band,
    band,
    budget_label,
    overtaking,
    peak_work_ratio,
    progress,
    scores_at,
    slowdown_to_final,
    speedup,
    time_to,
    work_ratio,
)
from swarm_envs.bench.runner import BenchRun, EpisodeResult

#: a configuration: (suite, agents' label, swarm size, token budget per test or None)
Key = tuple[str, str, int, float | None]


@dataclass(frozen=True)
class Configuration:
    """The episodes of one configuration and what is measured on them."""

    key: Key
    family: str
    results: list[EpisodeResult]
    band: Band
    horizon: float

    @property
    def suite(self) -> str:
        """The suite of its tasks."""
        return self.key[0]

    @property
    def label(self) -> str:
        """What its agents are called."""
        return self.key[1]

    @property
    def size(self) -> int:
        """Agents in the swarm."""
        return self.key[2]

    @property
    def budget_per_test(self) -> float | None:
        """The equal token budget per canonical test, or None."""
        return self.key[3]

    @property
    def name(self) -> str:
        """`claim x8`, `scripted x1`: how tables and legends call it."""
        return f"{self.label} x{self.size}"


def configurations(results: Sequence[EpisodeResult]) -> list[Configuration]:
    """The episodes that ran grouped by configuration, in grid order (failed ones left out)."""
    groups: dict[Key, list[EpisodeResult]] = {}
    family: dict[Key, str] = {}
    for r in results:
        s = r.spec
        key = (s.suite, s.label, s.size, s.budget_per_test)
        groups.setdefault(key, [])
        family[key] = s.family
        if r.status == "ok":
            groups[key].append(r)
    out = []
    for key, rs in groups.items():
        curves = [progress(r.curve, r.tests_start, r.tests_total) for r in rs]
        horizon = max((r.spec.time_cap_s for r in rs), default=0.0)
        out.append(Configuration(key, family[key], rs, band(curves), horizon))
    return out


def _percent(fraction: float) -> str:
    return f"{round(fraction * 100):d}%"


def configuration_figures(c: Configuration, budgets: Sequence[float]) -> dict[str, Any]:
    """Every figure of one configuration, as plain data."""
    rs = c.results
    n = max(len(rs), 1)
    mean = c.band.curve()
    fit = fit_log_sigmoid(*sample(mean, c.horizon)) if rs else None
    gained: dict[str, float] = {}
    for r in rs:
        for a in r.agents:
            gained[a.name] = gained.get(a.name, 0.0) + a.gained / n
    total_gained = sum(gained.values())
    return {
        "suite": c.suite,
        "agents": c.label,
        "family": c.family,
        "size": c.size,
        "token_budget_per_test": c.budget_per_test,
        "episodes": len(rs),
        "tasks": sorted({r.spec.task_id for r in rs}),
        "seeds": sorted({r.spec.seed for r in rs}),
        "time_cap_s": c.horizon,
        "progress_final": mean[-1][1] if rs else None,
        "scores_at": dict(
            zip((budget_label(b) for b in budgets), scores_at(mean, budgets), strict=True)
        ),
        "time_to": {_percent(m): time_to(mean, m) for m in MILESTONES} if rs else {},
        "tokens": sum(r.tokens for r in rs) / n,
        "duplicated_units": sum(len(r.duplicated_units) for r in rs) / n,
        "units": sum(r.units for r in rs) / n,
        "messages": sum(r.messages for r in rs) / n,
        "conflicts": sum(r.conflicts for r in rs) / n,
        "held_out": _held_out(rs),
        "agent_errors": sum(1 for r in rs for a in r.agents if a.error),
        "end_reasons": {e: sum(1 for r in rs if r.end_reason == e) for e in _ends(rs)},
        "contribution": {
            k: (v / total_gained if total_gained else 0.0) for k, v in sorted(gained.items())
        },
        "fit": fit.as_dict() if fit is not None else None,
        "curve": {"t": c.band.times, "mean": c.band.mean, "low": c.band.low, "high": c.band.high},
    }


def _held_out(rs: Sequence[EpisodeResult]) -> float | None:
    """The share of held-out tests passing at the end, over the episodes that have some."""
    total = sum(r.held_out_total for r in rs)
    return sum(r.held_out_passed for r in rs) / total if total else None


def _ends(rs: Sequence[EpisodeResult]) -> list[str]:
    return sorted({r.end_reason for r in rs if r.end_reason})


#: the times, in units of the suite's scale (standard: 10 min, long: 1 h), at which the
#: swarm's work is compared with the single agent's (`ratio_at`)
RATIO_UNITS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0)


def ratio_times(suite: str, horizon: float) -> list[float]:
    """The comparison times of a suite up to `horizon` (virtual seconds)."""
    unit = suite_scale(suite)[1]
    return [unit * k for k in RATIO_UNITS if unit * k <= horizon] or [min(unit, horizon)]


def _seed_curves(c: Configuration) -> dict[int, list[tuple[float, float]]]:
    """Per seed, the mean progress over the configuration's tasks."""
    by_seed: dict[int, list[EpisodeResult]] = {}
    for r in c.results:
        by_seed.setdefault(r.spec.seed, []).append(r)
    return {
        seed: band([progress(r.curve, r.tests_start, r.tests_total) for r in rs]).curve()
        for seed, rs in sorted(by_seed.items())
    }


def _spread(values: Sequence[float | None]) -> dict[str, Any]:
    """Mean, lowest and highest of per-seed values; `never` counts the seeds without one."""
    got = [v for v in values if v is not None and not math.isinf(v)]
    return {
        "values": list(values),
        "mean": sum(got) / len(got) if got else None,
        "low": min(got) if got else None,
        "high": max(got) if got else None,
        "never": sum(1 for v in values if v is None),
    }


def _dynamics(
    swarm: list[tuple[float, float]],
    one: list[tuple[float, float]],
    size: int,
    horizon: float,
    times: Sequence[float],
) -> dict[str, Any]:
    """Overtaking, the slowdown to the swarm's final score and the work ratios of one pair."""
    o = overtaking(swarm, one, horizon=horizon)
    slow = slowdown_to_final(swarm, one)
    return {
        "overtakes_at_s": o.time,
        "behind_s": o.behind_s,
        "largest_deficit": o.deficit,
        "slowdown": {
            "target": slow.target,
            "swarm_s": slow.swarm_s,
            "single_s": slow.single_s,
            "factor": slow.factor,
        },
        "peak": {
            what: None if p is None else {"ratio": p[0], "at_s": p[1]}
            for what, p in (
                ("per_agent", peak_work_ratio(swarm, one, size, horizon)),
                ("whole", peak_work_ratio(swarm, one, 1, horizon)),
            )
        },
        "ratio_at": {budget_label(t): work_ratio(swarm, one, t) for t in times},
        "per_agent_at": {budget_label(t): work_ratio(swarm, one, t, size) for t in times},
    }


def comparisons(configs: Sequence[Configuration]) -> list[dict[str, Any]]:
    """Every swarm against the single agent of its family, suite and budget.

    The figures are read from the mean curves; `seeds` has the same figures per seed
    (each seed's mean over the tasks, swarm against single agent of the same seed) with
    their mean, lowest and highest, as the band.
    """
    single = {(c.suite, c.family, c.budget_per_test): c for c in configs if c.size == 1}
    out = []
    for c in configs:
        alone = single.get((c.suite, c.family, c.budget_per_test))
        if c.size == 1 or alone is None or not c.results or not alone.results:
            continue
        swarm, one = c.band.curve(), alone.band.curve()
        horizon = max(c.horizon, alone.horizon)
        times = ratio_times(c.suite, horizon)
        d = _dynamics(swarm, one, c.size, horizon, times)
        mine, theirs = _seed_curves(c), _seed_curves(alone)
        per_seed = {
            s: _dynamics(mine[s], theirs[s], c.size, horizon, times) for s in mine if s in theirs
        }
        seeds = list(per_seed.values())
        out.append(
            {
                "suite": c.suite,
                "agents": c.label,
                "size": c.size,
                "single": alone.label,
                "token_budget_per_test": c.budget_per_test,
                "speedup_50": speedup(time_to(one, 0.5), time_to(swarm, 0.5)),
                "speedup_90": speedup(time_to(one, 0.9), time_to(swarm, 0.9)),
                "speedup_100": speedup(time_to(one, 1.0), time_to(swarm, 1.0)),
                **d,
                "seeds": {
                    "seeds": list(per_seed),
                    "overtakes_at_s": _spread([s["overtakes_at_s"] for s in seeds]),
                    "behind_s": _spread([s["behind_s"] for s in seeds]),
                    "slowdown": _spread([s["slowdown"]["factor"] for s in seeds]),
                    "peak": {
                        w: _spread([s["peak"][w] and s["peak"][w]["ratio"] for s in seeds])
                        for w in ("per_agent", "whole")
                    },
                    "ratio_at": {
                        k: _spread([s["ratio_at"][k] for s in seeds]) for k in d["ratio_at"]
                    },
                    "per_agent_at": {
                        k: _spread([s["per_agent_at"][k] for s in seeds]) for k in d["per_agent_at"]
                    },
                },
            }
        )
    return out


def _budgets(run: BenchRun, c: Configuration) -> list[float]:
    """The suite's @time budgets within the time cap (beyond it they repeat the end)."""
    budgets = run.config.budgets(c.suite)
    return [b for b in budgets if b <= c.horizon] or budgets[:1]


def figures(run: BenchRun) -> dict[str, Any]:
    """Every figure of a bench as plain data: what `figures.json` holds."""
    configs = configurations(run.results)
    failed = [r for r in run.results if r.status == "failed"]
    return {
        "config": run.config.model_dump(mode="json"),
        "wall_s": run.wall_s,
        "episodes": len(run.results),
        "failed": [
            {
                "index": r.spec.index,
                "task": r.spec.task_id,
                "agents": r.spec.label,
                "size": r.spec.size,
                "seed": r.spec.seed,
                "error": r.error,
            }
            for r in failed
        ],
        "configurations": [configuration_figures(c, _budgets(run, c)) for c in configs],
        "comparisons": comparisons(configs),
    }


# ---------------------------------------------------------------------- Markdown


def duration(seconds: float | None) -> str:
    """Virtual seconds as a short duration: `45s`, `12m`, `2.4h`; `-` for never."""
    if seconds is None:
        return "-"
    if math.isinf(seconds):
        return "inf"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f}h"
    if seconds >= 600:
        return f"{seconds / 60:.0f}m"
    if seconds >= 60:
        return f"{seconds / 60:.1f}".rstrip("0").rstrip(".") + "m"
    return f"{seconds:.0f}s"


def _ratio(x: float | None) -> str:
    if x is None:
        return "-"
    return "inf" if math.isinf(x) else f"{x:.2f}x"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    right = ["---:" if i else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(right) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def _banded(value: float | None, spread: dict[str, Any], fmt: Any, none: str = "never") -> str:
    """A mean-curve figure with the seeds' range: `2.1x [1.8x to 2.4x]`, `never [never: 2]`."""
    text = none if value is None else fmt(value)
    if len(spread["values"]) < 2:
        return text
    parts = []
    if spread["low"] is not None:
        lo, hi = fmt(spread["low"]), fmt(spread["high"])
        parts.append(lo if lo == hi else f"{lo} to {hi}")
    if spread["never"]:
        parts.append(f"{none}: {spread['never']}")
    return f"{text} [{'; '.join(parts)}]"


def _peak(c: dict[str, Any], key: str) -> str:
    """The highest work ratio with its time and the seeds' range: `0.58 at 3.8m [0.52 to 0.61]`."""
    which = "per_agent" if key == "per_agent_at" else "whole"
    p = c["peak"][which]
    text = "-" if p is None else f"{p['ratio']:.2f} at {duration(p['at_s'])}"
    spread = c["seeds"]["peak"][which]
    if len(spread["values"]) > 1 and spread["low"] is not None:
        text += f" [{spread['low']:.2f} to {spread['high']:.2f}]"
    return text


def _dynamics_tables(comps: Sequence[dict[str, Any]]) -> list[str]:
    """Overtaking, the single agent's slowdown and the work ratios, with the seeds' range."""

    def budget(c: dict[str, Any]) -> str:
        b = c["token_budget_per_test"]
        return "-" if b is None else f"{b:g}/test"

    lines = [
        "Dynamics, from the mean curves, with the range over the seeds in brackets (each "
        "seed's mean over the tasks against the single agent's of the same seed):",
        "",
    ]
    rows = []
    for c in comps:
        sd, sp = c["slowdown"], c["seeds"]
        rows.append(
            [
                f"{c['agents']} x{c['size']}",
                budget(c),
                _banded(c["overtakes_at_s"], sp["overtakes_at_s"], duration),
                _banded(c["behind_s"], sp["behind_s"], duration),
                f"{sd['target']:.2f}",
                duration(sd["swarm_s"]),
                duration(sd["single_s"]) if sd["single_s"] is not None else "never",
                _banded(sd["factor"], sp["slowdown"], _ratio),
            ]
        )
    lines += _table(
        [
            "swarm",
            "token budget",
            "overtakes at",
            "behind for",
            "swarm's final",
            "swarm reached it at",
            "single agent at",
            "single agent's slowdown",
        ],
        rows,
    ) + [""]
    labels = list(comps[0]["per_agent_at"])
    rows = []
    for c in comps:
        for key, what in (("per_agent_at", "per agent"), ("ratio_at", "whole swarm")):
            rows.append(
                [f"{c['agents']} x{c['size']}", budget(c), what, _peak(c, key)]
                + [_banded(c[key][k], c["seeds"][key][k], "{:.2f}".format, "-") for k in labels]
            )
    lines += _table(["swarm", "token budget", "work", "peak (at)", *labels], rows) + [""]
    lines += [
        "slowdown: the single agent's time to the swarm's final progress over the swarm's "
        "(never: it did not get there). work: progress by that time of the swarm (per "
        "agent: divided by its size) over the single agent's; -: the single agent had "
        "fixed nothing yet.",
        "",
    ]
    return lines


def markdown(fig: dict[str, Any], plots: Sequence[Path] = ()) -> str:
    """The report: per suite, the bench table, the swarm-vs-single table and the fits."""
    cfg = fig["config"]
    lines = [
        "# swarm-envs bench",
        "",
        f"{fig['episodes']} episodes ({len(fig['failed'])} failed) in {fig['wall_s']:.0f} s of "
        f"wall time with {cfg['workers']} workers; seeds {cfg['seeds']}.",
        "",
        "Progress is the fraction of the tests failing at the start that pass, averaged over "
        'the tasks and seeds of a configuration; times are virtual ("-": never reached).',
        "",
    ]
    for p in plots:
        lines += [f"![{p.stem}]({p.name})", ""]
    suites = sorted({c["suite"] for c in fig["configurations"]})
    for suite in suites:
        configs = [c for c in fig["configurations"] if c["suite"] == suite]
        if not configs:
            continue
        tasks = sorted({t for c in configs for t in c["tasks"]})
        lines += [
            f"## Suite `{suite}`",
            "",
            f"Tasks: {', '.join(tasks)}; time cap {duration(configs[0]['time_cap_s'])}.",
            "",
        ]
        budgets = list(configs[0]["scores_at"])
        header = ["agents", "token budget", "episodes", "final", *budgets]
        header += [f"to {m}" for m in configs[0]["time_to"]] or []
        header += ["tokens", "dup. units", "messages", "conflicts", "top agent", "held-out"]
        rows = []
        for c in configs:
            budget = (
                "-"
                if c["token_budget_per_test"] is None
                else f"{c['token_budget_per_test']:g}/test"
            )
            final = "-" if c["progress_final"] is None else f"{c['progress_final']:.2f}"
            top = max(c["contribution"].values(), default=0.0)
            rows.append(
                [f"{c['agents']} x{c['size']}", budget, str(c["episodes"]), final]
                + [f"{v:.2f}" for v in c["scores_at"].values()]
                + [duration(v) for v in c["time_to"].values()]
                + [
                    f"{c['tokens']:,.0f}",
                    f"{c['duplicated_units']:.1f}/{c['units']:.0f}",
                    f"{c['messages']:.0f}",
                    f"{c['conflicts']:.1f}",
                    f"{top:.0%}",
                    "-" if c["held_out"] is None else f"{c['held_out']:.0%}",
                ]
            )
        lines += _table(header, rows) + [""]
        lines += [
            "final, @budgets: progress; tokens: per episode, all agents; dup. units: units "
            "whose test changes followed writes by more than one agent; conflicts: edits "
            "whose text someone had already changed; top agent: the busiest agent's share of "
            "the tests gained; held-out: the task's held-out tests passing at the end.",
            "",
        ]
        comps = [c for c in fig["comparisons"] if c["suite"] == suite]
        if comps:
            lines += ["Swarms against the single agent of their family:", ""]
            rows = [
                [
                    f"{c['agents']} x{c['size']}",
                    c["single"] + " x1",
                    "-"
                    if c["token_budget_per_test"] is None
                    else f"{c['token_budget_per_test']:g}/test",
                    _ratio(c["speedup_50"]),
                    _ratio(c["speedup_90"]),
                    _ratio(c["speedup_100"]),
                    duration(c["overtakes_at_s"]) if c["overtakes_at_s"] is not None else "never",
                    duration(c["behind_s"]),
                    f"{c['largest_deficit']:.2f}",
                ]
                for c in comps
            ]
            lines += _table(
                [
                    "swarm",
                    "single",
                    "token budget",
                    "speed-up to 50%",
                    "speed-up to 90%",
                    "speed-up to 100%",
                    "overtakes at",
                    "behind for",
                    "largest deficit",
                ],
                rows,
            ) + [""]
        if comps:
            lines += _dynamics_tables(comps)
        lines += [
            "Log-sigmoid fit of the mean progress, `p(t) = plateau / (1 + (t50/t)^slope)`:",
            "",
        ]
        rows = []
        for c in configs:
            f = c["fit"]
            rows.append(
                [
                    f"{c['agents']} x{c['size']}",
                    "-"
                    if c["token_budget_per_test"] is None
                    else f"{c['token_budget_per_test']:g}/test",
                ]
                + (
                    ["no fit (flat curve)", "", "", ""]
                    if f is None
                    else [
                        f"{f['plateau']:.2f}",
                        duration(f["t50"]),
                        f"{f['slope']:.2f}",
                        f"{f['r2']:.3f}",
                    ]
                )
            )
        lines += _table(["agents", "token budget", "plateau", "t50", "slope", "R^2"], rows) + [""]
    if fig["failed"]:
        lines += ["## Failed episodes", ""]
        lines += [
            f"- #{f['index']} {f['task']} {f['agents']} x{f['size']} seed {f['seed']}: {f['error']}"
            for f in fig["failed"]
        ]
        lines += [""]
    lines += [
        "Every episode: `episodes.jsonl`; the rollout runner's trajectories: "
        "`trajectories.jsonl`; every figure: `figures.json`.",
        "",
    ]
    return "\n".join(lines)


def write_report(run: BenchRun) -> Path:
    """Write `figures.json`, the plots and `report.md` under the run's folder; the report's path."""
    out = Path(run.out)
    fig = figures(run)
    (out / "figures.json").write_text(json.dumps(fig, indent=1) + "\n", encoding="utf-8")
    plots: list[Path] = []
    if run.config.plots:
        from swarm_envs.bench.plots import draw_all

        plots = draw_all(run, fig, out)
    report = out / "report.md"
    report.write_text(markdown(fig, plots), encoding="utf-8")
    return report
