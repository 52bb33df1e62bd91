"""The environment's own overhead per agent action, from 1 to 1,000 agents.

Agents only send direct messages and wait (no tool touches the disk, no test
runs), so what is timed is the environment itself: parsing, the clock, routing,
observations and the per-step dictionaries. Token counts are drawn at random so
that completions do not line up: most steps complete a single action, which is
the worst case for per-step costs that grow with the number of agents.

Targets: below 0.1 ms per agent action, and the cost at 1,000 agents within 2x
of the cost at 8 (no hidden quadratic term).

A second table times the measured time mode (`time={"measured": True}`): the virtual
seconds it charges for a command against the command's own wall time (its overhead is
what the ratio says above 1).

    python benchmarks/bench_env_overhead.py            # full tables
    python benchmarks/bench_env_overhead.py --actions 5000 --agents 8 1000
"""

from __future__ import annotations

import argparse
import json
import random
import time

import swarm_envs


def make_actions(n_agents: int, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        if rng.random() < 0.5:
            to = f"agent_{rng.randrange(n_agents)}"
            out.append(
                json.dumps(
                    {
                        "name": "send_message",
                        "arguments": {"to": to, "text": "status?"},
                        "usage": {"output_tokens": rng.randrange(5, 200), "input_tokens": 50},
                    }
                )
            )
        else:
            out.append(
                json.dumps(
                    {
                        "name": "wait",
                        "arguments": {"seconds": rng.uniform(1, 30)},
                        "usage": {"output_tokens": rng.randrange(5, 50), "input_tokens": 50},
                    }
                )
            )
    return out


def run(n_agents: int, n_actions: int, sync: str, seed: int) -> tuple[float, int, int]:
    env = swarm_envs.parallel_env("calc", num_agents=n_agents, sync=sync, time_cap_s=1e12)
    env.reset(seed=seed)
    pool = make_actions(n_agents, 4096, seed)
    done = steps = 0
    k = 0
    ready = list(env.agents)
    wall = 0.0
    while done < n_actions:
        acts = {}
        for a in ready:
            act = pool[k % len(pool)]
            k += 1
            if '"to": "' + a + '"' in act:  # not to oneself
                act = act.replace(
                    '"to": "' + a + '"', '"to": "agent_0"' if a != "agent_0" else '"to": "agent_1"'
                )
            acts[a] = act
        t0 = time.perf_counter()
        env.step(acts)
        wall += time.perf_counter() - t0  # only the environment's own time
        done += len(acts)
        steps += 1
        ready = env.ready_agents
    env.close()
    return wall / done * 1e6, done, steps


def measured(seconds: float, repeat: int) -> tuple[float, float]:
    """(virtual seconds charged, wall seconds of the step) for `sleep seconds`, best of runs."""
    env = swarm_envs.parallel_env(
        "calc", num_agents=1, time={"measured": True, "output_token_s": 0.0, "input_token_s": 0.0}
    )
    best = (float("inf"), float("inf"))
    try:
        for _ in range(repeat):
            env.reset(seed=0)
            action = {"name": "run_command", "arguments": {"command": f"sleep {seconds}"}}
            t0 = time.perf_counter()
            _, _, _, _, infos = env.step({"agent_0": action})
            best = min(best, (infos["agent_0"]["time"], time.perf_counter() - t0))
    finally:
        env.close()
    return best


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--agents", type=int, nargs="+", default=[1, 8, 64, 256, 1000])
    p.add_argument("--actions", type=int, default=20_000, help="agent actions per measurement")
    p.add_argument("--sync", choices=["event", "round"], nargs="+", default=["event", "round"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--repeat", type=int, default=3, help="runs per cell; the fastest counts (less noise)"
    )
    p.add_argument(
        "--measured",
        type=float,
        nargs="*",
        default=[0.1, 0.3],
        help="sleep durations for the measured-time table (none: skip it)",
    )
    args = p.parse_args()
    if args.agents[0] != 8 and 8 not in args.agents:
        args.agents = [8, *args.agents]
    print(
        f"{'sync':<6} {'agents':>7} {'actions':>8} {'steps':>7} {'us/action':>10}"
        f" {'vs 8 agents':>12}"
    )
    for sync in args.sync:
        ref = None
        rows = []
        for n in args.agents:
            runs = [run(n, max(args.actions, n), sync, args.seed) for _ in range(args.repeat)]
            us, done, steps = min(runs)
            rows.append((n, done, steps, us))
            if n == 8:
                ref = us
        for n, done, steps, us in rows:
            print(f"{sync:<6} {n:>7} {done:>8} {steps:>7} {us:>10.1f} {us / ref:>11.2f}x")
    print("target: < 100 us/action; 1000 agents within 2.00x of 8 agents")
    print()
    print(f"{'measured: sleep s':>18} {'charged s':>10} {'step wall s':>12} {'charged/sleep':>14}")
    for seconds in args.measured:
        charged, wall = measured(seconds, args.repeat)
        print(f"{seconds:>18.2f} {charged:>10.3f} {wall:>12.3f} {charged / seconds:>13.2f}x")


if __name__ == "__main__":
    main()
