"""What a training run leaves in its folder and returns: one convention for both trainers.

Both trainers (`ppo`: menu mode; `lm`: language models) write the same files in the run
folder `{runs_dir}/{env_id}__{exp_name}__{seed}__{time}` (`runs.run_name`, CleanRL's
convention), through `RunFolder`:

- `metrics.jsonl`: one JSON object per update, `{"update", "global_step", **scalars}`,
  always written: any script reads it with `json`, without TensorBoard;
- TensorBoard scalars (`events.out.tfevents.*`), the same scalars at `global_step` (agent
  decisions so far) under CleanRL's keys where they exist (`charts/episodic_return`,
  `charts/SPS`, `losses/value_loss`, `losses/approx_kl`, `losses/clipfrac`, ...), and the
  options as a `hyperparameters` text; on unless `--no-tensorboard`;
- `args.json`: the options the run started with (a resumed run's are in its checkpoint);
- `checkpoint.pt`, written by the trainer (`runs.save_checkpoint`), which also keeps
  the rows of `metrics.jsonl` as `history`, so a resumed run's summary has them all.

`train()` of both returns a `Summary` (subclassed where a trainer returns more: the
menu trainer's evaluation, the LM trainer's live models): the run's name, folder,
checkpoint, one row per update and where it stands. Why files and a typed summary both:
a script that calls `train()` reads the summary; a run on another machine leaves the
same rows on disk.

A resumed run continues the same folder: rows logged after the checkpoint's update (the
run went on past its last checkpoint before it stopped) are dropped from `metrics.jsonl`
and purged from TensorBoard, so each update appears once.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROW_KEYS = ("update", "global_step")
"""The keys of a row that say where it is, not what was measured (not TensorBoard scalars)."""


@dataclass
class Summary:
    """What a training run did: where its files are, and one row per update."""

    run_name: str
    """`{env_id}__{exp_name}__{seed}__{time}`: the run folder's name"""
    run_dir: Path
    """the run folder (TensorBoard scalars, metrics.jsonl, args.json, checkpoint.pt)"""
    checkpoint: Path
    """the run's checkpoint (`--resume` continues from it)"""
    updates: int
    """updates the policy has had, a resumed run's before it included"""
    global_step: int
    """agent decisions learned from so far (the x axis of the TensorBoard scalars)"""
    seconds: float
    """wall time of this call"""
    history: list[dict[str, float]]
    """one row per update (`metrics.jsonl`'s rows), a resumed run's earlier ones included"""

    @property
    def metrics(self) -> dict[str, float]:
        """The last update's scalars (empty when no update has run)."""
        if not self.history:
            return {}
        return {k: v for k, v in self.history[-1].items() if k not in ROW_KEYS}


def _after_earlier_event_files(path: Path) -> None:
    """Wait, if need be, until an event file made now sorts after the folder's earlier ones.

    TensorBoard reads a folder's event files in name order, and applies a resumed run's
    `purge_step` only to what it read before. A name starts with the second the file was
    made (then the host, the process id and a counter, compared as text), so a file made
    in the same second as an earlier one may sort before it.
    """
    parts = [f.name.split(".") for f in path.glob("events.out.tfevents.*")]
    stamps = [int(p[3]) for p in parts if len(p) > 3 and p[3].isdigit()]
    if stamps:
        wait = max(stamps) + 1 - time.time()
        if wait > 0:
            time.sleep(wait)


class RunFolder:
    """The run folder as a run writes it: `log(row)` once per update, then `close()`.

    Args:
        path: the run folder (created if need be).
        args: the run's options (a dataclass), for args.json and TensorBoard's text.
        tensorboard: also write TensorBoard scalars.
        resumed_at: `(update, global_step)` of the checkpoint a resumed run starts from;
            rows after it are dropped, and args.json is left as the run's start wrote it.
    """

    def __init__(
        self,
        path: Path,
        args: Any,
        *,
        tensorboard: bool = True,
        resumed_at: tuple[int, int] | None = None,
    ):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        options = dataclasses.asdict(args)
        metrics = path / "metrics.jsonl"
        if resumed_at is None:
            (path / "args.json").write_text(json.dumps(options, indent=2, default=str))
        elif metrics.exists():
            kept = [line for line in metrics.open() if json.loads(line)["update"] <= resumed_at[0]]
            metrics.write_text("".join(kept))
        self._metrics = metrics.open("a", encoding="utf-8")
        self._writer = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            # purge_step: TensorBoard hides what an earlier process logged from this step on.
            purge = None if resumed_at is None else resumed_at[1] + 1
            if resumed_at is not None:
                _after_earlier_event_files(path)
            self._writer = SummaryWriter(str(path), purge_step=purge)
            if resumed_at is None:
                table = "\n".join(f"|{k}|{v}|" for k, v in options.items())
                self._writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + table)

    def log(self, row: Mapping[str, float]) -> None:
        """One update's row: a line of metrics.jsonl, and its scalars at `global_step`."""
        self._metrics.write(json.dumps(dict(row)) + "\n")
        self._metrics.flush()  # a run stopped at any moment keeps every row it logged
        if self._writer is not None:
            for key, value in row.items():
                if key not in ROW_KEYS:
                    self._writer.add_scalar(key, value, row["global_step"])

    def close(self) -> None:
        """Flush and close the files (safe twice)."""
        self._metrics.close()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
