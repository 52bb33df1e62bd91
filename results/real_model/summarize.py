"""The tables of docs/real-model.md, from the outputs in this folder.

    .venv/bin/python results/real_model/summarize.py

- the valid-action share of the calls runs (`calls_*.jsonl`, benchmarks/bench_tool_calls.py);
- the bench (`bench/episodes.jsonl`, `bench/trajectories.jsonl`): per agents and swarm
  size, progress, valid actions, tokens and wall seconds per action;
- the trainer's runs (`runs/*/metrics.jsonl`): per update, the valid-call share, the
  test reward, KL to the initial policy, the value loss and the clip fraction.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def calls() -> None:
    """The valid-action table of the calls runs."""
    runs = sorted(str(p) for p in HERE.glob("calls_*.jsonl"))
    if runs:
        print("## Valid-action share (benchmarks/bench_tool_calls.py)\n", flush=True)
        subprocess.run(
            [sys.executable, str(ROOT / "benchmarks/bench_tool_calls.py"), "--report", *runs],
            check=True,
        )
        print()


def bench() -> None:
    """The bench table."""
    episodes = HERE / "bench" / "episodes.jsonl"
    trajectories = HERE / "bench" / "trajectories.jsonl"
    if not episodes.is_file():
        return
    trajs = [json.loads(line) for line in trajectories.read_text().splitlines() if line.strip()]
    print("## The bench on calc (results/real_model/bench_smollm2.toml)\n")
    print(
        "| agents | size | tests start -> end | actions | valid actions | valid, old agent "
        "| error observations | tokens | wall s / action | virtual s | end |"
    )
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for line in episodes.read_text().splitlines():
        ep = json.loads(line)
        spec = ep["spec"]
        agent = spec.get("agent") or spec.get("agents") or {}
        label = spec.get("label") or agent.get("name") or agent.get("strategy") or "?"
        size = spec.get("size") or spec.get("num_agents")
        decisions = []
        k = ep.get("trajectory_line")
        if k is not None and k < len(trajs):
            decisions = [d for a in trajs[k]["agents"] for d in a["decisions"]]
        n = len(decisions)
        # A decision whose action had not completed when the cap came has no tool: it is
        # neither valid nor invalid, and is left out of the shares.
        wall = sum(d.get("latency_s") or 0.0 for d in decisions)
        decisions = [d for d in decisions if d.get("tool") is not None]
        done = len(decisions)
        valid = done - sum(d.get("tool") == "invalid" for d in decisions)
        errors = sum(d.get("error") is not None for d in decisions)
        # The LLMAgent before the real-model work took structured `tool_calls` only: the
        # same replies, replayed through it, are valid only where the server parsed a call.
        llm = [d for d in decisions if "reply_shape" in (d.get("meta") or {})]
        old = sum(d["meta"]["reply_shape"] == "tool_calls" and d.get("tool") != "invalid"
                  for d in llm)  # fmt: skip
        old_cell = f"{old} ({old / max(len(llm), 1):.0%})" if llm else "-"
        print(
            f"| {label} | {size} | {ep['tests_start']} -> {ep['tests_final']} / "
            f"{ep['tests_total']} | {n} ({done} done) | {valid} ({valid / max(done, 1):.0%}) | "
            f"{old_cell} | {errors} | {ep['tokens']} | {wall / max(n, 1):.1f} | "
            f"{ep['duration_s']:.0f} | "
            f"{ep.get('end_reason')} |"
        )
    print()


def training() -> None:
    """The trainer's tables, one per run."""
    runs = sorted((HERE / "runs").glob("**/metrics.jsonl"))
    if not runs:
        return
    print("## The trainer on SmolLM2 (results/real_model/train.sh)\n")
    keys = [
        ("charts/valid_call_share", "valid calls"),
        ("charts/episodic_return", "test reward"),
        ("swarm/tests_passed", "tests passing"),
        ("roles/agent/kl_init", "KL to initial"),
        ("losses/value_loss", "value loss"),
        ("losses/clipfrac", "clip fraction"),
        ("charts/episodic_length", "turns"),
        ("perf/generation_tokens_per_s", "gen tok/s"),
        ("perf/update_tokens_per_s", "update tok/s"),
        ("perf/generation_s", "generation s"),
        ("perf/env_s", "env s"),
        ("perf/advantages_s", "advantages s"),
        ("perf/diagnostics_s", "diagnostics s"),
        ("perf/update_s", "update s"),
    ]
    for path in runs:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        print(f"### {path.parent.name}\n")
        print("| update | " + " | ".join(name for _, name in keys) + " |")
        print("| ---: |" + " ---: |" * len(keys))
        for r in rows:
            cells = [f"{r.get(k, float('nan')):.3g}" for k, _ in keys]
            print(f"| {r['update']} | " + " | ".join(cells) + " |")
        print()


CURVES = [
    ("charts/valid_call_share", "valid-call share"),
    ("charts/episodic_return", "test reward (episode return)"),
    ("roles/agent/kl_init", "KL to the initial policy"),
    ("losses/value_loss", "value loss"),
    ("losses/clipfrac", "clip fraction"),
]


def plot(out: Path) -> None:
    """The trainer's curves, one line per run: update 1's rollouts are the untrained model's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = sorted((HERE / "runs").glob("**/metrics.jsonl"))
    if not runs:
        return
    fig, axes = plt.subplots(1, len(CURVES), figsize=(4 * len(CURVES), 3.2))
    for path in runs:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        name = path.parent.name.split("__")[1] + " s" + path.parent.name.split("__")[2]
        for ax, (key, _) in zip(axes, CURVES, strict=True):
            ax.plot([r["update"] for r in rows], [r.get(key, float("nan")) for r in rows],
                    marker="o", label=name)  # fmt: skip
    for ax, (_, title) in zip(axes, CURVES, strict=True):
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("update (1: rollouts of the untrained model)")
    axes[0].legend(fontsize=8)
    fig.suptitle("SmolLM2-135M-Instruct, LoRA, calc, 2 agents, format reward 0.1 (CPU)")
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    print(f"wrote {out}")


if __name__ == "__main__":
    calls()
    bench()
    training()
    if "--plot" in sys.argv:
        plot(HERE / "train_curves.png")
