"""Generation tokens/s of the real model: the trainer's engine and the server, batched and not.

    transformers serve models/smollm2 --port 8010 --device cpu        # in another shell
    python benchmarks/bench_real_model_speed.py --model models/smollm2 \
        --url http://127.0.0.1:8010/v1 --out speed.json

Four figures in one run, on the same prompt (the trainer's system prompt with the tools
and the call's shape, and calc's first observation: the prompt of a real first turn):

- engine, 1 prompt: `TransformersEngine.generate` on one prompt (the trainer's sampler,
  temperature sampling, `max_new_tokens` tokens at most);
- engine, batch: the same on `--batch` copies of the prompt in one call;
- server, 1 request: one `/v1/chat/completions` request (the official `openai` SDK);
- server, concurrent: `--batch` requests at once (`transformers serve` without
  `--continuous-batching` answers them one after the other; the ratio shows it).

Tokens/s counts the tokens generated (a reply may end early at its end-of-turn token) over
the wall time; `--repeats` runs each and keeps the median. `uptime`'s load average is
written with the figures: on a shared machine the absolute speeds are those of the load,
the ratios of the same run are the figures to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def first_turn_messages() -> list[dict[str, str]]:
    """The trainer's system prompt (tools and call shape) and calc's first observation."""
    import swarm_envs
    from swarm_envs.agents.replies import call_instructions
    from swarm_envs.baselines.lm.policy import default_system_prompt

    env = swarm_envs.parallel_env("calc", num_agents=1, time_cap_s=60)
    obs, _ = env.reset(seed=0)
    env.close()
    system = default_system_prompt() + "\n\n" + call_instructions(swarm_envs.tool_schemas())
    return [{"role": "system", "content": system}, {"role": "user", "content": obs["agent_0"]}]


def bench_engine(args: argparse.Namespace, messages: list[dict[str, str]]) -> dict[str, Any]:
    import torch

    from swarm_envs.baselines.lm.engines import TransformersEngine
    from swarm_envs.baselines.lm.policy import load_causal_lm, load_tokenizer

    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    tokenizer = load_tokenizer(args.model)
    model = load_causal_lm(args.model).eval()
    prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    if not isinstance(prompt, list):
        prompt = list(prompt["input_ids"])
    engine = TransformersEngine(
        model,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        max_new_tokens=args.max_new_tokens,
        temperature=args.temperature,
    )
    engine.generate([prompt])  # warm-up
    out: dict[str, Any] = {"prompt_tokens": len(prompt)}
    for label, n in (("engine_1", 1), ("engine_batch", args.batch)):
        rates, tokens = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            gens = engine.generate([prompt] * n)
            dt = time.perf_counter() - t0
            count = sum(len(g.token_ids) for g in gens)
            rates.append(count / dt)
            tokens.append(count)
        out[label] = {"prompts": n, "tokens_per_s": statistics.median(rates), "tokens": tokens}
        print(label, out[label], flush=True)
    return out


async def bench_server(args: argparse.Namespace, messages: list[dict[str, str]]) -> dict:
    import openai

    client = openai.AsyncOpenAI(base_url=args.url, api_key="EMPTY", timeout=3600)

    async def one() -> int:
        reply = await client.chat.completions.create(
            model=args.served_name or args.model,
            messages=messages,  # type: ignore[arg-type]
            max_tokens=args.max_new_tokens,
            temperature=args.temperature,
        )
        return reply.usage.completion_tokens if reply.usage else 0

    await one()  # warm-up
    out: dict[str, Any] = {}
    for label, n in (("server_1", 1), ("server_concurrent", args.batch)):
        rates, tokens = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            counts = await asyncio.gather(*(one() for _ in range(n)))
            dt = time.perf_counter() - t0
            rates.append(sum(counts) / dt)
            tokens.append(sum(counts))
        out[label] = {"requests": n, "tokens_per_s": statistics.median(rates), "tokens": tokens}
        print(label, out[label], flush=True)
    await client.close()
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--model", default="models/smollm2", help="model folder or .gguf")
    p.add_argument("--url", default=None, help="the server's /v1 URL (omit: engine only)")
    p.add_argument("--served-name", default=None, help="model name the server was started with")
    p.add_argument("--batch", type=int, default=4, help="prompts per batch / concurrent requests")
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", default=None, help="write the figures here (JSON)")
    args = p.parse_args()
    messages = first_turn_messages()
    figures: dict[str, Any] = {"args": vars(args), "load_before": os.getloadavg()}
    figures.update(bench_engine(args, messages))
    if args.url:
        figures.update(asyncio.run(bench_server(args, messages)))
    figures["load_after"] = os.getloadavg()
    e1, eb = figures["engine_1"]["tokens_per_s"], figures["engine_batch"]["tokens_per_s"]
    print(f"engine: batch of {args.batch} / 1 prompt = {eb / e1:.2f}x")
    if args.url:
        s1, sc = figures["server_1"]["tokens_per_s"], figures["server_concurrent"]["tokens_per_s"]
        print(f"server: {args.batch} concurrent / 1 request = {sc / s1:.2f}x")
        print(f"engine 1 prompt / server 1 request = {e1 / s1:.2f}x")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
