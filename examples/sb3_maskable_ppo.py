"""sb3-contrib's MaskablePPO learns menu mode on calc: one agent, the moves masked.

    pip install swarm-envs stable-baselines3 sb3-contrib
    python examples/sb3_maskable_ppo.py --steps 3000

Stable-Baselines3 takes a `Box` observation and a `Discrete` action: menu mode with
`dict_obs=False` (the feature vector alone), its mask from `env.action_masks()`, which
MaskablePPO asks for. The text env (`swarm/calc-v0`) is for language models: its
observations are text, which SB3's policies do not take. The script trains, then plays
the trained policy and a random masked policy on the same seeds, and prints both.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
from sb3_contrib import MaskablePPO

ENV_ID = "swarm_envs:swarm/calc-menu-v0"


def play(env: gym.Env, policy, seeds: list[int]) -> tuple[float, float]:
    """Mean return and mean virtual seconds of one episode per seed."""
    returns, times = [], []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        done, total = False, 0.0
        while not done:
            action = policy(obs, env.unwrapped.action_masks())
            obs, reward, terminated, truncated, info = env.step(action)
            total += reward
            done = terminated or truncated
        returns.append(total)
        times.append(info["time"])
    return float(np.mean(returns)), float(np.mean(times))


def main() -> None:
    """Train, then compare the trained policy with a random masked one."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=3000, help="training steps (moves)")
    p.add_argument("--time-cap", type=float, default=300.0, help="virtual seconds per episode")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--episodes", type=int, default=5, help="evaluation episodes per policy")
    args = p.parse_args()

    env = gym.make(ENV_ID, dict_obs=False, time_cap_s=args.time_cap)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=256, batch_size=64, learning_rate=3e-4, seed=args.seed
    )
    t0 = time.perf_counter()
    model.learn(args.steps)
    took = time.perf_counter() - t0

    rng = np.random.default_rng(args.seed)
    seeds = [1000 + k for k in range(args.episodes)]

    def trained(obs, mask):
        return int(model.predict(obs, action_masks=mask, deterministic=True)[0])

    def random(obs, mask):
        return int(rng.choice(np.flatnonzero(mask)))

    print(f"trained {args.steps} steps in {took:.0f} s ({args.steps / took:.1f} steps/s)")
    print(f"{'policy':<16}{'return':>8}{'virtual s':>11}   ({args.episodes} episodes)")
    for name, policy in (("random, masked", random), ("MaskablePPO", trained)):
        ret, secs = play(env, policy, seeds)
        print(f"{name:<16}{ret:>8.2f}{secs:>11.0f}")
    env.close()


if __name__ == "__main__":
    main()
