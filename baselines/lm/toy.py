"""A toy text task for the LM trainer: the reward depends only on the emitted text.

Each agent answers a one-line prompt naming its role; an `implementer` is rewarded with
the share of lowercase letters in its reply, a `reviewer` with the share of other
characters. The two objectives conflict, so a shared policy with more implementers than
reviewers shows the *dominant role* failure (the reviewers drift toward what the
implementers do), and isolated same-role policies show their agents' gradient agreement.
It runs in seconds on a CPU with a tiny model, with the same learner, maths and
diagnostics as the swarm trainer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from swarm_envs.baselines.lm.engines import GenerationEngine
from swarm_envs.baselines.lm.learner import Learner
from swarm_envs.baselines.lm.rollout import EpisodeRecord, Turn
from swarm_envs.core.config import EnvConfig


def text_reward(text: str, role: str) -> float:
    """Share of lowercase letters (implementers and the single role) or of others (reviewer)."""
    if not text:
        return 0.0
    lower = sum(c.islower() for c in text) / len(text)
    return 1.0 - lower if role == "reviewer" else lower


def prompt_ids(tokenizer: Any, role: str) -> list[int]:
    """The role's prompt, in the chat markup of the tiny models."""
    text = f"<|im_start|>user\nyou are the {role}; write<|im_end|>\n<|im_start|>assistant\n"
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def train_toy(
    learner: Learner,
    engines: Mapping[str, GenerationEngine],
    tokenizer: Any,
    roles: Mapping[str, int] | None,
    *,
    updates: int,
    samples_per_agent: int = 4,
    metrics_path: str | Path | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> list[dict[str, float]]:
    """Train on the toy task; returns per-update metrics (mean reward per role, diagnostics).

    Every update each agent samples `samples_per_agent` one-turn episodes from its
    role's policy; their rewards train the learner; diagnostics are taken first, as in
    the swarm trainer.
    """
    n = sum(roles.values()) if roles else 1
    agents = [f"agent_{i}" for i in range(n)]
    # The environment's own assignment of roles to agents (no environment runs here).
    role_of = dict(
        zip(agents, EnvConfig.build(num_agents=n, roles=roles).agent_roles(), strict=True)
    )
    prompts = {r: prompt_ids(tokenizer, r) for r in set(role_of.values())}
    out = []
    sink = Path(metrics_path).open("w") if metrics_path else None
    try:
        for update in range(updates):
            records = []
            for role, prompt in prompts.items():
                mine = [a for a in agents if role_of[a] == role]
                gens = engines[role].generate([prompt] * (len(mine) * samples_per_agent))
                for k, g in enumerate(gens):
                    agent = mine[k // samples_per_agent]
                    text = tokenizer.decode(g.token_ids, skip_special_tokens=True)
                    r = text_reward(text, role)
                    turn = Turn(
                        agent, role, prompt, g.token_ids, g.logprobs, update, 0.0, True, r, text
                    )
                    records.append(
                        EpisodeRecord(
                            update,
                            {agent: [turn]},
                            r,
                            0.0,
                            "terminated",
                            "all_done",
                            0,
                            0,
                            {agent: role},
                        )  # fmt: skip
                    )
            turns = learner.advantages(records)
            mean = float(np.mean([r.episode_return for r in records]))
            row: dict[str, float] = {"update": update + 1, "charts/episodic_return": mean}
            for role in prompts:
                row[f"roles/{role}/reward"] = float(
                    np.mean([t.reward for t in turns if t.role == role])
                )
            row.update(learner.diagnose(turns, mean))
            row.update({f"losses/{k}": v for k, v in learner.update(turns).items()})
            row["charts/valid_action_rate"] = 1.0
            out.append(row)
            if sink:
                sink.write(json.dumps(row) + "\n")
                sink.flush()
            log(f"update {update + 1}: reward {mean:.3f}")
    finally:
        if sink:
            sink.close()
    return out
