"""LM trainer benchmark: generation and update throughput, and shared vs isolated roles.

    python benchmarks/bench_lm.py                      # throughput table (tiny model, CPU)
    python benchmarks/bench_lm.py --roles --plot roles.png   # + shared vs isolated, plot

Throughput compares what the trainer does against the obvious alternative, in the same
run: every ready agent's turn generated in one batched call vs one call per agent, and
the update with micro-batches of 8 turns vs one turn per forward. A tiny random model
(built from a config, see `swarm_envs.baselines.lm.tiny`) is used unless --model is given.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

import swarm_envs
from swarm_envs.baselines.lm.engines import TransformersEngine
from swarm_envs.baselines.lm.learner import Learner, PPOSettings
from swarm_envs.baselines.lm.models import ActorCritic
from swarm_envs.baselines.lm.policy import (
    DEFAULT_SYSTEM_PROMPT,
    Conversation,
    load_causal_lm,
    load_tokenizer,
)
from swarm_envs.baselines.lm.rollout import EpisodeRecord, Turn
from swarm_envs.baselines.lm.tiny import build_tiny_model


def prompts_of(tok, agents: int, seed: int) -> list[list[int]]:
    env = swarm_envs.parallel_env("calc", num_agents=agents)
    obs, _ = env.reset(seed=seed)
    env.close()
    out = []
    for a in env.possible_agents:
        conv = Conversation(DEFAULT_SYSTEM_PROMPT)
        conv.observe(obs[a])
        out.append(conv.prompt_ids(tok, swarm_envs.tool_schemas()))
    return out


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def throughput(
    model_path: Path, agents: int, new_tokens: int, repeats: int, seed: int, device: str, bf16: bool
) -> None:
    torch.manual_seed(seed)
    tok = load_tokenizer(model_path)
    model = load_causal_lm(model_path, device=device)
    dtype = torch.bfloat16 if bf16 else None
    engine = TransformersEngine(
        model, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
        max_new_tokens=new_tokens, autocast_dtype=dtype,
    )  # fmt: skip
    engine.config.eos_token_id = None  # generate exactly new_tokens tokens: equal work in both
    prompts = prompts_of(tok, agents, seed)
    n_tok = agents * new_tokens
    batched = best(lambda: engine.generate(prompts), repeats)
    one_by_one = best(lambda: [engine.generate([p]) for p in prompts], repeats)
    actor = ActorCritic(model)
    opt = torch.optim.AdamW(actor.trainable_parameters(), lr=0.0)
    gens = engine.generate(prompts)
    records = []
    for k, (p, g) in enumerate(zip(prompts, gens, strict=True)):
        t = Turn(f"agent_{k}", "agent", p, g.token_ids, g.logprobs, 0, 0.0, False, reward=1.0)
        records.append(
            EpisodeRecord(
                seed, {t.agent: [t]}, 1.0, 0.0, "terminated", "all_done", 0, 0, {t.agent: "agent"}
            )
        )
    rows = [
        (
            "generation",
            "batched (all ready agents)",
            n_tok / batched,
            "one call per agent",
            n_tok / one_by_one,
        )
    ]
    upd = {}
    for micro in (8, 1):
        learner = Learner(
            {"agent": actor},
            opt,
            tok.pad_token_id,
            PPOSettings(micro_batch_turns=micro, autocast_dtype=dtype),
        )
        turns = learner.advantages(records)
        upd[micro] = best(lambda learner=learner, turns=turns: learner.update(turns), repeats)
    rows.append(
        (
            "update",
            "micro-batches of 8 turns",
            n_tok / upd[8],
            "one turn per forward",
            n_tok / upd[1],
        )
    )
    mean_prompt = np.mean([len(p) for p in prompts])
    print(f"\n{agents} agents x {new_tokens} new tokens, prompts of {mean_prompt:.0f} tokens")
    print(
        f"{'phase':<11} {'trainer':<28} {'tok/s':>9} {'alternative':<22} {'tok/s':>9} {'ratio':>6}"
    )
    for phase, a, x, b, y in rows:
        print(f"{phase:<11} {a:<28} {x:>9.1f} {b:<22} {y:>9.1f} {x / y:>6.2f}")


def roles_run(model_path: Path, updates: int, seed: int, plot: Path | None, runs_dir: Path) -> None:
    """Shared vs isolated policies on the toy role task (3 implementers, 1 reviewer)."""
    import copy

    from swarm_envs.baselines.lm.learner import trainable_parameters
    from swarm_envs.baselines.lm.plot import plot_role_diagnostics
    from swarm_envs.baselines.lm.toy import train_toy

    roles = {"implementer": 3, "reviewer": 1}
    tok = load_tokenizer(model_path)
    runs = {}
    print(f"\ntoy role task, {roles}, {updates} updates, seed {seed}")
    print(f"{'policies':<9} {'role':<12} {'reward first->last':>20} {'token share':>12} "
          f"{'grad share':>11} {'KL init':>8} {'grad cos':>9}")  # fmt: skip
    for policies in ("shared", "isolated"):
        torch.manual_seed(seed)
        if policies == "shared":
            actor = ActorCritic(load_causal_lm(model_path))
            actors = dict.fromkeys(roles, actor)
        else:
            actors = {r: ActorCritic(load_causal_lm(model_path)) for r in roles}
        refs = {r: copy.deepcopy(a.policy) for r, a in actors.items()}
        engines = {
            r: TransformersEngine(a.policy, eos_token_id=tok.eos_token_id,
                                  pad_token_id=tok.pad_token_id, max_new_tokens=6)
            for r, a in actors.items()
        }  # fmt: skip
        opt = torch.optim.AdamW(trainable_parameters(actors), lr=3e-3)
        learner = Learner(actors, opt, tok.pad_token_id, PPOSettings(micro_batch_turns=16), refs,
                          seed=seed)  # fmt: skip
        path = runs_dir / policies / "metrics.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = train_toy(learner, engines, tok, roles, updates=updates, metrics_path=path)
        runs[policies] = path
        first, last = rows[:5], rows[-5:]
        for role in roles:

            def avg(rs, key, role=role):
                vals = [r[key.format(role)] for r in rs if key.format(role) in r]
                return float(np.mean(vals)) if vals else float("nan")

            print(f"{policies:<9} {role:<12} "
                  f"{avg(first, 'roles/{}/reward'):>9.3f} -> {avg(last, 'roles/{}/reward'):<7.3f} "
                  f"{avg(last, 'roles/{}/token_share'):>12.3f} "
                  f"{avg(last, 'roles/{}/grad_norm_share'):>11.3f} "
                  f"{avg(last, 'roles/{}/kl_init'):>8.3f} "
                  f"{avg(last, 'isolated/{}/grad_cosine'):>9.3f}")  # fmt: skip
    if plot is not None:
        print("plot:", plot_role_diagnostics(runs, plot))


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--model", type=Path, help="a local causal LM (default: a tiny one built here)")
    p.add_argument("--agents", type=int, default=8, help="ready agents per generation call")
    p.add_argument("--new-tokens", type=int, default=16, help="tokens generated per agent")
    p.add_argument("--repeats", type=int, default=3, help="runs per cell (the best counts)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu", help="cpu or cuda[:N] (throughput part)")
    p.add_argument("--bf16", action="store_true", help="bf16 autocast (throughput part)")
    p.add_argument(
        "--roles", action="store_true", help="also shared vs isolated on the toy role task"
    )
    p.add_argument("--updates", type=int, default=60, help="updates per roles run")
    p.add_argument("--plot", type=Path, help="PNG of the roles runs' diagnostics")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model = args.model or build_tiny_model(Path(tmp) / "tiny", seed=args.seed)
        throughput(model, args.agents, args.new_tokens, args.repeats, args.seed, args.device,
                   args.bf16)  # fmt: skip
        if args.roles:
            roles_run(model, args.updates, args.seed, args.plot, Path(tmp) / "runs")


if __name__ == "__main__":
    main()
