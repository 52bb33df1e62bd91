"""TRL: train a policy on swarm episodes with `GRPOTrainer(rollout_func=...)`.

    from trl import GRPOConfig, GRPOTrainer
    from swarm_envs.integrations.trl import SwarmRollout

    rollout = SwarmRollout("calc", num_agents=4, trained_agents=2, teammates="claim")
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=rollout.reward,          # the environment's reward, nothing else
        rollout_func=rollout,                 # TRL 1.16's documented multi-turn hook
        train_dataset=rollout.dataset(64),
        args=GRPOConfig(num_generations=4, per_device_train_batch_size=4, logging_steps=1, ...),
    )
    trainer.train()

TRL 1.16 documents two environment interfaces for `GRPOTrainer`: `environment_factory`
(one single-agent environment per rollout, its methods called as tools through the
model's chat template) and `rollout_func(prompts, trainer)`, which returns the token ids,
log-probabilities and masks of each sample itself. A swarm episode has many agents
acting at their own virtual times in one shared workspace, so it cannot be one
`environment_factory` instance per sample; `rollout_func` fits it exactly, and is what
this adapter implements.

## One sample per trained agent of an episode

Each group of `trained_agents` consecutive samples is one episode (seeds `seed`,
`seed + 1`, ... in order): the episode's first `trained_agents` agents are played by the
model being trained, the others (if any) by scripted teammates (`teammates`, see
`swarm_envs.agents.scripted`). A sample is one trained agent's whole episode:

- `prompt_ids`: its first observation under the tokenizer's chat template, with the tools
  of `swarm_envs.tool_schemas()`;
- `completion_ids`: its turns in order: the tokens the model generated for each action,
  then the tokens of the observation the environment returned (the tool's result, as a
  `tool` message of the chat template), and so on;
- `logprobs`: for each generated token, its log-probability under the sampling
  distribution at the moment it was sampled (temperature `trainer.temperature`, no
  top-k or top-p); 0 for observation tokens;
- `env_mask`: 1 for generated tokens, 0 for observation tokens (TRL trains only on 1s).

The generated token ids are never re-tokenised: the action text sent to the environment
is decoded from them, and the ids in the sample are the ids the model produced. Only the
environment's text (observations) is tokenised.

The reward of every sample is the episode's collective return (the change in the number
of passing tests over the episode, the same for every agent), given to TRL as the extra
field `env_reward` and read by `SwarmRollout.reward`. GRPO's group baseline compares
episodes of the same prompt group: `num_generations` must be a multiple of
`trained_agents`, so that a group is whole episodes.

A trained agent acts at most `max_turns` times; after that the adapter says `done` for it
(outside its sample) and it shares the episode's reward until the end. Generation uses
the trainer's model with `transformers`' `generate` (one batch per step of the ready
trained agents), so it runs wherever the trainer runs, CPU included.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from swarm_envs.core.actions import Action, Usage, tool_schemas
from swarm_envs.error import ConfigError

_CALL = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S)
_DONE = '{"name": "done", "arguments": {"summary": "turn limit of the trained agent"}}'


@dataclass
class _Sample:
    prompt_ids: list[int]
    completion_ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    turns: int = 0

    def add(self, ids: Sequence[int], logprobs: Sequence[float] | None, generated: bool) -> None:
        self.completion_ids += ids
        self.logprobs += logprobs if logprobs is not None else [0.0] * len(ids)
        self.mask += [int(generated)] * len(ids)


class SwarmRollout:
    """A `rollout_func` for TRL's `GRPOTrainer`: samples are agents of swarm episodes.

    Args:
        task: task id, name or folder.
        num_agents: agents per episode.
        trained_agents: how many of them (the first ones) the trained model plays; each
            is one sample (default: all).
        teammates: strategy of the scripted agents that play the others (`none`,
            `claim`, `leader`).
        max_turns: most actions of one trained agent per episode.
        max_new_tokens: most tokens of one action.
        seed: the first episode's seed (each episode takes the next one).
        env_kwargs: more `EnvConfig` fields (`time_cap_s`, `time`, ...).
        teammate_kwargs: options of the scripted teammates (`p_wrong`, ...).
    """

    def __init__(
        self,
        task: str = "calc",
        *,
        num_agents: int = 2,
        trained_agents: int | None = None,
        teammates: Literal["none", "claim", "leader"] = "claim",
        max_turns: int = 4,
        max_new_tokens: int = 64,
        seed: int = 0,
        env_kwargs: Mapping[str, Any] | None = None,
        teammate_kwargs: Mapping[str, Any] | None = None,
    ):
        self.trained_agents = num_agents if trained_agents is None else trained_agents
        if not 1 <= self.trained_agents <= num_agents:
            raise ConfigError(
                f"trained_agents={trained_agents}: expected 1 to num_agents ({num_agents})"
            )
        if max_turns < 1 or max_new_tokens < 1:
            raise ConfigError("max_turns and max_new_tokens must be at least 1")
        self.task, self.num_agents, self.teammates = task, num_agents, teammates
        self.max_turns, self.max_new_tokens = max_turns, max_new_tokens
        self.env_kwargs = dict(env_kwargs or {})
        self.teammate_kwargs = dict(teammate_kwargs or {})
        self.next_seed = seed
        #: per episode run so far: its seed, collective return and tests passing at the end
        self.episodes: list[dict[str, Any]] = []
        self._env: Any = None
        self.__name__ = "swarm_rollout"

    # ------------------------------------------------------------------ TRL's hooks

    def __call__(self, prompts: Sequence[Any], trainer: Any) -> dict[str, list]:
        """Run `len(prompts) / trained_agents` episodes; one sample per trained agent."""
        k = self.trained_agents
        groups = getattr(trainer, "num_generations", k)
        if len(prompts) % k or groups % k:
            raise ConfigError(
                f"{len(prompts)} samples in groups of num_generations={groups}: both must be "
                f"multiples of trained_agents={k} (every sample is one agent of an episode, "
                "and a group must be whole episodes)"
            )
        out: dict[str, list] = {
            "prompt_ids": [],
            "completion_ids": [],
            "logprobs": [],
            "env_mask": [],
            "env_reward": [],
        }
        for _ in range(len(prompts) // k):
            samples, episode_return = self.episode(trainer)
            for s in samples:
                out["prompt_ids"].append(s.prompt_ids)
                out["completion_ids"].append(s.completion_ids)
                out["logprobs"].append(s.logprobs)
                out["env_mask"].append(s.mask)
                out["env_reward"].append(episode_return)
        return out

    def reward(self, prompts: Any = None, completions: Any = None, **kwargs: Any) -> list[float]:
        """The reward function to give TRL: the environment's return of each sample."""
        return [float(r) for r in kwargs["env_reward"]]

    def dataset(self, n: int) -> Any:
        """A `datasets.Dataset` of `n` placeholder prompts (the environment owns the prompts)."""
        from datasets import Dataset

        return Dataset.from_dict({"prompt": [self.task] * n})

    # ------------------------------------------------------------------ one episode

    def episode(self, trainer: Any) -> tuple[list[_Sample], float]:
        """One episode with the trainer's model; its trained agents' samples and its return."""
        import swarm_envs
        from swarm_envs.agents.scripted import make_team

        if self._env is None:
            self._env = swarm_envs.parallel_env(
                self.task, num_agents=self.num_agents, **self.env_kwargs
            )
        env = self._env
        seed, self.next_seed = self.next_seed, self.next_seed + 1
        tokenizer = trainer.processing_class
        model = trainer.accelerator.unwrap_model(trainer.model)
        trained = list(env.possible_agents[: self.trained_agents])
        team = make_team(env.task, self.num_agents, self.teammates, seed, **self.teammate_kwargs)
        obs, infos = env.reset(seed=seed)
        samples = {a: _Sample(self._prompt(tokenizer, obs[a])) for a in trained}
        waiting: dict[str, list[int]] = {}  # agents whose next observation is due
        total = 0.0
        while env.agents:
            ready = env.ready_agents
            actions: dict[str, Any] = {
                a: team[a].act(obs[a], infos[a]) for a in ready if a not in samples
            }
            asking = []
            for a in ready:
                if a not in samples:
                    continue
                s = samples[a]
                if a in waiting:
                    s.add(waiting.pop(a) + self._turn(tokenizer, obs[a]), None, generated=False)
                if s.turns >= self.max_turns:
                    actions[a] = _DONE
                else:
                    asking.append(a)
            contexts = [samples[a].prompt_ids + samples[a].completion_ids for a in asking]
            for a, ctx, (ids, logprobs) in zip(
                asking, contexts, self._generate(model, tokenizer, contexts, trainer), strict=True
            ):
                s = samples[a]
                s.add(ids, logprobs, generated=True)
                s.turns += 1
                text = tokenizer.decode(ids, skip_special_tokens=True)
                usage = Usage(output_tokens=len(ids), input_tokens=len(ctx))
                actions[a] = Action(tool_call=_tool_call(text), usage=usage)
                # A reply cut at max_new_tokens is closed before the next turn.
                eos = tokenizer.eos_token_id
                waiting[a] = [eos] if eos is not None and (not ids or ids[-1] != eos) else []
            obs, rewards, _, _, infos = env.step(actions)
            total += next(iter(rewards.values()), 0.0)
        passed = env.view().tests_passed
        self.episodes.append({"seed": seed, "return": total, "tests_passed": passed})
        return [samples[a] for a in trained], total

    def close(self) -> None:
        """Release the environment's sandbox (safe twice)."""
        if self._env is not None:
            self._env.close()
            self._env = None

    # ------------------------------------------------------------------ tokens

    @staticmethod
    def _prompt(tokenizer: Any, observation: str) -> list[int]:
        messages = [{"role": "user", "content": observation}]
        ids = tokenizer.apply_chat_template(
            messages, tools=tool_schemas(), add_generation_prompt=True, tokenize=True
        )
        return list(ids["input_ids"] if isinstance(ids, Mapping) else ids)

    @staticmethod
    def _turn(tokenizer: Any, observation: str) -> list[int]:
        """The observation as the next `tool` message, up to the assistant's next turn."""
        text = tokenizer.apply_chat_template(
            [{"role": "tool", "content": observation}], add_generation_prompt=True, tokenize=False
        )
        return list(tokenizer("\n" + text, add_special_tokens=False)["input_ids"])

    def _generate(
        self, model: Any, tokenizer: Any, contexts: list[list[int]], trainer: Any
    ) -> list[tuple[list[int], list[float]]]:
        """Sample one reply per context; its token ids and their log-probabilities."""
        if not contexts:
            return []
        import torch

        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        width = max(len(c) for c in contexts)
        device = next(model.parameters()).device
        ids = torch.tensor([[pad] * (width - len(c)) + c for c in contexts], device=device)
        mask = torch.tensor(
            [[0] * (width - len(c)) + [1] * len(c) for c in contexts], device=device
        )
        with torch.no_grad():
            out = model.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=self.max_new_tokens,
                do_sample=True,
                temperature=float(getattr(trainer, "temperature", 1.0) or 1.0),
                top_k=0,
                top_p=1.0,
                pad_token_id=pad,
                eos_token_id=tokenizer.eos_token_id,
                output_scores=True,
                return_dict_in_generate=True,
            )
            # The log-probability of each sampled token under the distribution it was
            # sampled from (the temperature-scaled softmax).
            scores = model.compute_transition_scores(
                out.sequences, out.scores, normalize_logits=True
            )
        replies = []
        new = out.sequences[:, width:]
        for row, lp in zip(new.tolist(), scores.tolist(), strict=True):
            n = len(row)
            if tokenizer.eos_token_id in row:
                n = row.index(tokenizer.eos_token_id) + 1  # the end of the reply is part of it
            replies.append((row[:n], lp[:n]))
        return replies


def _tool_call(text: str) -> str:
    """The model's tool call: inside `<tool_call>` tags when it wrote them, else its text."""
    found = _CALL.search(text)
    call = (found.group(1) if found else text).strip()
    try:
        json.loads(call)
    except ValueError:
        return text  # the environment says what is wrong with it
    return call


__all__ = ["SwarmRollout"]
