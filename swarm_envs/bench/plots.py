"""The bench's PNG plots (matplotlib, no display needed).

- `progress_SUITE.png`: the mean progress of every configuration against virtual time,
  with the band from its lowest to its highest episode, the @time budgets marked; one
  panel without and one under the equal token budget when the bench ran both.
- `work_SUITE.png`: the useful work per agent of each swarm over the single agent's
  (`swarm(t) / size / single(t)`, the mean curves), and the whole swarm's
  (`swarm(t) / single(t)`), against virtual time, log scale.
- `timeline.png`: what each agent of one swarm did, action by action (a Gantt chart),
  its messages as marks, over the episode's passing tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from swarm_envs.bench.measures import budget_label, time_unit
from swarm_envs.bench.runner import BenchRun, EpisodeResult

#: actions on the timeline, in legend order: (tools, colour, legend label)
ACTIVITIES: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("read_file", "list_files"), "#9ecae1", "read"),
    (("edit_file", "write_file"), "#fd8d3c", "edit / write"),
    (("run_tests",), "#74c476", "run tests"),
    (("run_command",), "#c7e9c0", "command"),
    (("post", "send_message", "subscribe"), "#9e9ac8", "messages"),
    (("wait", "done"), "#e5e5e5", "wait / done"),
)
_OTHER = ("#bdbdbd", "other")
MAX_ROWS = 32


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _extend(t: Sequence[float], v: Sequence[float], end: float) -> tuple[list[float], list[float]]:
    """A step curve's points with a last one at `end` (it holds its last value)."""
    t, v = list(t), list(v)
    if t and t[-1] < end:
        t.append(end)
        v.append(v[-1])
    return t, v


def progress_plot(fig: dict[str, Any], suite: str, path: Path) -> Path:
    """Mean progress with seed bands per configuration of `suite`; returns `path`."""
    plt = _pyplot()
    configs = [c for c in fig["configurations"] if c["suite"] == suite and c["episodes"]]
    modes = sorted({c["token_budget_per_test"] for c in configs}, key=lambda b: b is not None)
    horizon = max(c["time_cap_s"] for c in configs)
    unit, per = time_unit(horizon)
    names = sorted({(c["agents"], c["size"]) for c in configs}, key=lambda k: (k[1], k[0]))
    colours = {k: plt.get_cmap("tab10")(i % 10) for i, k in enumerate(names)}
    f, axes = plt.subplots(
        1, len(modes), figsize=(6.4 * len(modes), 4.2), squeeze=False, sharey=True
    )
    budgets = fig["config"]["budgets_s"] or _budgets_of(configs)
    # Everything may be over long before the cap: show until the last change (and the
    # budgets), not an empty stretch to the cap.
    last = max((c["curve"]["t"][-1] for c in configs), default=horizon)
    xmax = min(horizon, max(last * 1.15, min(budgets, default=horizon) * 1.15))
    for ax, mode in zip(axes[0], modes, strict=True):
        for c in (c for c in configs if c["token_budget_per_test"] == mode):
            curve = c["curve"]
            t, mean = _extend(curve["t"], curve["mean"], horizon)
            _, low = _extend(curve["t"], curve["low"], horizon)
            _, high = _extend(curve["t"], curve["high"], horizon)
            x = [v / per for v in t]
            colour = colours[(c["agents"], c["size"])]
            single = c["size"] == 1
            name = f"1 agent ({c['agents']})" if single else f"{c['agents']} x{c['size']}"
            ax.step(
                x,
                mean,
                where="post",
                color=colour,
                lw=2.2 if single else 1.8,
                ls="--" if single else "-",
                label=f"{name}, {c['episodes']} ep.",
            )
            if c["episodes"] > 1:
                ax.fill_between(x, low, high, step="post", color=colour, alpha=0.15, lw=0)
        shown = [b for b in budgets if b <= xmax]
        for i, b in enumerate(shown):
            ax.axvline(b / per, color="0.6", lw=0.8, ls=":")
            ax.annotate(
                budget_label(b),
                (b / per, 1.0),
                xytext=(2, -10 - 9 * (i % 2)),
                textcoords="offset points",
                fontsize=7,
                color="0.35",
                ha="left",
                xycoords=("data", "axes fraction"),
            )
        ax.set_xlim(0, xmax / per)
        ax.set_ylim(0, 1.12)
        ax.set_xlabel(f"virtual time ({unit})")
        ax.grid(alpha=0.3)
        ax.set_title(
            "no token budget"
            if mode is None
            else f"equal total token budget: {mode:g} tokens per test, shared by the swarm",
            fontsize=9,
        )
        ax.legend(loc="lower right", fontsize=8)
    axes[0][0].set_ylabel("progress (share of failing tests fixed)")
    tasks = sorted({t for c in configs for t in c["tasks"]})
    names_ = ", ".join(tasks[:3]) + (f" +{len(tasks) - 3} more" if len(tasks) > 3 else "")
    f.suptitle(
        f"Suite {suite} ({names_}): mean progress over virtual time\n"
        "band: lowest to highest episode (tasks x seeds); dotted: @time budgets",
        fontsize=10,
    )
    f.tight_layout()
    f.savefig(path, dpi=110)
    plt.close(f)
    return path


def work_plot(fig: dict[str, Any], suite: str, path: Path) -> Path | None:
    """Per-agent work of every swarm of `suite` over its single agent's; None if none."""
    from swarm_envs.bench.measures import work_ratio

    configs = [c for c in fig["configurations"] if c["suite"] == suite and c["episodes"]]
    single = {(c["family"], c["token_budget_per_test"]): c for c in configs if c["size"] == 1}
    pairs = [
        (c, single[(c["family"], c["token_budget_per_test"])])
        for c in configs
        if c["size"] > 1 and (c["family"], c["token_budget_per_test"]) in single
    ]
    if not pairs:
        return None
    plt = _pyplot()
    f, axes = plt.subplots(1, 2, figsize=(12.4, 4.2))
    names = sorted({(c["agents"], c["size"]) for c, _ in pairs}, key=lambda k: (k[1], k[0]))
    colours = {k: plt.get_cmap("tab10")(i % 10) for i, k in enumerate(names)}
    horizon = max(c["time_cap_s"] for c in configs)
    unit, per = time_unit(horizon)
    for ax, whole in zip(axes, (False, True), strict=True):
        for c, one in pairs:
            swarm = list(zip(c["curve"]["t"], c["curve"]["mean"], strict=True))
            alone = list(zip(one["curve"]["t"], one["curve"]["mean"], strict=True))
            times = sorted({t for t, _ in swarm} | {t for t, _ in alone} | {horizon})
            xs, ys = [], []
            for t in times:
                r = work_ratio(swarm, alone, t, 1 if whole else c["size"])
                if r is not None and t > 0:
                    xs.append(t / per)
                    ys.append(r)
            budget = c["token_budget_per_test"]
            ax.step(
                xs,
                ys,
                where="post",
                color=colours[(c["agents"], c["size"])],
                ls="-" if budget is None else "--",
                label=f"{c['agents']} x{c['size']}"
                + ("" if budget is None else f", {budget:g} tokens/test"),
            )
        ax.axhline(1.0, color="0.4", lw=0.9, ls=":")
        ax.set_xscale("log")
        ax.set_xlabel(f"virtual time ({unit}, log scale)")
        ax.grid(alpha=0.3, which="both")
        ax.set_ylabel(
            "swarm's progress / single agent's"
            if whole
            else "progress per swarm agent / single agent's"
        )
        ax.set_title(
            "whole swarm (1: as far as the agent alone)"
            if whole
            else "per agent (1: each does as much as an agent alone)",
            fontsize=9,
        )
    axes[0].legend(fontsize=8)
    f.suptitle(
        f"Suite {suite}: work of the swarm against the single agent, mean curves", fontsize=10
    )
    f.tight_layout()
    f.savefig(path, dpi=110)
    plt.close(f)
    return path


def _budgets_of(configs: Sequence[dict[str, Any]]) -> list[float]:
    from swarm_envs.bench.config import BUDGET_UNITS, suite_scale

    unit = suite_scale(configs[0]["suite"])[1]
    return [unit * k for k in BUDGET_UNITS]


def _activity(tool: str) -> tuple[str, str]:
    for tools, colour, label in ACTIVITIES:
        if tool in tools:
            return colour, label
    return _OTHER


def timeline_plot(result: EpisodeResult, path: Path) -> Path:
    """A Gantt chart of one episode: each agent's actions, its messages, passing tests."""
    plt = _pyplot()
    agents = result.agents[:MAX_ROWS]
    end = max(result.duration_s, 1e-9)
    unit, per = time_unit(end)
    height = 1.6 + 0.32 * len(agents)
    f, (top, ax) = plt.subplots(
        2,
        1,
        figsize=(9, height + 1.4),
        sharex=True,
        gridspec_kw={"height_ratios": [1.4, height]},
    )
    t = [p[0] / per for p in result.curve] + [end / per]
    v = [p[1] for p in result.curve] + [result.curve[-1][1] if result.curve else 0]
    top.step(t, v, where="post", color="#238b45", lw=1.8)
    top.axhline(result.tests_total, color="0.6", lw=0.8, ls=":")
    top.annotate(
        "all tests",
        (0, result.tests_total),
        xytext=(2, 2),
        textcoords="offset points",
        fontsize=7,
        color="0.35",
    )
    top.set_ylabel("tests\npassing")
    top.set_ylim(0, result.tests_total * 1.25 or 1)
    top.grid(alpha=0.3)
    used: dict[str, str] = {}
    for row, a in enumerate(agents):
        by_colour: dict[str, list[tuple[float, float]]] = {}
        for start, stop, tool in a.segments:
            colour, label = _activity(tool)
            used[label] = colour
            by_colour.setdefault(colour, []).append((start / per, max(stop - start, 0) / per))
        for colour, spans in by_colour.items():
            ax.broken_barh(spans, (row - 0.38, 0.76), facecolors=colour, edgecolor="none")
        if a.messages:
            ax.plot(
                [m / per for m in a.messages],
                [row - 0.5] * len(a.messages),
                "v",
                color="#54278f",
                ms=5,
                ls="none",
            )
        if a.error:
            ax.text(end / per, row, " agent_error", va="center", fontsize=7, color="#a50f15")
    ax.set_yticks(range(len(agents)), [a.name for a in agents])
    ax.set_ylim(len(agents) - 0.4, -0.8)
    ax.set_xlim(0, end * 1.02 / per)
    ax.set_xlabel(f"virtual time ({unit})")
    ax.grid(axis="x", alpha=0.3)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in used.values()]
    labels = list(used)
    if any(a.messages for a in agents):
        handles.append(plt.Line2D([], [], marker="v", color="#54278f", ls="none"))
        labels.append("message sent")
    f.legend(
        handles, labels, loc="lower center", ncol=min(len(labels), 7), fontsize=8, frameon=False
    )
    s = result.spec
    more = f" (first {MAX_ROWS} of {len(result.agents)})" if len(result.agents) > MAX_ROWS else ""
    top.set_title(
        f"{s.task_id}: {s.label} x{s.size}, seed {s.seed}{more}: "
        f"{result.tests_final}/{result.tests_total} tests, {result.end_reason}",
        fontsize=10,
    )
    f.tight_layout(rect=(0, 0.3 / (height + 1.4), 1, 1))
    f.savefig(path, dpi=110)
    plt.close(f)
    return path


def timeline_episode(results: Sequence[EpisodeResult]) -> EpisodeResult | None:
    """The episode the timeline shows: the largest swarm's first episode (most to see)."""
    ok = [r for r in results if r.status == "ok" and r.agents]
    if not ok:
        return None
    return min(ok, key=lambda r: (-r.spec.size, r.spec.budget_per_test is not None, r.spec.index))


def draw_all(run: BenchRun, fig: dict[str, Any], out: Path) -> list[Path]:
    """Every plot of a bench under `out`; their paths."""
    paths = []
    for suite in sorted({c["suite"] for c in fig["configurations"] if c["episodes"]}):
        paths.append(progress_plot(fig, suite, out / f"progress_{suite}.png"))
        work = work_plot(fig, suite, out / f"work_{suite}.png")
        if work is not None:
            paths.append(work)
    shown = timeline_episode(run.results)
    if shown is not None:
        paths.append(timeline_plot(shown, out / "timeline.png"))
    return paths
