"""Rollout collection: whole episodes of menu-mode swarms, as semi-MDP decision sequences.

`collect` runs several environments side by side, each for one episode (a
rollout ends at its time cap), and asks the policy for every ready agent of every
environment in one batched forward pass. An agent that is busy makes no decision;
what happens while it is busy is credited to its latest decision
(`maths.decision_rewards`). The result is a flat batch of decisions, grouped by
(environment, agent) sequence, ready for `maths.gae`.

`collect_on(pool, ...)` collects the same batch on the workers of a
`swarm_envs.distributed.WorkerPool` (Ray actors for `swarm-envs train --ray`), the way
both trainers do (`swarm_envs.baselines.remote`): one job per episode carries a copy of
the policy, each worker keeps its env between jobs, and the episodes' batches are laid
end to end (`concat`).

With `credit="attributed"` a decision learns from its agent's own share of the reward
(`attributed_rewards`, from the episode's attribution) instead of the swarm's.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import torch

from swarm_envs.baselines.ppo.maths import decision_rewards
from swarm_envs.baselines.remote import collect_remote
from swarm_envs.distributed import WorkerPool

Credit = Literal["collective", "attributed"]
"""Whose reward a decision learns from: the swarm's (every agent the collective reward)
or the agent's own share of it (`attributed_rewards`)."""


@dataclass
class Rollouts:
    """The decisions of one batch of episodes, sequence by sequence."""

    obs: np.ndarray  # [B, obs_size] float32
    masks: np.ndarray  # [B, n_actions] bool
    actions: np.ndarray  # [B] int64
    logprobs: np.ndarray  # [B] float32: behaviour policy
    values: np.ndarray  # [B] float32
    rewards: np.ndarray  # [B] semi-MDP reward of each decision
    next_values: np.ndarray  # [B] value after the decision (0 after a termination)
    continues: np.ndarray  # [B] 1 when the next row is the same agent's next decision
    episodes: list[dict] = field(default_factory=list)
    steps: int = 0  # env steps of all episodes together
    failed: int = 0  # episodes lost with their worker (`collect_on` only)

    def __len__(self) -> int:
        return len(self.actions)


@dataclass
class _Seq:
    """One agent's decisions in one episode."""

    steps: list[int] = field(default_factory=list)
    obs: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)


def _box(observation) -> np.ndarray:
    # The action mask is in infos in both observation formats (dict_obs or not).
    return observation["observation"] if isinstance(observation, dict) else observation


@torch.no_grad()
def collect(
    envs: Sequence,
    policy,
    seeds: Sequence[int],
    device: str | torch.device = "cpu",
    reward_scale: Literal["tests", "progress"] = "tests",
    credit: Credit = "collective",
) -> Rollouts:
    """One episode in each of `envs` (menu-mode parallel envs), reset with `seeds`.

    The reward of a step is the env's (the change in passing tests), or with
    `reward_scale="progress"` that change over the tests failing at the episode's start:
    then an episode's whole return is at most 1 on every task, as its progress is.

    `credit="collective"` gives every agent that reward; `"attributed"` gives each agent
    its share of it, from the episode's attribution (`attributed_rewards`).
    """
    n_env = len(envs)
    obs: list[dict] = []
    infos: list[dict] = []
    for env, seed in zip(envs, seeds, strict=True):
        o, i = env.reset(seed=int(seed))
        obs.append(o)
        infos.append(i)
    agents = [list(env.possible_agents) for env in envs]
    seqs = [[_Seq() for _ in a] for a in agents]
    step_rewards: list[list[float]] = [[] for _ in envs]
    # each agent's share of every step's reward (credit="attributed")
    shares: list[list[np.ndarray]] = [[] for _ in envs]
    views = [env.view() for env in envs]
    seen = [len(view.attribution) for view in views]
    # (virtual time, tests passing) after every step, from the start: the progress curve
    traces = [[(view.time, view.tests_passed)] for view in views]
    final: list[dict | None] = [None] * n_env
    active = list(range(n_env))
    while active:
        # Every ready agent of every env, in one forward pass.
        who = [(e, j) for e in active for j, a in enumerate(agents[e]) if infos[e][a]["ready"]]
        actions: list[dict[str, int]] = [{} for _ in envs]
        if who:
            xs = [_box(obs[e][agents[e][j]]) for e, j in who]
            ms = [infos[e][agents[e][j]]["action_mask"].astype(bool) for e, j in who]
            x = torch.as_tensor(np.stack(xs), device=device)
            m = torch.as_tensor(np.stack(ms), device=device)
            action, logprob, _, value = policy.act(x, m)
            for k, (e, j) in enumerate(who):
                s = seqs[e][j]
                s.steps.append(len(step_rewards[e]))
                s.obs.append(xs[k])
                s.masks.append(ms[k])
                s.actions.append(int(action[k]))
                s.logprobs.append(float(logprob[k]))
                s.values.append(float(value[k]))
                actions[e][agents[e][j]] = int(action[k])
        still = []
        for e in active:
            o, rewards, terms, truncs, i = envs[e].step(actions[e])
            step_rewards[e].append(float(next(iter(rewards.values()), 0.0)))
            view = envs[e].view()
            if credit == "attributed":
                records = view.attribution
                shares[e].append(attributed_rewards(records[seen[e] :], agents[e]))
                seen[e] = len(records)
            traces[e].append((view.time, view.tests_passed))
            obs[e], infos[e] = o, i
            if envs[e].agents:
                still.append(e)
            else:
                first = agents[e][0]
                final[e] = {
                    "obs": o,
                    "infos": i,
                    "truncated": bool(truncs[first]),
                    "time_left": float(i[first]["time_left"]),
                }
        active = still
    if reward_scale == "progress":
        for e, end in enumerate(final):
            assert end is not None  # every episode ended
            todo = int(end["infos"][agents[e][0]]["tests_total"]) - traces[e][0][1]
            step_rewards[e] = [x / max(todo, 1) for x in step_rewards[e]]
            shares[e] = [x / max(todo, 1) for x in shares[e]]
    per_agent = (
        [
            np.asarray(x, dtype=np.float64).reshape(-1, len(a))
            for x, a in zip(shares, agents, strict=True)
        ]
        if credit == "attributed"
        else None
    )
    return _assemble(envs, agents, seqs, step_rewards, final, traces, policy, device, per_agent)


def attributed_rewards(records: Sequence[Mapping[str, Any]], agents: Sequence[str]) -> np.ndarray:
    """Each agent's share of the score change of some attribution records, `[len(agents)]`.

    A record's change (tests gained less tests lost) goes in equal parts to the agents
    whose writes or commands preceded it (its `actions`); one that names no agent (a
    recount) goes to all alike. The shares sum to the change, so the swarm's total is
    the collective reward's, and agents that repeat each other's work split its credit.
    """
    index = {a: j for j, a in enumerate(agents)}
    out = np.zeros(len(agents), dtype=np.float64)
    for record in records:
        change = len(record["gained"]) - len(record["lost"])
        authors = sorted({index[a["agent"]] for a in record["actions"] if a["agent"] in index})
        if authors:
            out[authors] += change / len(authors)
        else:
            out += change / len(agents)
    return out


def bootstrap_values(final: list[dict], agents: list[list[str]], policy, device) -> dict:
    """The value after each agent's last decision, {(env, agent index): value}.

    Termination: 0 (absent). Truncation: `V(final observation)`, except where the
    observation says no time is left: the time cap is part of what agents observe
    (the time-left feature), so a state at the cap has no future reward by
    definition, and a critic that never trains on such states must not invent one
    (Pardo et al., "Time Limits in Reinforcement Learning", 2018). A truncation with
    time left (the token budget, a failing scorer) bootstraps from V.
    """
    keys = [
        (e, j)
        for e, f in enumerate(final)
        if f["truncated"] and f["time_left"] > 0
        for j in range(len(agents[e]))
    ]
    if not keys:
        return {}
    xs = np.stack([_box(final[e]["obs"][agents[e][j]]) for e, j in keys])
    v = policy.value(torch.as_tensor(xs, device=device)).cpu().numpy()
    return {key: float(x) for key, x in zip(keys, v, strict=True)}


def progress_curve(trace: Sequence[tuple[float, int]], total: int) -> list[tuple[float, float]]:
    """(virtual time, progress) at the start and at every change of progress.

    Progress is the share of the tests failing at the start that pass, the measure of
    `swarm-envs bench`, so that swarms, tasks and the scripted baselines compare.
    """
    t0, start = trace[0]
    todo = total - start
    curve = [(float(t0), 0.0)]
    for t, passed in trace[1:]:
        p = (passed - start) / todo if todo else 1.0
        if p != curve[-1][1]:
            curve.append((float(t), p))
    return curve


def time_to(curve: Sequence[tuple[float, float]], level: float) -> float | None:
    """The first virtual time at which a progress curve reaches `level` (None: never)."""
    return next((t for t, p in curve if p >= level - 1e-12), None)


def credit(env: Any) -> tuple[dict[str, float], list[str]]:
    """Tests gained by each agent, and the duplicated units, from the env's attribution.

    As `swarm-envs bench` counts them: a rescore's gained tests (less its lost ones) are
    shared equally among the agents whose writes preceded it (those its attribution record
    names); a unit is duplicated when writes of more than one agent to its file preceded
    changes of its tests.
    """
    from swarm_envs.scoring import select_tests

    records = env.view().attribution
    gained = dict.fromkeys(env.possible_agents, 0.0)
    changed = sorted({t for r in records for t in (*r["gained"], *r["lost"])})
    units_of: dict[str, list[Any]] = {}
    for unit in env.task.units:
        for t in select_tests(changed, list(unit.tests))[0]:
            units_of.setdefault(t, []).append(unit)
    touched: dict[str, set[str]] = {}
    for record in records:
        authors = sorted({a["agent"] for a in record["actions"]})
        for name in authors:
            gained[name] += (len(record["gained"]) - len(record["lost"])) / len(authors)
        tests = (*record["gained"], *record["lost"])
        units = {u.name: u for t in tests for u in units_of.get(t, ())}
        for unit in units.values():
            for action in record["actions"]:
                if action["files"] is None or unit.path in action["files"]:
                    touched.setdefault(unit.name, set()).add(action["agent"])
    return gained, sorted(u for u, who in touched.items() if len(who) > 1)


def _assemble(
    envs, agents, seqs, step_rewards, final, traces, policy, device, per_agent=None
) -> Rollouts:
    """The batch: every agent's decisions with their semi-MDP rewards, and each episode's figures.

    `per_agent[e]` (`[T, agents]`), where given, holds each agent's own reward of every step
    (attributed credit); otherwise every agent's is the collective `step_rewards[e]`.
    """
    boot = bootstrap_values(final, agents, policy, device)
    cols: dict[str, list] = {k: [] for k in ("obs", "masks", "actions", "logprobs", "values")}
    rewards: list[float] = []
    next_values: list[float] = []
    continues: list[float] = []
    episodes = []
    for e, env in enumerate(envs):
        r = np.asarray(step_rewards[e], dtype=np.float64)
        for j, s in enumerate(seqs[e]):
            if not s.steps:
                continue
            decided = np.zeros(len(r), dtype=bool)
            decided[s.steps] = True
            mine = r if per_agent is None else per_agent[e][:, j]
            rewards.extend(decision_rewards(mine, decided))
            next_values.extend(s.values[1:] + [boot.get((e, j), 0.0)])
            continues.extend([1.0] * (len(s.steps) - 1) + [0.0])
            for k in cols:
                cols[k].extend(getattr(s, k))
        info = final[e]["infos"][agents[e][0]]
        curve = progress_curve(traces[e], int(info["tests_total"]))
        gained, duplicated_units = credit(env)
        claim = {env.layout.claim(u) for u in range(len(env.task.units))}
        episodes.append(
            {
                "task": env.task.id,
                "return": float(r.sum()),
                "length": len(r),
                "decisions": sum(len(s.steps) for s in seqs[e]),
                "time": float(info["time"]),
                "time_cap": float(env.view().time_cap),
                "tests_passed": int(info["tests_passed"]),
                "tests_total": int(info["tests_total"]),
                "duplicated_work": int(info["duplicated_work"]),
                "duplicated_share": float(info["duplicated_share"]),
                "unit_edits": int(info["unit_edits"]),
                "tests_start": int(traces[e][0][1]),
                "progress": curve[-1][1],
                "curve": curve,
                "time_to_90": time_to(curve, 0.9),
                # messages: every claim is a post on #general (the only message menu mode sends)
                "messages": sum(a in claim for s in seqs[e] for a in s.actions),
                "credit": [gained[a] for a in agents[e]],
                "duplicated_units": len(duplicated_units),
                "end": info["termination"] or info["truncation"],
                "truncated": final[e]["truncated"],
            }
        )
    return Rollouts(
        obs=np.asarray(cols["obs"], dtype=np.float32),
        masks=np.asarray(cols["masks"], dtype=bool),
        actions=np.asarray(cols["actions"], dtype=np.int64),
        logprobs=np.asarray(cols["logprobs"], dtype=np.float32),
        values=np.asarray(cols["values"], dtype=np.float32),
        rewards=np.asarray(rewards, dtype=np.float32),
        next_values=np.asarray(next_values, dtype=np.float32),
        continues=np.asarray(continues, dtype=np.float32),
        episodes=episodes,
        steps=sum(len(r) for r in step_rewards),
    )


# ---------------------------------------------------------------------------- on workers


def sample_episode(
    env: Any,
    policy: torch.nn.Module,
    seed: int,
    reward_scale: Literal["tests", "progress"] = "tests",
    credit: Credit = "collective",
) -> Rollouts:
    """`collect` of one episode on `env` (the `sample` of a remote episode job)."""
    return collect([env], policy, [seed], reward_scale=reward_scale, credit=credit)


def collect_on(
    pool: WorkerPool,
    env: Callable[[], Any] | Sequence[Callable[[], Any]],
    policy: torch.nn.Module,
    seeds: Sequence[int],
    time_cap: float,
    reward_scale: Literal["tests", "progress"] = "tests",
    credit: Credit = "collective",
) -> Rollouts:
    """One episode per seed on the pool's workers, as one batch in the seeds' order.

    `env` is the recipe of every episode, or one recipe per seed.

    Each job carries a CPU copy of the policy (`swarm_envs.baselines.remote`). An episode
    whose worker died or hung is left out and counted in `failed` (the pool replaces the
    worker and logs why).

    Raises:
        WorkerError: every episode failed.
    """
    shipped = copy.deepcopy(policy).cpu()
    sample = functools.partial(sample_episode, reward_scale=reward_scale, credit=credit)
    parts, failed = collect_remote(pool, sample, env, shipped, seeds, time_cap)
    batch = concat(parts)
    batch.failed = failed
    return batch


def concat(parts: Sequence[Rollouts]) -> Rollouts:
    """Batches laid end to end: every sequence keeps its rows and its end (`continues`)."""
    arrays = {
        f.name: np.concatenate([getattr(p, f.name) for p in parts])
        for f in dataclasses.fields(Rollouts)
        if f.name not in ("episodes", "steps", "failed")
    }
    return Rollouts(
        **arrays,
        episodes=[e for p in parts for e in p.episodes],
        steps=sum(p.steps for p in parts),
        failed=sum(p.failed for p in parts),
    )
