"""What `swarm-envs train` (menu mode) prints: progress while it trains, tables at the end.

On a terminal a progress bar (updates, the last return, the time cap); off one (`>
train.log`, nohup, a scheduler, CI) the bar does not render, so one plain line per update
does (`update 3/15: return 1.20, cap 30s, agents 4, decisions 96, policy loss ...`).
At the end, the evaluation's table (`--eval-sizes`) and the run's summary.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

from swarm_envs.baselines.ppo.evaluation import evaluation_table

if TYPE_CHECKING:
    from swarm_envs.baselines.ppo.trainer import Args, Summary


class UpdateProgress:
    """The progress of a run's updates, as a context manager; `show(row)` after each."""

    def __init__(self, args: Args, start: int, cap: float):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.args = args
        self.progress = Progress(
            TextColumn("[bold]updates"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("return {task.fields[ret]:.2f} | cap {task.fields[cap]:.0f}s"),
            TimeElapsedColumn(),
            disable=not args.progress or start > args.num_updates,  # nothing to train
        )
        self.bar = self.progress.add_task(
            "updates", total=args.num_updates, completed=start - 1, ret=float("nan"), cap=cap
        )

    def __enter__(self) -> UpdateProgress:
        self.progress.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.progress.__exit__(kind, error, trace)

    def show(self, row: dict[str, Any]) -> None:
        """Advance the bar to `row`'s update (off a terminal: print a line for it)."""
        ret, cap = row["charts/episodic_return"], row["charts/time_cap"]
        self.progress.update(self.bar, completed=row["update"], ret=ret, cap=cap)
        console = self.progress.console
        if self.args.progress and not console.is_terminal:
            console.print(
                f"update {row['update']}/{self.args.num_updates}: return {ret:.2f}, "
                f"cap {cap:g}s, agents {int(row['charts/num_agents'])}, "
                f"decisions {int(row['swarm/decisions'])}, "
                f"policy loss {row['losses/policy_loss']:.4f}",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )


def print_summary(summary: Summary) -> None:
    """The evaluation's table (if any), then the run's: returns, work, cap, files."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if summary.evaluation:
        console.print(evaluation_table(summary.evaluation, summary.eval_path))
    h = summary.history
    if not h:  # evaluation only, of the untrained policy
        return
    first, last = h[0], h[-1]
    table = Table(title=f"{summary.run_name}")
    table.add_column("measure")
    table.add_column("value", justify="right", overflow="fold")
    rows = [
        ("updates", f"{last['update']}"),
        ("agent decisions", f"{summary.global_step}"),
        ("wall time", f"{summary.seconds:.1f} s"),
        (
            "episodic return (first -> last update)",
            f"{first['charts/episodic_return']:.2f} -> {last['charts/episodic_return']:.2f}",
        ),
        (
            "duplicated work (first -> last)",
            f"{first['swarm/duplicated_work']:.2f} -> {last['swarm/duplicated_work']:.2f}",
        ),
        ("time cap (last)", f"{last['charts/time_cap']:g} s"),
        ("agents (first -> last)", _sizes(first, last)),
        ("checkpoint", str(summary.checkpoint)),
        ("metrics", str(summary.run_dir / "metrics.jsonl")),
    ]
    if any(summary.run_dir.glob("events.out.tfevents.*")):
        rows.append(("TensorBoard", f"tensorboard --logdir {summary.run_dir.parent}"))
    for k, v in rows:
        table.add_row(k, v)
    console.print(table)


def _sizes(first: dict, last: dict) -> str:
    a, b = (int(r.get("charts/num_agents", 0)) or "?" for r in (first, last))
    return f"{a}" if a == b else f"{a} -> {b}"
