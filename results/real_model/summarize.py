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
        "| agents | size | tests start -> end | actions | valid actions | error observations "
        "| tokens | wall s / action | virtual s | end |"
    )
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for line in episodes.read_text().splitlines():
        ep = json.loads(line)
        spec = ep["spec"]
        label = spec.get("label") or spec.get("agents", {}).get("name") or "?"
        size = spec.get("size") or spec.get("num_agents")
        decisions = []
        k = ep.get("trajectory_line")
        if k is not None and k < len(trajs):
            decisions = [d for a in trajs[k]["agents"] for d in a["decisions"]]
        n = len(decisions)
        invalid = sum(d.get("tool") == "invalid" for d in decisions)
        errors = sum(d.get("error") is not None for d in decisions)
        wall = sum(d.get("latency_s") or 0.0 for d in decisions)
        print(
            f"| {label} | {size} | {ep['tests_start']} -> {ep['tests_final']} / "
            f"{ep['tests_total']} | {n} | {n - invalid} ({(n - invalid) / max(n, 1):.0%}) | "
            f"{errors} | {ep['tokens']} | {wall / max(n, 1):.1f} | {ep['duration_s']:.0f} | "
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


if __name__ == "__main__":
    calls()
    bench()
    training()
