"""Episode recordings (JSON Lines) and their summaries (`swarm-envs replay`).

Each line is one event: `episode` (header), `action` (an agent's raw action and its
tokens), `effect` (the tool's result or error, at its completion time), `step`
(reward and score after a step) and `end`. Results are capped in the file so that
recordings of long episodes stay small.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pydantic import BaseModel

from swarm_envs.text import cap_head

if TYPE_CHECKING:
    from swarm_envs.episode import Episode

MAX_TEXT = 4000


def _text(x: Any) -> Any:
    if isinstance(x, BaseModel):
        x = x.model_dump()
    if isinstance(x, bytes):
        x = x.decode("utf-8", "replace")
    if isinstance(x, str):
        return cap_head(x, MAX_TEXT)
    try:
        json.dumps(x)
    except (TypeError, ValueError):
        return cap_head(repr(x), MAX_TEXT)
    return x


class Recorder:
    """Appends an episode's events to a JSON Lines file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._f: IO[str] | None = None
        self.episode = -1

    def _write(self, event: dict) -> None:
        if self._f is None:
            self._f = self.path.open("a", encoding="utf-8")
        self._f.write(json.dumps(event, ensure_ascii=False) + "\n")

    def begin(self, ep: Episode) -> None:
        self.episode += 1
        self._write(
            {
                "type": "episode",
                "episode": self.episode,
                "task": ep.task.id,
                "seed": ep.seed,
                "time_cap": ep.time_cap,
                "agents": ep.names,
                "tests_total": ep.tests_total,
                "tests_passed": ep.passed,
                "config": ep.config.model_dump(mode="json"),
            }
        )

    def action(
        self, t: float, agent: str, action: Any, tool: str, out_tok: int, in_tok: int
    ) -> None:
        self._write(
            {
                "type": "action",
                "t": t,
                "agent": agent,
                "tool": tool,
                "action": _text(action),
                "output_tokens": out_tok,
                "input_tokens": in_tok,
            }
        )

    def effect(
        self, t: float, agent: str, tool: str, result: str | None, error: str | None
    ) -> None:
        self._write(
            {
                "type": "effect",
                "t": t,
                "agent": agent,
                "tool": tool,
                "result": _text(result),
                "error": error,
            }
        )

    def step(self, t: float, reward: float, passed: int, observations: dict[str, str]) -> None:
        self._write(
            {
                "type": "step",
                "t": t,
                "reward": reward,
                "tests_passed": passed,
                "observations": {k: _text(v) for k, v in observations.items()},
            }
        )

    def end(self, t: float, kind: str, reason: str, passed: int, total: int) -> None:
        self._write(
            {
                "type": "end",
                "t": t,
                "kind": kind,
                "reason": reason,
                "tests_passed": passed,
                "tests_total": total,
            }
        )
        if self._f:
            self._f.flush()

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None


def summarize(path: str | Path) -> list[dict]:
    """Summaries of every episode in a recording."""
    episodes: list[dict] = []
    cur: dict | None = None
    with Path(path).open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                ev = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{lineno}: not a JSON line ({e})") from None
            kind = ev.get("type")
            if kind == "episode":
                cur = {
                    "task": ev["task"],
                    "agents": len(ev["agents"]),
                    "seed": ev.get("seed"),
                    "time_cap": ev["time_cap"],
                    "tests_total": ev["tests_total"],
                    "start_passed": ev["tests_passed"],
                    "final_passed": ev["tests_passed"],
                    "duration": 0.0,
                    "steps": 0,
                    "return": 0.0,
                    "tools": Counter(),
                    "errors": 0,
                    "per_agent": Counter(),
                    "tokens": 0,
                    "curve": [(0.0, ev["tests_passed"])],
                    "end": None,
                }
                episodes.append(cur)
            elif cur is None:
                raise ValueError(f"{path}:{lineno}: event before any episode header")
            elif kind == "action":
                cur["tools"][ev["tool"]] += 1
                cur["per_agent"][ev["agent"]] += 1
                cur["tokens"] += ev["output_tokens"] + ev["input_tokens"]
            elif kind == "effect":
                cur["errors"] += ev.get("error") is not None
            elif kind == "step":
                cur["steps"] += 1
                cur["return"] += ev["reward"]
                cur["duration"] = ev["t"]
                if ev["tests_passed"] != cur["final_passed"]:
                    cur["curve"].append((ev["t"], ev["tests_passed"]))
                cur["final_passed"] = ev["tests_passed"]
            elif kind == "end":
                cur["end"] = f"{ev['kind']} ({ev['reason']})"
                cur["duration"] = ev["t"]
    return episodes
