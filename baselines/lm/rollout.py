"""Rollouts of language-model swarms: every ready agent's turn generated in one batch.

`SwarmCollector` steps several environments side by side. At each step it renders the
conversation of every ready agent of every live environment, generates all replies in
one batched call per policy (one per role when policies are isolated), parses them into
tool calls and steps the environments. Each decision becomes a `Turn`: its prompt and
reply tokens, the behaviour log-probabilities, and its reward: the sum of collective
rewards from that decision until the agent's next one (the semi-MDP reward), with the
episode's end reaching every agent's last decision.
"""

from __future__ import annotations

import time as wallclock
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from swarm_envs.baselines.lm.engines import GenerationEngine
from swarm_envs.baselines.lm.policy import Conversation, take_turn
from swarm_envs.core.actions import Action


@dataclass
class Turn:
    """One decision of one agent, as the learner consumes it."""

    agent: str
    role: str
    prompt_ids: list[int]
    reply_ids: list[int]
    behaviour_logprobs: list[float]
    policy_version: int
    time: float  # virtual time at which the agent acted
    valid: bool  # the reply parsed into a tool call
    reward: float = 0.0  # collective reward until the agent's next decision
    text: str = ""
    # Constrained decoding (`grammar`): the allowed tokens at each reply token, as a
    # bitmask; the update applies it to the policy's logits.
    allowed: Any = None


@dataclass
class EpisodeRecord:
    """One finished episode: each agent's turns in order, and how it ended."""

    seed: int | None
    turns: dict[str, list[Turn]]
    episode_return: float
    virtual_time: float
    end: str  # "terminated" or "truncated"
    reason: str  # e.g. "time_cap", "all_tests_pass"
    tests_passed: int
    tests_total: int
    roles: dict[str, str]
    # Truncated episodes bootstrap from the value of each agent's final state.
    final_prompts: dict[str, list[int]] = field(default_factory=dict)

    @property
    def num_turns(self) -> int:
        """Every agent's turns together."""
        return sum(len(v) for v in self.turns.values())

    def all_turns(self) -> list[Turn]:
        """The turns of every agent, agent by agent, each in time order."""
        return [t for agent in sorted(self.turns) for t in self.turns[agent]]


@dataclass
class _Live:
    env: Any
    seed: int | None
    obs: dict
    infos: dict
    convs: dict[str, Conversation]
    last: dict[str, Turn]
    turns: dict[str, list[Turn]]
    roles: dict[str, str]
    ret: float = 0.0


class SwarmCollector:
    """Runs episodes of LM agents on environments and returns `EpisodeRecord`s.

    Args:
        envs: PettingZoo parallel swarm environments (stepped side by side).
        engines: role -> the generation engine of that role's policy.
        tokenizer: the policies' tokenizer.
        tools: role -> the tool schemas given to the chat template (the role's whitelist).
        system_prompts: role -> system prompt.
        max_prompt_tokens: context budget of a prompt.
        max_observation_chars: longest observation kept in a conversation.
        version: callable giving the policy version that samples now (for staleness).
    """

    def __init__(
        self,
        envs: Sequence[Any],
        engines: Mapping[str, GenerationEngine],
        tokenizer: Any,
        tools: Mapping[str, list[dict]],
        system_prompts: Mapping[str, str],
        max_prompt_tokens: int = 4096,
        max_observation_chars: int = 4000,
        version: Callable[[], int] = lambda: 0,
    ):
        self.envs = list(envs)
        self.engines = engines
        self.tokenizer = tokenizer
        self.tools = tools
        self.system_prompts = system_prompts
        self.max_prompt_tokens = max_prompt_tokens
        self.max_observation_chars = max_observation_chars
        self.version = version
        self.generated_tokens = 0
        self.generation_seconds = 0.0

    def collect(
        self, seeds: Sequence[int | None], time_cap: float | None = None
    ) -> list[EpisodeRecord]:
        """Run one episode per seed (as many side by side as there are environments)."""
        out: list[EpisodeRecord] = []
        for k in range(0, len(seeds), len(self.envs)):
            out += self._run(list(seeds[k : k + len(self.envs)]), time_cap)
        return out

    def _start(self, env: Any, seed: int | None, time_cap: float | None) -> _Live:
        options = {"time_cap": time_cap} if time_cap is not None else None
        obs, infos = env.reset(seed=seed, options=options)
        roles = {a: infos[a]["role"] for a in env.agents}  # the environment assigns them
        convs = {
            a: Conversation(
                self.system_prompts[roles[a]],
                max_prompt_tokens=self.max_prompt_tokens,
                max_observation_chars=self.max_observation_chars,
            )
            for a in env.agents
        }
        return _Live(env, seed, obs, infos, convs, {}, {a: [] for a in env.agents}, roles)

    def _run(self, seeds: list[int | None], time_cap: float | None) -> list[EpisodeRecord]:
        live = [self._start(env, s, time_cap) for env, s in zip(self.envs, seeds, strict=False)]
        records: list[EpisodeRecord | None] = [None] * len(live)
        while any(r is None for r in records):
            requests = []  # (live index, agent, prompt)
            for k, lv in enumerate(live):
                if records[k] is not None:
                    continue
                for a in lv.env.ready_agents:
                    conv = lv.convs[a]
                    if not conv.messages or conv.messages[-1]["role"] == "assistant":
                        conv.observe(lv.obs[a])
                    tools = self.tools[lv.roles[a]]
                    requests.append((k, a, conv.prompt_ids(self.tokenizer, tools)))
            replies = self._generate(live, requests)
            actions: list[dict[str, Action]] = [{} for _ in live]
            version = self.version()
            for (k, a, prompt), gen in zip(requests, replies, strict=True):
                lv = live[k]
                action, text, valid = take_turn(lv.convs[a], self.tokenizer, prompt, gen.token_ids)
                actions[k][a] = action
                turn = Turn(
                    agent=a,
                    role=lv.roles[a],
                    prompt_ids=prompt,
                    reply_ids=gen.token_ids,
                    behaviour_logprobs=gen.logprobs,
                    policy_version=version,
                    time=float(lv.infos[a].get("time", 0.0)),
                    valid=valid,
                    text=text,
                    allowed=getattr(gen, "allowed", None),
                )
                lv.last[a] = turn
                lv.turns[a].append(turn)
            for k, lv in enumerate(live):
                if records[k] is not None:
                    continue
                lv.obs, rewards, _, _, lv.infos = lv.env.step(actions[k])
                step_reward = next(iter(rewards.values()), 0.0)
                lv.ret += step_reward
                for a, r in rewards.items():
                    if a in lv.last:
                        lv.last[a].reward += float(r)
                if not lv.env.agents:
                    records[k] = self._finish(lv)
        return [r for r in records if r is not None]

    def _generate(self, live: list[_Live], requests: list) -> list:
        by_role: dict[str, list[int]] = {}
        for n, (k, a, _) in enumerate(requests):
            by_role.setdefault(live[k].roles[a], []).append(n)
        replies: list = [None] * len(requests)
        t0 = wallclock.perf_counter()
        for role, idx in by_role.items():
            gens = self.engines[role].generate([requests[n][2] for n in idx])
            for n, g in zip(idx, gens, strict=True):
                replies[n] = g
                self.generated_tokens += len(g.token_ids)
        self.generation_seconds += wallclock.perf_counter() - t0
        return replies

    def _finish(self, lv: _Live) -> EpisodeRecord:
        info = next(iter(lv.infos.values()))
        end = "terminated" if info.get("termination") else "truncated"
        reason = info.get("termination") or info.get("truncation") or ""
        final_prompts = {}
        if end == "truncated":
            for a, turns in lv.turns.items():
                if turns:
                    conv = lv.convs[a]
                    if conv.messages[-1]["role"] == "assistant":
                        conv.observe(lv.obs[a])
                    final_prompts[a] = conv.prompt_ids(self.tokenizer, self.tools[lv.roles[a]])
        return EpisodeRecord(
            seed=lv.seed,
            turns=lv.turns,
            episode_return=lv.ret,
            virtual_time=float(info.get("time", 0.0)),
            end=end,
            reason=reason,
            tests_passed=int(info.get("tests_passed", 0)),
            tests_total=int(info.get("tests_total", 0)),
            roles=lv.roles,
            final_prompts=final_prompts,
        )
