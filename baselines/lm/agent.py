"""The language-model policy as an agent of `swarm_envs.agents`, for `swarm_envs.rollout`.

    engine = TransformersEngine(model, eos_token_id=..., pad_token_id=...)
    batch = BatchedGeneration(engine)
    agents = [LMAgent(batch, tokenizer) for _ in env.possible_agents]
    trajectory = swarm_envs.rollout(env, agents, seed=0)

`LMAgent.act` is `async`, so the rollout runner awaits every ready agent concurrently;
their prompts meet in a shared `BatchedGeneration`, which sends them to the engine as
one batch (one `generate` for the whole ready swarm, as the trainer's collector does).
Each action is a `swarm_envs.Action` with the real token counts as usage and, in its
`meta`, what a learner needs: the prompt and reply token ids, the behaviour
log-probabilities, the role and the policy version. The trainer keeps its own
collector (`rollout.SwarmCollector`) for training: it steps many environments in lock
step, renders the final state of truncated episodes for bootstrapping, and runs in the
asynchronous workers; this adapter is for evaluating a policy, or mixing it with other
agents, through the library's own runner.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from swarm_envs.agents.protocol import TaskInfo
from swarm_envs.baselines.lm.engines import Generation, GenerationEngine
from swarm_envs.baselines.lm.policy import Conversation, default_system_prompt, take_turn
from swarm_envs.core.actions import Action, tool_schemas
from swarm_envs.error import AgentError


class BatchedGeneration:
    """Gathers the prompts of concurrent `act` calls into one engine call.

    The first prompt of a round schedules a flush on the event loop; the runner has
    started every ready agent's `act` by then, so the flush sends them all at once.

    Attributes:
        engine: the generation engine behind it.
        batches: the sizes of the batches sent so far (how well batching worked).
    """

    def __init__(self, engine: GenerationEngine):
        self.engine = engine
        self.batches: list[int] = []
        self._pending: list[tuple[list[int], asyncio.Future[Generation]]] = []

    async def generate(self, prompt: Sequence[int]) -> Generation:
        """The reply to one prompt, generated in a batch with its concurrent peers."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Generation] = loop.create_future()
        self._pending.append((list(prompt), future))
        if len(self._pending) == 1:
            loop.call_soon(self._flush)
        return await future

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        self.batches.append(len(batch))
        try:
            gens = self.engine.generate([p for p, _ in batch])
        except Exception as e:  # each waiting agent fails (and leaves its episode)
            for _, f in batch:
                if not f.done():
                    f.set_exception(e)
            return
        for (_, f), g in zip(batch, gens, strict=True):
            if not f.done():  # an agent may have been cancelled by act_timeout_s
                f.set_result(g)


class LMAgent:
    """A language-model policy acting as one agent (see the module docstring).

    Args:
        generation: the shared batcher of the policy's engine.
        tokenizer: the policy's tokenizer (with a chat template).
        system_prompts: role -> system prompt (missing roles: the default naming the role,
            as in the trainer).
        max_prompt_tokens: context budget of a prompt.
        max_observation_chars: longest observation kept in the conversation.
        version: the policy version that samples now (stored with every action).
    """

    def __init__(
        self,
        generation: BatchedGeneration,
        tokenizer: Any,
        *,
        system_prompts: Mapping[str, str] | None = None,
        max_prompt_tokens: int = 4096,
        max_observation_chars: int = 4000,
        version: Callable[[], int] = lambda: 0,
    ):
        self.generation = generation
        self.tokenizer = tokenizer
        self.system_prompts = dict(system_prompts or {})
        self.max_prompt_tokens = max_prompt_tokens
        self.max_observation_chars = max_observation_chars
        self.version = version
        self.role = "agent"
        self.conversation: Conversation | None = None
        self._tools: list[dict[str, Any]] = []

    def reset(self, agent_name: str, task_info: TaskInfo) -> None:
        """A new conversation, with the role's system prompt and the role's tools."""
        self.role = task_info.role
        allowed = set(task_info.tools)
        self._tools = [t for t in tool_schemas() if t["function"]["name"] in allowed]
        system = self.system_prompts.get(self.role) or default_system_prompt(self.role)
        self.conversation = Conversation(
            system,
            max_prompt_tokens=self.max_prompt_tokens,
            max_observation_chars=self.max_observation_chars,
        )

    async def act(self, observation: str, info: dict[str, Any]) -> Action:
        """The next tool call, generated from the conversation and the new observation."""
        conv = self.conversation
        if conv is None:
            raise AgentError("LMAgent.act() before reset(agent_name, task_info)")
        conv.observe(observation)
        prompt = conv.prompt_ids(self.tokenizer, self._tools)
        version = self.version()
        gen = await self.generation.generate(prompt)
        action, text, valid = take_turn(conv, self.tokenizer, prompt, gen.token_ids)
        meta = {
            "prompt_ids": prompt,
            "reply_ids": gen.token_ids,
            "logprobs": gen.logprobs,
            "role": self.role,
            "policy_version": version,
            "valid": valid,
            "text": text,
        }
        return action.model_copy(update={"meta": meta})
