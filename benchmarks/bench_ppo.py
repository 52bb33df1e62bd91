"""Shared-policy PPO on menu mode: throughput, and proof that it learns.

    .venv/bin/python benchmarks/bench_ppo.py throughput           # decisions/s vs CleanRL-style
    .venv/bin/python benchmarks/bench_ppo.py learning --plot c.png  # 3 seeds vs scripted swarms

`throughput` measures agent-decisions per second of rollout collection (all
environments side by side, one batched forward pass for every ready agent) against
CleanRL-style single-env stepping (one environment at a time, one forward pass per
decision), and of the PPO update on the same decisions (one batch of every rollout
against one update per rollout, as with a single environment), in the same run.

`learning` trains on a task for several seeds, evaluates the untrained and the trained
policy on held-out episode seeds, runs the scripted `none` and `claim` swarms (text
mode, `swarm_envs.agents.scripted`) at the same time cap, and prints return and
duplicated work; `--plot` draws the training curves with the scripted reference lines.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

import swarm_envs
from swarm_envs.agents.scripted import make_team
from swarm_envs.baselines.ppo import Args, evaluate, train
from swarm_envs.baselines.ppo.envs import make_envs
from swarm_envs.baselines.ppo.policy import MenuPolicy
from swarm_envs.baselines.ppo.rollout import collect
from swarm_envs.baselines.ppo.trainer import ppo_update
from swarm_envs.envs.menu import WorkMeter
from swarm_envs.generation.generators import unit_patches

EVAL_SEED = 10**9


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    print(f"\n{title}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(r, widths, strict=True)))


# ---------------------------------------------------------------------------- throughput


@torch.no_grad()
def single_env_rollouts(envs, policy, seeds) -> int:
    """CleanRL-style: one environment at a time, one forward pass per decision."""
    decisions = 0
    env = envs[0]
    for seed in seeds:
        obs, infos = env.reset(seed=seed)
        while env.agents:
            actions = {}
            for a in env.ready_agents:
                x = torch.as_tensor(obs[a]["observation"][None])
                m = torch.as_tensor(obs[a]["action_mask"][None].astype(bool))
                actions[a] = int(policy.act(x, m)[0][0])
            decisions += len(actions)
            obs, *_ = env.step(actions)
    return decisions


def cmd_throughput(opts: argparse.Namespace) -> None:
    args = Args(
        task=opts.task,
        num_agents=opts.agents,
        num_envs=opts.envs,
        time_cap=opts.cap,
        seed=opts.seed,
        progress=False,
    )
    torch.manual_seed(opts.seed)
    torch.set_num_threads(1)
    envs = make_envs(args)
    for env in envs:
        env.set_time_cap(opts.cap)
    layout = envs[0].layout
    policy = MenuPolicy(layout.obs_size, layout.n_moves, args.hidden)
    seeds = [opts.seed + k for k in range(opts.envs)]
    collect(envs, policy, seeds)  # warm the scoring cache: both sides then see the same states
    best_ours = best_single = 0.0
    batch = None
    for _ in range(opts.repeat):
        t = time.perf_counter()
        batch = collect(envs, policy, seeds)
        best_ours = max(best_ours, len(batch) / (time.perf_counter() - t))
        t = time.perf_counter()
        n = single_env_rollouts(envs, policy, seeds)
        best_single = max(best_single, n / (time.perf_counter() - t))
    assert batch is not None
    rng = np.random.default_rng(0)
    optimizer = torch.optim.Adam(policy.parameters(), lr=args.learning_rate, eps=1e-5)
    t = time.perf_counter()
    ppo_update(policy, optimizer, batch, args, rng)
    upd_ours = len(batch) * args.update_epochs / (time.perf_counter() - t)
    # Single env: the same decisions, one update per rollout.
    per_env = np.split(np.arange(len(batch)), np.flatnonzero(np.diff(_env_of(batch, envs))) + 1)
    t = time.perf_counter()
    for idx in per_env:
        ppo_update(policy, optimizer, _subset(batch, idx), args, rng)
    upd_single = len(batch) * args.update_epochs / (time.perf_counter() - t)
    for env in envs:
        env.close()
    table(
        f"PPO throughput: {opts.task}, {opts.agents} agents, {opts.envs} rollouts, cap "
        f"{opts.cap:g} s (agent-decisions per second; best of {opts.repeat})",
        ["phase", "ours", "CleanRL-style single env", "ratio"],
        [
            [
                "rollout",
                f"{best_ours:.0f}",
                f"{best_single:.0f}",
                f"{best_ours / best_single:.2f}x",
            ],
            ["update", f"{upd_ours:.0f}", f"{upd_single:.0f}", f"{upd_ours / upd_single:.2f}x"],
        ],
    )


def _env_of(batch, envs) -> np.ndarray:
    # Decisions are laid out env by env, agent by agent: recover each row's env.
    counts = [e["decisions"] for e in batch.episodes]
    return np.repeat(np.arange(len(counts)), counts)


def _subset(batch, idx):
    from dataclasses import replace

    cols = ("obs", "masks", "actions", "logprobs", "values", "rewards", "next_values", "continues")
    return replace(batch, **{c: getattr(batch, c)[idx] for c in cols})


# ---------------------------------------------------------------------------- learning


def scripted(task: str, agents: int, strategy: str, cap: float, seeds, reasoning: int) -> dict:
    """Return and duplicated work of a scripted swarm (text mode) at the same cap."""
    t = swarm_envs.get_task(task)
    stubs = {(p.path, p.old): u.name for u in t.units for p in unit_patches(t, u)}
    returns, dups = [], []
    for seed in seeds:
        env = swarm_envs.parallel_env(task, num_agents=agents, time_cap_s=cap)
        team = make_team(t, agents, strategy, seed=seed, reasoning_tokens=reasoning)
        obs, infos = env.reset(seed=seed)
        meter, pending, ret = WorkMeter(), {}, 0.0
        while env.agents:
            acts = {a: team[a].act(obs[a], infos[a]) for a in env.ready_agents}
            for a, act in acts.items():
                key = (act["arguments"].get("path"), act["arguments"].get("old"))
                if act["name"] == "edit_file" and key in stubs:
                    pending[a] = stubs[key]
            obs, rewards, _, _, infos = env.step(acts)
            ret += next(iter(rewards.values()), 0.0)
            for a in list(pending):
                if infos[a]["tool"] == "edit_file" and (infos[a]["ready"] or infos[a]["done"]):
                    meter.edited(int(a.rsplit("_", 1)[1]), pending.pop(a))
        returns.append(ret)
        dups.append(meter.rate)
        env.close()
    return {"return": float(np.mean(returns)), "duplicated_work": float(np.mean(dups))}


def cmd_learning(opts: argparse.Namespace) -> None:
    eval_seeds = [EVAL_SEED + k for k in range(opts.eval_episodes)]
    results, curves = [], []
    for seed in opts.seeds:
        args = Args(
            task=opts.task,
            num_agents=opts.agents,
            num_envs=opts.envs,
            num_updates=opts.updates,
            time_cap=opts.cap,
            learning_rate=opts.lr,
            ent_coef=opts.ent_coef,
            update_epochs=opts.epochs,
            anneal_lr=opts.anneal_lr,
            seed=seed,
            exp_name="bench_ppo",
            runs_dir=opts.runs_dir,
            checkpoint_every=opts.updates,
            progress=False,
        )
        envs = make_envs(args)
        for env in envs:
            env.set_time_cap(opts.cap)
        torch.manual_seed(seed)  # the trainer's initial policy: same seed, same order
        layout = envs[0].layout
        untrained = MenuPolicy(layout.obs_size, layout.n_moves, args.hidden)
        before = evaluate(untrained, envs, eval_seeds)
        t0 = time.perf_counter()
        summary = train(args)
        wall = time.perf_counter() - t0
        trained = MenuPolicy(layout.obs_size, layout.n_moves, args.hidden)
        trained.load_state_dict(torch.load(summary.checkpoint, weights_only=False)["policy"])
        after = evaluate(trained, envs, eval_seeds)
        for env in envs:
            env.close()
        mean = lambda eps, k: float(np.mean([e[k] for e in eps]))  # noqa: E731
        results.append(
            {
                "seed": seed,
                "before": mean(before, "return"),
                "after": mean(after, "return"),
                "dup_before": mean(before, "duplicated_share"),
                "dup_after": mean(after, "duplicated_share"),
                "wall": wall,
            }
        )
        curves.append(summary.history)
    refs = {
        s: scripted(opts.task, opts.agents, s, opts.cap, eval_seeds, opts.scripted_reasoning)
        for s in ("none", "claim")
    }
    rows = [
        [
            str(r["seed"]),
            f"{r['before']:.2f}",
            f"{r['after']:.2f}",
            f"{r['after'] - r['before']:+.2f}",
            f"{r['dup_before']:.2f}",
            f"{r['dup_after']:.2f}",
            f"{r['wall']:.0f}",
        ]
        for r in results
    ]
    for name, ref in refs.items():
        rows.append(
            [
                f"scripted {name}",
                "",
                f"{ref['return']:.2f}",
                "",
                "",
                f"{ref['duplicated_work']:.2f}",
                "",
            ]
        )
    table(
        f"PPO learning: {opts.task}, {opts.agents} agents, cap {opts.cap:g} s, "
        f"{opts.updates} updates x {opts.envs} rollouts; "
        f"mean over {opts.eval_episodes} held-out episodes",
        [
            "seed",
            "return before",
            "return after",
            "gain",
            "dup. work before",
            "dup. work after",
            "train s",
        ],
        rows,
    )
    gains = [r["after"] / max(r["before"], 1e-9) for r in results]
    print(f"\nreturn after / before: {', '.join(f'{g:.2f}x' for g in gains)}")
    if opts.plot:
        plot(curves, refs, opts)


def plot(curves, refs, opts) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for key, ax, label in (
        ("charts/episodic_return", axes[0], "episodic return (tests passing at the cap)"),
        ("swarm/duplicated_work", axes[1], "duplicated work (share of unit edits)"),
    ):
        for seed, hist in zip(opts.seeds, curves, strict=True):
            w = min(5, len(hist))  # a trailing mean over 5 updates
            y = np.convolve([r[key] for r in hist], np.ones(w) / w, mode="valid")
            ax.plot([r["update"] for r in hist][w - 1 :], y, label=f"PPO seed {seed}")
        ref_key = "return" if key.startswith("charts") else "duplicated_work"
        for (name, ref), style in zip(refs.items(), ("--", ":"), strict=True):
            ax.axhline(ref[ref_key], color="gray", linestyle=style, label=f"scripted {name}")
        ax.set_xlabel("update")
        ax.set_title(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(
        f"shared-policy PPO, {opts.task} menu mode, {opts.agents} agents, cap {opts.cap:g} s"
    )
    fig.tight_layout()
    fig.savefig(opts.plot, dpi=110)
    print(f"wrote {opts.plot}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("throughput", help="decisions per second, ours vs CleanRL-style")
    p.add_argument("--task", default="calc")
    p.add_argument("--agents", type=int, default=8)
    p.add_argument("--envs", type=int, default=8)
    p.add_argument("--cap", type=float, default=30.0)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_throughput)
    p = sub.add_parser("learning", help="train several seeds; compare with scripted swarms")
    p.add_argument("--task", default="calc")
    p.add_argument("--agents", type=int, default=4)
    p.add_argument("--envs", type=int, default=16, help="rollouts per update")
    p.add_argument("--updates", type=int, default=150)
    p.add_argument("--cap", type=float, default=8.0, help="one wave of edits: splitting pays")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--ent-coef", type=float, default=0.005)
    p.add_argument("--anneal-lr", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--eval-episodes", type=int, default=32)
    p.add_argument(
        "--scripted-reasoning", type=int, default=0, help="reasoning tokens of scripted agents"
    )
    p.add_argument("--runs-dir", default="runs")
    p.add_argument("--plot", help="write the training curves to this PNG")
    p.set_defaults(func=cmd_learning)
    opts = parser.parse_args()
    opts.func(opts)


if __name__ == "__main__":
    main()
