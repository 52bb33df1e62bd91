"""Do LLM agents of a swarm wait for each other's requests? Concurrent vs one at a time.

A local OpenAI-compatible server (the test suite's scripted server, loopback only)
answers every request after `--delay` seconds. N `LLMAgent`s (the official `openai`
SDK's `AsyncOpenAI`) play rounds of a `sync="round"` episode, in which every agent acts
every step, driven by `swarm_envs.rollout`:

- `concurrent`: the runner awaits the ready agents' requests together (its default);
- `sequential`: the obvious alternative, a loop that sends one request at a time
  (here: the same agents behind one lock).

Prints the median wall time per round (from one round's actions reaching the env to
the next's: the requests plus the env's step) against the ideal (one delay, or N
delays), and the ratio of the two modes.

    python benchmarks/bench_llm_concurrency.py                  # 8 agents, 0.2 s replies
    python benchmarks/bench_llm_concurrency.py --agents 1 8 32 --delay 0.1 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.llm_server import Reply, ScriptedServer  # noqa: E402  (the tests' scripted server)

import swarm_envs  # noqa: E402
from swarm_envs.agents import LLMAgent  # noqa: E402


class OneAtATime:
    """An agent whose request waits for every other agent's: the sequential loop."""

    def __init__(self, agent: LLMAgent, locks: dict):
        self.agent, self.locks = agent, locks  # one lock per event loop, shared by the team

    def reset(self, agent_name, task_info):
        self.agent.reset(agent_name, task_info)

    async def act(self, observation, info):
        lock = self.locks.setdefault(asyncio.get_running_loop(), asyncio.Lock())
        async with lock:
            return await self.agent.act(observation, info)

    async def aclose(self):
        await self.agent.aclose()


def run(server: ScriptedServer, n: int, rounds: int, mode: str, seed: int) -> dict:
    env = swarm_envs.parallel_env("calc", num_agents=n, sync="round", time_cap_s=1e6)
    agents = LLMAgent.team(n, model="scripted", base_url=server.url, api_key="bench")
    locks: dict = {}
    team = agents if mode == "concurrent" else [OneAtATime(a, locks) for a in agents]
    server.max_in_flight = 0
    stamps: list[float] = []  # when each round's actions reach the env: reset excluded
    step = env.step
    env.step = lambda actions: (stamps.append(time.perf_counter()), step(actions))[1]
    trajectory = swarm_envs.rollout(env, team, seed=seed, max_steps=rounds + 1)
    env.close()
    rounds_s = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    return {
        "round_s": statistics.median(rounds_s),
        "in_flight": server.max_in_flight,
        "requests": sum(len(a.decisions) for a in trajectory.agents),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--agents", type=int, nargs="+", default=[8], help="swarm sizes")
    p.add_argument("--delay", type=float, default=0.2, help="seconds the server takes per reply")
    p.add_argument("--rounds", type=int, default=5, help="rounds (steps) per measurement")
    p.add_argument("--seed", type=int, default=0, help="seed of reset()")
    args = p.parse_args()

    reply = Reply(calls=[("list_files", {})], delay_s=args.delay)
    print(f"{args.delay:.2f} s per reply, {args.rounds} rounds, seed {args.seed}")
    header = (
        f"{'agents':>6} | {'concurrent s/round':>18} | {'ideal':>6} | "
        f"{'sequential s/round':>18} | {'ideal':>6} | {'speed-up':>8} | {'in flight':>9}"
    )
    print(header)
    print("-" * len(header))
    with ScriptedServer(lambda request: reply) as server:
        for n in args.agents:
            conc = run(server, n, args.rounds, "concurrent", args.seed)
            seq = run(server, n, args.rounds, "sequential", args.seed)
            assert conc["requests"] == seq["requests"] == n * (args.rounds + 1)
            print(
                f"{n:>6} | {conc['round_s']:>18.3f} | {args.delay:>6.2f} | "
                f"{seq['round_s']:>18.3f} | {n * args.delay:>6.2f} | "
                f"{seq['round_s'] / conc['round_s']:>7.1f}x | "
                f"{conc['in_flight']:>4} / {seq['in_flight']:<2}"
            )


if __name__ == "__main__":
    main()
