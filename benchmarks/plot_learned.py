"""Learned swarms beyond calc: the tables and figures of docs/training.md, from run outputs.

Reads what the commands of docs/training.md wrote, and nothing else:

- the PPO runs under `--runs` (each run folder's `checkpoint.pt`: its options and one row
  per update; `eval.json`: the held-out evaluation at the end of training);
- the scripted swarms' episodes of `swarm-envs bench` (`--scripted`, each folder's
  `episodes.jsonl`; where two folders have the same task and strategy, the later one's);
- the village evaluations (`--village`, JSON files written by `--eval-out`);
- the wall times of the commands (`--log`, lines `HH:MM:SS end NAME ... wall=Ns`).

Prints Markdown tables; `--curves` and `--village-plot` draw the PNGs. `--variants TASK`
prints instead the table of what was changed on TASK (the PPO variants of `VARIANTS`, by
exp name, seed by seed, with the untrained controls), and `--variants-plot` draws their
curves.

    python benchmarks/plot_learned.py --runs runs/learned \\
        --scripted results/learned/scripted_n8 --village results/learned/village_*.json \\
        --log results/learned/log.txt --curves docs/img/ppo_swarm_curves.png \\
        --village-plot docs/img/village.png
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

import numpy as np

STRATEGIES = ("none", "claim", "leader")


# ---------------------------------------------------------------------------- inputs


def load_runs(root: Path) -> list[dict]:
    """Every PPO run under `root`: its options, its history and its end-of-training eval."""
    import torch

    out = []
    for ckpt in sorted(root.rglob("checkpoint.pt")):
        state = torch.load(ckpt, weights_only=False, map_location="cpu")
        ev = ckpt.parent / "eval.json"
        out.append(
            {
                "dir": ckpt.parent.name,
                "args": state["args"],
                "history": state["history"],
                "eval": json.loads(ev.read_text()) if ev.exists() else None,
            }
        )
    return out


def progress_at(curve: list[tuple[float, float]], t: float) -> float:
    """A step-function progress curve's value at time t."""
    return next((p for s, p in reversed(curve) if s <= t), 0.0)


def load_scripted(folder: Path) -> dict[tuple[str, str], list[dict]]:
    """The bench's episodes by (task id, strategy), each with its progress curve."""
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for line in (folder / "episodes.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["status"] != "ok":
            continue
        todo = r["tests_total"] - r["tests_start"]
        curve = [(t, (n - r["tests_start"]) / todo if todo else 1.0) for t, n in r["curve"]]
        gained = np.array([max(a["gained"] - a["lost"], 0.0) for a in r["agents"]])
        out[(r["spec"]["task_id"], r["spec"]["agent"]["strategy"])].append(
            {
                "curve": curve,
                "dup_units": len(r["duplicated_units"]),
                "messages": r["messages"],
                "conflicts": r["conflicts"],
                "top": float(gained.max() / gained.sum()) if gained.sum() > 0 else 0.0,
                "contributors": float((gained > 0).mean()),
                "wall_s": r["wall_s"],
            }
        )
    return out


def load_walls(log: Path | None) -> dict[str, int]:
    """Wall seconds of each command of the log, by name."""
    if log is None or not log.exists():
        return {}
    hits = re.findall(r"end (\S+)(?: rc=\d+)? wall=(\d+)s", log.read_text())
    return {name: int(s) for name, s in hits}


def control_names(path: Path, task: str, walls: dict[str, int]) -> dict[str, str]:
    """The label and wall time of an untrained control, from its file's name.

    `untrained_TASK_n8.json` (seed 1), `untrained_sK_TASK_n8.json` (seed K),
    `untrained_dep_TASK_n8.json` (seed 1, with the dependency feature); the log names
    their commands `untrained_TASK` (or, run again, `untrained_TASK_n8_s1`),
    `untrained_TASK_n8_sK` and `untrained_dep_TASK_n8`.
    """
    stem = path.stem
    seed = re.match(r"untrained_s(\d+)_", stem)
    if seed:
        k = seed.group(1)
        return {"label": f"untrained network (seed {k})",
                "wall": str(walls.get(f"untrained_{task}_n8_s{k}", "?"))}  # fmt: skip
    if stem.startswith("untrained_dep_"):
        return {"label": "untrained network, dependency feature (seed 1)",
                "wall": str(walls.get(stem, "?"))}  # fmt: skip
    wall = walls.get(f"untrained_{task}_n8_s1", walls.get(f"untrained_{task}", "?"))  # newest
    return {"label": "untrained network (seed 1)", "wall": str(wall)}


def mean_curve(curves: list[list[tuple[float, float]]]) -> list[tuple[float, float]]:
    times = sorted({t for c in curves for t, _ in c})
    return [(t, float(np.mean([progress_at(c, t) for c in curves]))) for t in times]


def time_to(curve, level=0.9):
    return next((t for t, p in curve if p >= level - 1e-12), None)


def fmt_t(t) -> str:
    return "-" if t is None else f"{t:.0f} s"


def load_village(files: list[Path], runs: list[dict]) -> list[dict]:
    """The village evaluations by policy: files `village_EXP[_SUFFIX].json` of one policy
    merged, with the rows of its run's own end-of-training evaluation (its final size)."""
    by_exp: dict[str, dict] = {}
    for f in files:
        doc = json.loads(f.read_text())
        exp = re.sub(r"_\d+$", "", f.stem.removeprefix("village_"))
        if exp in by_exp:
            by_exp[exp]["rows"] += doc["rows"]
        else:
            by_exp[exp] = doc
    task = next(iter(by_exp.values()))["task"] if by_exp else None
    for r in runs:  # policies evaluated only at the end of training (one size)
        a = r["args"]
        variant = a["exp_name"] in VARIANTS and a["exp_name"] != "ppo_n8"  # item 3's, not 4's
        if r["eval"] and a["exp_name"] not in by_exp and r["eval"]["task"] == task and not variant:
            if a["seed"] == 1 and r["eval"]["updates_trained"] > 0:
                by_exp[a["exp_name"]] = {**r["eval"], "rows": []}
    out = []
    for exp, doc in by_exp.items():
        task = doc["task"].removesuffix("-v0")
        for r in runs:
            a = r["args"]
            if a["exp_name"] == exp and a["task"] == task and a["seed"] == 1 and r["eval"]:
                have = {row["num_agents"] for row in doc["rows"]}
                doc["rows"] += [row for row in r["eval"]["rows"] if row["num_agents"] not in have]
        doc["rows"].sort(key=lambda row: row["num_agents"])
        trained = doc["trained_num_agents"]
        sizes = "untrained" if not trained else ", ".join(map(str, trained))
        doc["label"] = f"{exp} ({sizes})"
        doc["trained"] = set(trained)
        out.append(doc)
    return out


# ---------------------------------------------------------------------------- tables


def learning_table(runs, scripted, walls, controls) -> None:
    tasks = sorted({r["args"]["task"] for r in runs if r["args"]["exp_name"] == "ppo_n8"})
    for task in tasks:
        ours = sorted(
            (r for r in runs if r["args"]["exp_name"] == "ppo_n8" and r["args"]["task"] == task),
            key=lambda r: r["args"]["seed"],
        )
        task_id = (ours[0]["eval"] or {}).get("task", f"{task}-v0")
        h0 = ours[0]["history"]
        caps = [row["charts/time_cap"] for row in h0]
        print(f"\n### {task}: 8 agents, caps {caps[0]:g} -> {caps[-1]:.4g} s over {len(caps)}")
        print(
            "\n| swarm | progress, update 1 (training) | last update (training) "
            "| held-out at 60 s | to 90% | dup. units | dup. edits (share) | messages "
            "| top agent | agents contributing | wall |"
        )
        print("| --- |" + " ---: |" * 10)
        nan = float("nan")
        for r in ours:
            h, ev = r["history"], (r["eval"] or {"rows": [{}]})["rows"][0]
            name = f"train_{task}_n8_s{r['args']['seed']}"
            units = ev.get("duplicated_units")
            cells = [
                f"PPO seed {r['args']['seed']}",
                f"{h[0].get('swarm/progress', nan):.3f}",
                f"{h[-1].get('swarm/progress', nan):.3f}",
                f"{ev.get('progress', nan):.3f} "
                f"[{ev.get('progress_min', nan):.2f}-{ev.get('progress_max', nan):.2f}]",
                fmt_t(ev.get("time_to_90")),
                "n/a" if units is None else f"{units:.1f}",
                f"{ev.get('duplicated_work', nan):.2f}",
                f"{ev.get('messages', nan):.1f}",
                f"{ev.get('top_agent_share', nan):.2f}",
                f"{ev.get('contributors', nan):.2f}",
                f"{walls.get(name, '?')} s",
            ]
            print("| " + " | ".join(cells) + " |")
        for c in controls.get(task_id, []):
            ev = c["rows"][0]
            mc = ev["curve"]
            cells = [
                c["label"],
                f"{progress_at(mc, caps[0]):.3f} (at {caps[0]:g} s)",
                f"{progress_at(mc, caps[-1]):.3f} (at {caps[-1]:.4g} s)",
                f"{ev['progress']:.3f} [{ev['progress_min']:.2f}-{ev['progress_max']:.2f}]",
                fmt_t(ev["time_to_90"]),
                f"{ev['duplicated_units']:.1f}",
                f"{ev['duplicated_work']:.2f}",
                f"{ev['messages']:.1f}",
                f"{ev['top_agent_share']:.2f}",
                f"{ev['contributors']:.2f}",
                f"{c['wall']} s",
            ]
            print("| " + " | ".join(cells) + " |")
        for s in STRATEGIES:
            eps = scripted.get((task_id, s), [])
            if not eps:
                continue
            mc = mean_curve([e["curve"] for e in eps])
            finals = [e["curve"][-1][1] for e in eps]
            print(
                f"| scripted {s} | {progress_at(mc, caps[0]):.3f} (at {caps[0]:g} s)"
                f" | {progress_at(mc, caps[-1]):.3f} (at {caps[-1]:.4g} s)"
                f" | {progress_at(mc, 60.0):.3f} [{min(finals):.2f}-{max(finals):.2f}]"
                f" | {fmt_t(time_to(mc))}"
                f" | {np.mean([e['dup_units'] for e in eps]):.1f} | n/a"
                f" | {np.mean([e['messages'] for e in eps]):.1f}"
                f" | {np.mean([e['top'] for e in eps]):.2f}"
                f" | {np.mean([e['contributors'] for e in eps]):.2f}"
                f" | {sum(e['wall_s'] for e in eps):.0f} s ({len(eps)} episodes) |"
            )


VARIANTS = {
    "ppo_n8": "PPO",
    "ppo_n8_dep": "PPO + dependency feature",
    "ppo_n8_attr": "PPO + attributed credit",
    "ppo_n8_dep_attr": "PPO + both",
    "ppo_n8_b128": "PPO, 128 episodes",
    "ppo_n8_both_b128": "PPO + both, 128 episodes",
    "ppo_n8_u24": "PPO, 24 updates",
    "ppo_n8_dep_u24": "PPO + dependency feature, 24 updates",
    "ppo_n8_attr_u24": "PPO + attributed credit, 24 updates",
    "ppo_n8_both_u24": "PPO + both, 24 updates",
}


def variants_table(runs, task: str, walls, controls) -> None:
    """The runs of each variant (`VARIANTS`, by exp name) on `task`: seed by seed, then the mean."""
    print(
        f"\n### {task}: what was changed (8 agents, held-out at 60 s)"
        "\n\n| swarm | seed | progress, update 1 | last update | held-out at 60 s "
        "| dup. edits (share) | top agent | agents contributing | entropy, expl. var. (last) "
        "| wall |"
    )
    print("| --- | ---: |" + " ---: |" * 8)
    for exp, label in VARIANTS.items():
        ours = sorted(
            (r for r in runs if r["args"]["exp_name"] == exp and r["args"]["task"] == task),
            key=lambda r: r["args"]["seed"],
        )
        held = []
        nan = float("nan")
        for r in ours:
            h, ev = r["history"], (r["eval"] or {"rows": [{}]})["rows"][0]
            seed = r["args"]["seed"]
            suffix = exp.removeprefix("ppo_n8")
            wall = walls.get(f"train_{task}_n8{suffix}_s{seed}", "?")
            if "progress" in ev:
                held.append(ev["progress"])
            cells = [
                label,
                str(seed),
                f"{h[0]['swarm/progress']:.3f}",
                f"{h[-1]['swarm/progress']:.3f}",
                f"{ev.get('progress', nan):.3f} "
                f"[{ev.get('progress_min', nan):.2f}-{ev.get('progress_max', nan):.2f}]"
                f" ({ev.get('episodes', '?')})",
                f"{ev.get('duplicated_work', nan):.2f}",
                f"{ev.get('top_agent_share', nan):.2f}",
                f"{ev.get('contributors', nan):.2f}",
                f"{h[-1].get('losses/entropy', nan):.2f}, "
                f"{h[-1].get('losses/explained_variance', nan):.2f}",
                f"{wall} s",
            ]
            print("| " + " | ".join(cells) + " |")
        if len(held) > 1:
            print(
                f"| **{label}, mean** | {len(held)} seeds | | | **{np.mean(held):.3f}**"
                f" (seeds {min(held):.3f}-{max(held):.3f}) | | | | | |"
            )
    for c in controls.get(f"{task}-v0", []):
        ev = c["rows"][0]
        print(
            f"| {c['label']} | | | | {ev['progress']:.3f}"
            f" [{ev['progress_min']:.2f}-{ev['progress_max']:.2f}]"
            f" | {ev['duplicated_work']:.2f} | {ev['top_agent_share']:.2f}"
            f" | {ev['contributors']:.2f} | | {c['wall']} s |"
        )


def plot_variants(runs, task: str, path: Path) -> None:
    """Progress and duplicated work per update, each variant's seeds (thin) and their mean."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for k, (exp, label) in enumerate(VARIANTS.items()):
        ours = [r for r in runs if r["args"]["exp_name"] == exp and r["args"]["task"] == task]
        if not ours:
            continue
        color = f"C{k}"
        # x: each update's time cap, so that runs of different lengths compare
        x = np.array([row["charts/time_cap"] for row in ours[0]["history"]])
        for ax, key in zip(axes, ("swarm/progress", "swarm/duplicated_work"), strict=True):
            ys = np.array([[row[key] for row in r["history"]] for r in ours])
            for y in ys:
                ax.plot(x, y, color=color, lw=0.7, alpha=0.3)
            ax.plot(x, ys.mean(axis=0), color=color, lw=2, marker="o", ms=3,
                    label=f"{label} ({len(ours)} seeds)")  # fmt: skip
    axes[0].set_title(f"{task}: training progress at the update's cap (8 agents)")
    axes[1].set_title(f"{task}: duplicated work (share of unit edits)")
    for ax in axes:
        ax.set_xlabel("the update's time cap (virtual s)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("progress (share of failing tests fixed)")
    axes[0].legend(fontsize=7, title="thin: each seed; thick: their mean", title_fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"\nwrote {path}")


def _units(row: dict) -> str:
    return "n/a" if row.get("duplicated_units") is None else f"{row['duplicated_units']:.1f}"


def village_table(village: list[dict]) -> None:
    print(
        "\n| policy (trained at) | agents (episodes) | progress at 60 s | peak (at) | to 25% "
        "| to 50% | to 90% "
        "| dup. edits (share) | dup. units | messages / agent | top agent "
        "| agents contributing | decisions | wall |"
    )
    print("| --- |" + " ---: |" * 13)
    for v in village:
        for r in v["rows"]:
            print(
                f"| {v['label']} | {r['num_agents']} ({r['episodes']}) | {r['progress']:.3f}"
                f" [{r['progress_min']:.2f}-{r['progress_max']:.2f}]"
                f" | {max(p for _, p in r['curve']):.3f}"
                f" ({fmt_t(max(r['curve'], key=lambda c: c[1])[0])})"
                f" | {fmt_t(time_to(r['curve'], 0.25))} | {fmt_t(time_to(r['curve'], 0.5))}"
                f" | {fmt_t(r['time_to_90'])} | {r['duplicated_work']:.2f}"
                f" | {_units(r)}"
                f" | {r['messages_per_agent']:.2f} | {r['top_agent_share']:.2f}"
                f" | {r['contributors']:.2f} | {r['decisions']:.0f} | {r['wall_s']:.0f} s |"
            )


def identity_table(ckpts: list[Path], task: str) -> None:
    """How much the identity slot alone moves each policy, at the starting state.

    The observation of agent_0 at reset, with its identity one-hot moved to slot j (and its
    rank to j / 16): the KL divergence of the policy's move distribution from slot 0's, and
    the entropy. A slot no training swarm had (j >= size) feeds the first layer through
    weights that never received a gradient (their input was always 0).
    """
    import torch

    import swarm_envs
    from swarm_envs.baselines.ppo.maths import masked_categorical
    from swarm_envs.baselines.ppo.policy import MenuPolicy

    env = swarm_envs.parallel_env(task, num_agents=16, mode="menu")
    obs, _ = env.reset(seed=10**9)
    layout = env.layout
    base = obs["agent_0"]["observation"].copy()
    mask = torch.as_tensor(obs["agent_0"]["action_mask"].astype(bool))[None]
    env.close()
    g = layout.obs_size - 16 - 1  # the rank, then the 16 identity slots
    print("\n| policy | trained sizes | KL from slot 0, slots seen in training | slots never seen "
          "| entropy (nats) |")  # fmt: skip
    print("| --- | --- | ---: | ---: | ---: |")
    for path in ckpts:
        state = torch.load(path, weights_only=False, map_location="cpu")
        a = state["args"]
        net = MenuPolicy(layout.obs_size, layout.n_moves, a["hidden"])
        net.load_state_dict(state["policy"])
        sizes = sorted({int(r.get("charts/num_agents", a["num_agents"])) for r in state["history"]})
        dists = []
        for j in range(16):
            x = base.copy()
            x[g] = j / 16
            x[g + 1 :] = 0.0
            x[g + 1 + j] = 1.0
            with torch.no_grad():
                dists.append(masked_categorical(net.actor(torch.as_tensor(x)[None]), mask))
        kl = [float(torch.distributions.kl_divergence(d, dists[0])) for d in dists]
        seen = [k for j, k in enumerate(kl) if j < max(sizes) and j > 0]
        unseen = [k for j, k in enumerate(kl) if j >= max(sizes)]
        fmt = lambda v: f"{np.mean(v):.4f} (max {max(v):.4f})" if v else "-"  # noqa: E731
        print(
            f"| {a['exp_name']} seed {a['seed']} | {', '.join(map(str, sizes))} | {fmt(seen)} "
            f"| {fmt(unseen)} | {float(dists[0].entropy()):.2f} |"
        )


# ---------------------------------------------------------------------------- figures


def plot_curves(runs, scripted, controls, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = sorted({r["args"]["task"] for r in runs if r["args"]["exp_name"] == "ppo_n8"})
    fig, axes = plt.subplots(len(tasks), 2, figsize=(11, 3.8 * len(tasks)), squeeze=False)
    styles = dict(zip(STRATEGIES, ("--", ":", "-."), strict=True))
    for row, task in zip(axes, tasks, strict=True):
        ours = [r for r in runs if r["args"]["exp_name"] == "ppo_n8" and r["args"]["task"] == task]
        ours.sort(key=lambda r: r["args"]["seed"])
        task_id = (ours[0]["eval"] or {}).get("task", f"{task}-v0")
        caps = [h["charts/time_cap"] for h in ours[0]["history"]]
        x = np.arange(1, len(caps) + 1)
        for r in ours:
            h = r["history"]
            row[0].plot(x[: len(h)], [e["swarm/progress"] for e in h], marker="o", ms=3,
                        label=f"PPO seed {r['args']['seed']}")  # fmt: skip
            row[1].plot(x[: len(h)], [e["swarm/duplicated_work"] for e in h], marker="o", ms=3,
                        label=f"PPO seed {r['args']['seed']}")  # fmt: skip
        for s in STRATEGIES:
            eps = scripted.get((task_id, s), [])
            if eps:
                mc = mean_curve([e["curve"] for e in eps])
                row[0].plot(x, [progress_at(mc, c) for c in caps], "k" + styles[s], lw=1,
                            label=f"scripted {s} (text mode) at the same cap")  # fmt: skip
        for c in controls.get(task_id, []):
            mc = c["rows"][0]["curve"]
            row[0].plot(x, [progress_at(mc, cap) for cap in caps], color="gray", lw=2, alpha=0.6,
                        label=f"{c['label']} at that time")  # fmt: skip
        row[0].set_title(f"{task}: progress at the update's cap (8 agents)")
        row[1].set_title(f"{task}: duplicated work (share of unit edits)")
        for ax in row:
            ax.set_xlabel("update (cap " + ", ".join(f"{c:.0f}" for c in caps) + " s)")
            ax.grid(alpha=0.3)
        row[0].set_ylabel("progress (share of failing tests fixed)")
        row[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"\nwrote {path}")


def plot_village(village: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(15, 3.8))
    panels = (
        ("progress", "progress at the 60 s cap"),
        ("time_to_25", "time to 25% of the mean curve (s; 90%: never)"),
        ("duplicated_work", "duplicated work (share of unit edits)"),
        ("messages_per_agent", "messages per agent"),
    )
    for v in village:
        sizes = [r["num_agents"] for r in v["rows"]]
        for ax, (key, _) in zip(axes, panels, strict=True):
            if key == "time_to_25":
                ys = [time_to(r["curve"], 0.25) for r in v["rows"]]
            else:
                ys = [r[key] for r in v["rows"]]
            ys = [np.nan if y is None else y for y in ys]
            (line,) = ax.plot(sizes, ys, marker="o", label=v["label"])
            trained = [s for s in sizes if s in v["trained"]]
            ax.plot(trained, [ys[sizes.index(s)] for s in trained], "s", ms=9, mfc="none",
                    color=line.get_color())  # fmt: skip
    for ax, (_, title) in zip(axes, panels, strict=True):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("agents at evaluation")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, title="policy (squares: sizes trained at)", title_fontsize=7)
    fig.suptitle("the village problem: jsonkit policies, without further training, at other sizes")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--runs", type=Path, default=Path("runs/learned"))
    p.add_argument(
        "--scripted", type=Path, nargs="*", default=[], help="swarm-envs bench output folders"
    )
    p.add_argument("--village", type=Path, nargs="*", default=[], help="--eval-out JSON files")
    p.add_argument("--log", type=Path, help="the commands' log (wall times)")
    p.add_argument(
        "--controls", type=Path, nargs="*", default=[], help="--eval-out JSON of untrained nets"
    )
    p.add_argument("--curves", type=Path, help="write the learning curves to this PNG")
    p.add_argument("--village-plot", type=Path, help="write the village figure to this PNG")
    p.add_argument(
        "--identity", type=Path, nargs="*", default=[], help="checkpoints for the identity probe"
    )
    p.add_argument("--identity-task", default="jsonkit")
    p.add_argument(
        "--variants", metavar="TASK", help="the table of what was changed (VARIANTS) on TASK"
    )
    p.add_argument("--variants-plot", type=Path, help="write the variants' curves to this PNG")
    opts = p.parse_args()
    runs = load_runs(opts.runs)
    scripted: dict[tuple[str, str], list[dict]] = {}
    for folder in opts.scripted:  # a later folder's (task, strategy) replaces an earlier's
        scripted.update(load_scripted(folder))
    walls = load_walls(opts.log)
    controls: dict[str, list[dict]] = defaultdict(list)
    for f in opts.controls:
        doc = json.loads(f.read_text())
        doc.update(control_names(f, doc["task"].removesuffix("-v0"), walls))
        controls[doc["task"]].append(doc)
    if opts.variants:
        variants_table(runs, opts.variants, walls, controls)
        if opts.variants_plot:
            plot_variants(runs, opts.variants, opts.variants_plot)
        return
    learning_table(runs, scripted, walls, controls)
    if opts.curves:
        plot_curves(runs, scripted, controls, opts.curves)
    village = load_village(opts.village, runs)
    if opts.identity:
        identity_table(opts.identity, opts.identity_task)
    if village:
        village_table(village)
        if opts.village_plot:
            plot_village(village, opts.village_plot)


if __name__ == "__main__":
    main()
