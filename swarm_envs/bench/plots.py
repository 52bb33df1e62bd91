"""The bench's PNG plots (matplotlib, no display needed).

- `progress_SUITE.png`: the mean progress of every configuration against virtual time,
  with the band from its lowest to its highest episode, the @time budgets marked; one
  panel without and one under the equal token budget when the bench ran both.
- `work_SUITE.png`: the useful work per agent of each swarm over the single agent's
  (`swarm(t) / size / single(t)`, the mean curves), and the whole swarm's
  (`swarm(t) / single(t)`), against virtual time, log scale, up to the last change.
- `timeline.png`: for every configuration, what each agent of its first episode did,
  action by action (a Gantt chart), its messages as marks, and the passing tests.

Every figure draws a configuration's agents in one colour (`Style`, from every
configuration of the bench, so that `claim` is the same colour in each figure) and its
swarm size in one line style (the single agent dashed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
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
#: the configurations' colours, in order of their agents' labels (tab10 without its grey)
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#bcbd22",
    "#17becf",
)
#: line styles of swarm sizes, smallest swarm first (the single agent is always dashed)
SIZE_STYLES = ("-", "-.", ":", (0, (5, 1, 1, 1, 1, 1)))


@dataclass(frozen=True)
class Style:
    """One colour per kind of agents and one line style per swarm size, for every figure.

    Built once from every configuration of a bench, so that the same agents have the
    same colour in each figure whichever configurations a figure shows.
    """

    colours: dict[str, str]
    styles: dict[int, Any]

    @classmethod
    def of(cls, labels: Iterable[str], sizes: Iterable[int]) -> Style:
        """The style of a bench whose configurations have these agents and sizes."""
        colours = {a: PALETTE[i % len(PALETTE)] for i, a in enumerate(sorted(set(labels)))}
        swarms = sorted(set(sizes) - {1})
        styles: dict[int, Any] = {
            n: SIZE_STYLES[i % len(SIZE_STYLES)] for i, n in enumerate(swarms)
        }
        styles[1] = "--"
        return cls(colours, styles)

    @classmethod
    def of_figures(cls, fig: dict[str, Any]) -> Style:
        """The style of every configuration in `fig`."""
        configs = fig["configurations"]
        return cls.of((c["agents"] for c in configs), (c["size"] for c in configs))

    def colour(self, agents: str) -> str:
        """The colour of a configuration's agents."""
        return self.colours.get(agents, "#7f7f7f")

    def line(self, size: int) -> Any:
        """The line style of a swarm size."""
        return self.styles.get(size, "-")


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


def _last_change(configs: Iterable[dict[str, Any]], horizon: float) -> float:
    """The latest time any configuration's mean curve changes (its last point)."""
    return max((c["curve"]["t"][-1] for c in configs if c["curve"]["t"]), default=horizon)


def progress_plot(fig: dict[str, Any], suite: str, path: Path, style: Style | None = None) -> Path:
    """Mean progress with seed bands per configuration of `suite`; returns `path`."""
    plt = _pyplot()
    style = style or Style.of_figures(fig)
    configs = [c for c in fig["configurations"] if c["suite"] == suite and c["episodes"]]
    modes = sorted({c["token_budget_per_test"] for c in configs}, key=lambda b: b is not None)
    horizon = max(c["time_cap_s"] for c in configs)
    unit, per = time_unit(horizon)
    f, axes = plt.subplots(
        1, len(modes), figsize=(6.4 * len(modes), 4.2), squeeze=False, sharey=True
    )
    budgets = fig["config"]["budgets_s"] or _budgets_of(configs)
    # Everything may be over long before the cap: show until the last change (and the
    # budgets), not an empty stretch to the cap.
    last = _last_change(configs, horizon)
    xmax = min(horizon, max(last * 1.15, min(budgets, default=horizon) * 1.15))
    for ax, mode in zip(axes[0], modes, strict=True):
        for c in (c for c in configs if c["token_budget_per_test"] == mode):
            curve = c["curve"]
            t, mean = _extend(curve["t"], curve["mean"], horizon)
            _, low = _extend(curve["t"], curve["low"], horizon)
            _, high = _extend(curve["t"], curve["high"], horizon)
            x = [v / per for v in t]
            colour = style.colour(c["agents"])
            single = c["size"] == 1
            name = f"1 agent ({c['agents']})" if single else f"{c['agents']} x{c['size']}"
            ax.step(
                x,
                mean,
                where="post",
                color=colour,
                lw=2.2 if single else 1.8,
                ls=style.line(c["size"]),
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


def work_plot(
    fig: dict[str, Any], suite: str, path: Path, style: Style | None = None
) -> Path | None:
    """Per-agent work of every swarm of `suite` over its single agent's; None if none."""
    from swarm_envs.bench.measures import work_ratio

    style = style or Style.of_figures(fig)
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
    horizon = max(c["time_cap_s"] for c in configs)
    # Up to the last change of any curve shown (the ratios hold after it), not the cap.
    shown = [c for pair in pairs for c in pair]
    end = min(horizon, _last_change(shown, horizon) * 1.15)
    unit, per = time_unit(end)
    for ax, whole in zip(axes, (False, True), strict=True):
        for c, one in pairs:
            swarm = list(zip(c["curve"]["t"], c["curve"]["mean"], strict=True))
            alone = list(zip(one["curve"]["t"], one["curve"]["mean"], strict=True))
            times = sorted({t for t, _ in swarm} | {t for t, _ in alone} | {end})
            times = [t for t in times if t <= end]
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
                color=style.colour(c["agents"]),
                ls=style.line(c["size"]),
                lw=1.8 if budget is None else 1.1,
                alpha=1.0 if budget is None else 0.6,
                label=f"{c['agents']} x{c['size']}"
                + ("" if budget is None else f", {budget:g} tokens/test"),
            )
        ax.axhline(1.0, color="0.4", lw=0.9, ls=":")
        ax.set_xscale("log")
        first = min((t for c in shown for t in c["curve"]["t"] if t > 0), default=None)
        if first is not None and first < end:
            ax.set_xlim(first / per, end / per)
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


def timeline_plot(results: Sequence[EpisodeResult], path: Path, style: Style | None = None) -> Path:
    """Gantt charts of episodes, one panel each; returns `path`.

    Each panel shows every agent's actions, its messages, and the passing tests (on the
    right axis).
    """
    plt = _pyplot()
    if style is None:
        style = Style.of((r.spec.label for r in results), (r.spec.size for r in results))
    rows = [min(len(r.agents), MAX_ROWS) for r in results]
    heights = [0.9 + 0.3 * n for n in rows]
    f, axes = plt.subplots(
        len(results),
        1,
        figsize=(9.5, sum(heights) + 1.2),
        squeeze=False,
        gridspec_kw={"height_ratios": heights},
    )
    used: dict[str, str] = {}
    messages = False
    for ax, result in zip(axes[:, 0], results, strict=True):
        used.update(_timeline_panel(ax, result, style))
        messages = messages or any(a.messages for a in result.agents[:MAX_ROWS])
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in used.values()]
    labels = list(used)
    if messages:
        handles.append(plt.Line2D([], [], marker="v", color="#54278f", ls="none"))
        labels.append("message sent")
    handles.append(plt.Line2D([], [], color="#238b45", lw=1.6))
    labels.append("tests passing (right axis)")
    f.legend(
        handles, labels, loc="lower center", ncol=min(len(labels), 5), fontsize=8, frameon=False
    )
    f.tight_layout(rect=(0, 0.7 / (sum(heights) + 1.2), 1, 1))
    f.savefig(path, dpi=110)
    plt.close(f)
    return path


def _timeline_panel(ax: Any, result: EpisodeResult, style: Style) -> dict[str, str]:
    """One episode's Gantt chart on `ax`; returns the activities drawn (label: colour)."""
    agents = result.agents[:MAX_ROWS]
    end = max(result.duration_s, 1e-9)
    unit, per = time_unit(end)
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
    ax.set_yticks(range(len(agents)), [a.name for a in agents], fontsize=8)
    ax.set_ylim(len(agents) - 0.4, -0.8)
    ax.set_xlim(0, end * 1.02 / per)
    ax.set_xlabel(f"virtual time ({unit})", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    tests = ax.twinx()
    t = [p[0] / per for p in result.curve] + [end / per]
    v = [p[1] for p in result.curve] + [result.curve[-1][1] if result.curve else 0]
    tests.step(t, v, where="post", color="#238b45", lw=1.6)
    tests.set_ylim(0, result.tests_total * 1.05 or 1)
    tests.set_ylabel("tests", fontsize=8, color="#238b45")
    tests.tick_params(axis="y", labelsize=7, colors="#238b45")
    s = result.spec
    more = f" (first {MAX_ROWS} of {len(result.agents)})" if len(result.agents) > MAX_ROWS else ""
    who = f"1 agent ({s.label})" if s.size == 1 else f"{s.label} x{s.size}"
    budget = "" if s.budget_per_test is None else f", {s.budget_per_test:g} tokens/test"
    ax.set_title(
        f"{who}{budget}: {s.task_id}, seed {s.seed}{more}: "
        f"{result.tests_final}/{result.tests_total} tests, {result.end_reason}",
        fontsize=9,
        color=style.colour(s.label),
        loc="left",
    )
    return used


def timeline_episodes(results: Sequence[EpisodeResult]) -> list[EpisodeResult]:
    """The episodes the timeline shows: each configuration's first, in grid order."""
    shown: dict[tuple[Any, ...], EpisodeResult] = {}
    for r in sorted((r for r in results if r.status == "ok" and r.agents), key=_grid):
        s = r.spec
        shown.setdefault((s.suite, s.label, s.size, s.budget_per_test), r)
    return list(shown.values())


def _grid(r: EpisodeResult) -> tuple[Any, ...]:
    s = r.spec
    return (s.suite, s.size, s.label, s.budget_per_test is not None, s.index)


def draw_all(run: BenchRun, fig: dict[str, Any], out: Path) -> list[Path]:
    """Every plot of a bench under `out`; their paths."""
    style = Style.of_figures(fig)
    paths = []
    for suite in sorted({c["suite"] for c in fig["configurations"] if c["episodes"]}):
        paths.append(progress_plot(fig, suite, out / f"progress_{suite}.png", style))
        work = work_plot(fig, suite, out / f"work_{suite}.png", style)
        if work is not None:
            paths.append(work)
    shown = timeline_episodes(run.results)
    if shown:
        paths.append(timeline_plot(shown, out / "timeline.png", style))
    return paths
