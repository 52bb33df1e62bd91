"""Calibrate the scripted agents' conversation work model on real `LLMAgent` conversations.

A scripted team (`work_model="conversation"`) plays each task; beside every scripted
agent runs a real `swarm_envs.agents.LLMAgent` (the official `openai` SDK) that talks
to a local OpenAI-compatible server (the test suite's scripted server, loopback only).
The server answers each request with the scripted agent's next action, so the
`LLMAgent` holds the conversation of the scripted trajectory, with its own context
policy, and reports the server's prompt tokens for every call. The conversation model
(`swarm_envs.agents.scripted.ConversationCost`) then replays the same observations
and actions, and its one free parameter, tokens per character, is fitted to the
reported counts by least squares on the relative error (`scipy.optimize`).

The server counts prompt tokens in one of two ways (`--counter`, both by default):

- `json4`: the test server's own usage, 4 characters of the request's JSON a token;
- `bpe`: a byte-level BPE tokenizer (`tokenizers`, `--vocab` 8k tokens, trained here on the
  bundled task projects' code and the docs) over a ChatML rendering of the request
  (tool schemas in the system turn, `<|im_start|>role ... <|im_end|>` around each
  message): closer to how a model server counts, with no model weights needed.

Printed per task and swarm size: calls, mean prompt tokens, the fitted tokens per char,
and the mean (and largest) absolute percentage error of the conversation model at the
fit pooled over all tasks and sizes, and of the flat model for comparison.

    python benchmarks/calibrate_work_model.py                     # calc and jsonkit, 1 and 4
    python benchmarks/calibrate_work_model.py --tasks calc --sizes 1 --counter json4
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from support.llm_server import Reply, ScriptedServer, agent_of  # noqa: E402

import swarm_envs  # noqa: E402
from swarm_envs.agents import LLMAgent, TaskInfo  # noqa: E402
from swarm_envs.agents.scripted import ConversationCost, ScriptedAgent, make_team  # noqa: E402

# ---------------------------------------------------------------------- token counters


def bpe_tokenizer(vocab: int = 8000) -> Any:
    """A byte-level BPE trained on the task projects' code and the docs (seconds)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    files = sorted(str(p) for p in (ROOT / "tasks").rglob("*.py"))
    files += sorted(str(p) for p in (ROOT / "docs").rglob("*.md"))
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        special_tokens=["<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train(files, trainer)
    return tok


def chatml(request: dict) -> str:
    """A request as a ChatML prompt (as Qwen-style chat templates render tools)."""
    out = []
    tools = request.get("tools")
    for k, m in enumerate(request.get("messages", [])):
        content = str(m.get("content") or "")
        if k == 0 and m.get("role") == "system" and tools:
            content += "\n\n# Tools\n" + "\n".join(json.dumps(t) for t in tools)
        for c in m.get("tool_calls") or []:
            fn = c["function"]
            content += f'\n<tool_call>{{"name": "{fn["name"]}", "arguments": {fn["arguments"]}}}'
        role = "user" if m.get("role") == "tool" else m.get("role")
        out.append(f"<|im_start|>{role}\n{content}<|im_end|>\n")
    return "".join(out) + "<|im_start|>assistant\n"


# ---------------------------------------------------------------------- the replay


@dataclass
class Record:
    """One agent's calls: what it saw, what it did, the tokens its LLMAgent reported."""

    name: str
    task_info: TaskInfo
    observations: list[str] = field(default_factory=list)
    actions: list[dict] = field(default_factory=list)
    reported: list[int] = field(default_factory=list)
    flat: list[int] = field(default_factory=list)


class Pair:
    """A scripted agent and an `LLMAgent` that the server makes say the same thing."""

    def __init__(self, scripted: ScriptedAgent, llm: LLMAgent, pending: dict, flat: Any):
        self.scripted, self.llm, self.pending, self.flat = scripted, llm, pending, flat
        self.record: Record | None = None

    def reset(self, agent_name: str, task_info: TaskInfo) -> None:
        self.scripted.reset(agent_name, task_info)
        self.flat.reset(agent_name, task_info)
        self.llm.reset(agent_name, task_info)
        self.record = Record(agent_name, task_info)

    async def act(self, observation: str, info: dict) -> dict:
        assert self.record is not None
        action = self.scripted.act(observation, info)
        flat = self.flat.act(observation, info)  # the same trajectory, counted flat
        self.pending[self.record.name] = action
        said = await self.llm.act(observation, info)
        assert said.usage is not None and said.usage.input_tokens is not None
        self.record.observations.append(observation)
        self.record.actions.append(action)
        self.record.reported.append(said.usage.input_tokens)
        self.record.flat.append(flat["usage"]["input_tokens"])
        return action

    async def aclose(self) -> None:
        await self.llm.aclose()


def replay(task: str, n: int, seed: int, counter: str, tok: Any, args: Any) -> list[Record]:
    """One episode of the pairs; every agent's record."""
    pending: dict[str, dict] = {}
    lock = threading.Lock()

    def script(request: dict) -> Reply:
        with lock:
            action = pending.pop(str(agent_of(request)))
        reply = Reply(calls=[(action["name"], action.get("arguments") or {})])
        if counter == "bpe":
            prompt = len(tok.encode(chatml(request)).ids)
            reply.usage = {"prompt_tokens": prompt, "completion_tokens": 1, "total_tokens": prompt}
        return reply

    env = swarm_envs.parallel_env(task, num_agents=n, time_cap_s=args.time_cap)
    kwargs = {"p_wrong": args.p_wrong, "context_tokens": args.context_tokens}
    team = make_team(env.task, n, "claim", seed, work_model="conversation", **kwargs)
    flat = make_team(env.task, n, "claim", seed, work_model="flat", **kwargs)
    with ScriptedServer(script) as server:
        llms = LLMAgent.team(
            n, model="replay", base_url=server.url, api_key="calibrate",
            context_tokens=args.context_tokens,
        )  # fmt: skip
        pairs = [Pair(team[a], llm, pending, flat[a]) for a, llm in zip(team, llms, strict=True)]
        swarm_envs.rollout(env, pairs, seed=seed)
    env.close()
    return [p.record for p in pairs if p.record is not None]


def predict(records: list[Record], tokens_per_char: float, context_tokens: int) -> np.ndarray:
    """The conversation model's prompt tokens for every call of `records`."""
    out: list[int] = []
    for r in records:
        cost = ConversationCost(context_tokens, tokens_per_char)
        cost.reset(r.name, list(r.task_info.agent_names), r.task_info)
        for obs, action in zip(r.observations, r.actions, strict=True):
            out.append(cost.observe(obs))
            cost.reply(action)
    return np.array(out, dtype=float)


def reported(records: list[Record]) -> np.ndarray:
    return np.array([x for r in records for x in r.reported], dtype=float)


def fit(groups: list[list[Record]], context_tokens: int) -> float:
    """Tokens per char minimising the squared relative error over every call of `groups`."""
    ys = [reported(g) for g in groups]

    def loss(tpc: float) -> float:
        return sum(
            float(np.sum(((predict(g, tpc, context_tokens) - y) / y) ** 2))
            for g, y in zip(groups, ys, strict=True)
        )

    res = minimize_scalar(loss, bounds=(0.05, 1.0), method="bounded", options={"xatol": 1e-4})
    return float(res.x)


def ape(pred: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Mean and largest absolute percentage error."""
    e = np.abs(pred - y) / y * 100
    return float(e.mean()), float(e.max())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", nargs="+", default=["calc", "jsonkit"])
    p.add_argument("--sizes", type=int, nargs="+", default=[1, 4])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--counter", choices=["json4", "bpe"], nargs="+", default=["json4", "bpe"])
    p.add_argument("--context-tokens", type=int, default=8000, help="both agents' context")
    p.add_argument("--p-wrong", type=float, default=0.3)
    p.add_argument("--vocab", type=int, default=8000, help="the BPE tokenizer's vocabulary")
    p.add_argument("--time-cap", type=float, default=7200.0)
    args = p.parse_args()

    t0 = time.perf_counter()
    tok = bpe_tokenizer(args.vocab) if "bpe" in args.counter else None
    for counter in args.counter:
        runs = {
            (task, n): replay(task, n, args.seed, counter, tok, args)
            for task in args.tasks
            for n in args.sizes
        }
        pooled = fit(list(runs.values()), args.context_tokens)
        print(f"\ncounter {counter}: pooled fit tokens_per_char = {pooled:.4f}")
        head = "task     agents calls  mean tokens  own fit  MAPE (max) at pooled  flat MAPE"
        print(head)
        all_pred, all_y, all_flat = [], [], []
        for (task, n), records in runs.items():
            y = reported(records)
            pred = predict(records, pooled, args.context_tokens)
            flat = np.array([x for r in records for x in r.flat], dtype=float)
            own = fit([records], args.context_tokens)
            m, mx = ape(pred, y)
            print(
                f"{task:8} {n:6} {len(y):5} {y.mean():12.0f} {own:8.4f}"
                f"  {m:6.2f} % ({mx:5.1f} %)   {ape(flat, y)[0]:8.1f} %"
            )
            all_pred.append(pred)
            all_y.append(y)
            all_flat.append(flat)
        m, mx = ape(np.concatenate(all_pred), np.concatenate(all_y))
        fm = ape(np.concatenate(all_flat), np.concatenate(all_y))[0]
        print(f"all      {'':6} {sum(map(len, all_y)):5} {'':12} {'':8}  {m:6.2f} % ({mx:5.1f} %)"
              f"   {fm:8.1f} %")  # fmt: skip
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
