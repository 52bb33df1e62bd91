"""Plots of the per-role diagnostics of training runs (reads each run's metrics.jsonl)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

PANELS = (
    ("token_share", "share of generated tokens"),
    ("grad_norm_share", "share of gradient norm"),
    ("entropy", "entropy (nats / token)"),
    ("kl_init", "KL to the initial policy"),
)


def read_metrics(path: str | Path) -> list[dict]:
    """The rows of a run's `metrics.jsonl` (a run folder or the file itself)."""
    p = Path(path)
    if p.is_dir():
        p = p / "metrics.jsonl"
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


def plot_role_diagnostics(runs: Mapping[str, str | Path], out: str | Path) -> Path:
    """One figure: per-role diagnostics of each run against updates; returns the PNG path.

    Args:
        runs: label -> run folder (or metrics file), e.g. {"shared": ..., "isolated": ...}.
        out: the PNG to write.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = {label: read_metrics(p) for label, p in runs.items()}
    fig, axes = plt.subplots(2, 3, figsize=(15, 8), constrained_layout=True)
    styles = ["-", "--", ":", "-."]
    for (key, title), ax in zip(PANELS, axes.flat, strict=False):
        for (label, rows), style in zip(data.items(), styles, strict=False):
            roles = sorted({k.split("/")[1] for r in rows for k in r if k.startswith("roles/")})
            for role in roles:
                pts = [
                    (r["update"], r[f"roles/{role}/{key}"])
                    for r in rows
                    if f"roles/{role}/{key}" in r
                ]
                if pts:
                    x, y = zip(*pts, strict=True)
                    ax.plot(x, y, style, marker="o", ms=3, label=f"{label}: {role}")
        ax.set_title(title)
        ax.set_xlabel("update")
        ax.legend(fontsize=8)
    ax = axes.flat[4]
    for (label, rows), style in zip(data.items(), styles, strict=False):
        keys = sorted({k for r in rows for k in r if k.endswith("/grad_cosine")})
        for key in keys:
            pts = [(r["update"], r[key]) for r in rows if key in r]
            x, y = zip(*pts, strict=True)
            ax.plot(x, y, style, marker="o", ms=3, label=f"{label}: {key.split('/')[1]}")
    ax.axhline(0.0, color="grey", lw=0.5)
    ax.set_title("same-role gradient agreement (cosine; isolated)")
    ax.set_xlabel("update")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    ax = axes.flat[5]
    for (label, rows), style in zip(data.items(), styles, strict=False):
        updates = [r["update"] for r in rows]
        per_role = sorted({k for r in rows for k in r if k.endswith("/reward")})
        for key in per_role or ["charts/episodic_return"]:
            name = key.split("/")[1] if per_role else "return"
            ax.plot(updates, [r.get(key, float("nan")) for r in rows], style, marker="o", ms=3,
                    label=f"{label}: {name}")  # fmt: skip
    ax.set_title("reward per role" if per_role else "episodic return")
    ax.set_xlabel("update")
    ax.legend(fontsize=8)
    fig.suptitle("Shared vs isolated policies: per-role diagnostics")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
