"""Agents: the protocol the rollout runner drives, and an LLM agent.

An agent is any object with `reset(agent_name, task_info)` and
`act(observation, info) -> action`, each plain or `async` (see `protocol`). The
action is anything `env.step` accepts; return a `swarm_envs.Action` to report the
tokens it cost. A whole agent of your own, with its rollout:

    import swarm_envs
    from swarm_envs.agents import TaskInfo

    class Explorer:
        '''Reads every file once, runs the tests, says done.'''

        def reset(self, agent_name: str, task_info: TaskInfo) -> None:
            self.name, self.todo, self.listed = agent_name, [], False

        def act(self, observation: str, info: dict) -> swarm_envs.Action:
            if not self.listed:
                self.listed = True
                call = {"name": "list_files", "arguments": {}}
            elif info["tool"] == "list_files" and not self.todo:
                self.todo = [p for p in info["result"].split() if p.endswith(".py")]
                call = {"name": "run_tests", "arguments": {}}
            elif self.todo:
                call = {"name": "read_file", "arguments": {"path": self.todo.pop()}}
            else:
                call = {"name": "done", "arguments": {}}
            return swarm_envs.Action(tool_call=call, usage={"output_tokens": 30})

    env = swarm_envs.parallel_env("calc", num_agents=2)
    trajectory = swarm_envs.rollout(env, [Explorer(), Explorer()], seed=0)
    print(trajectory.collective_return, trajectory.end_reason)

`LLMAgent` drives any OpenAI-compatible chat-completions server with the official
`openai` SDK (`pip install 'swarm-envs[llm]'`). Scripted agents with explicit coordination
strategies (`swarm_envs.agents.scripted`: none, claim-on-channel, leader assigns) make the
environment's dynamics visible without any model; the bench, the servers, the adapters
and the trainers' comparisons use them.

Layer: above the environments (`swarm_envs.envs`), whose public API the rollout runner
drives; may import `swarm_envs.core`, `swarm_envs.generation` (the scripted agents'
candidate fixes), `swarm_envs.tasks` and `swarm_envs.error` (and its command,
`swarm_envs.arguments`). Owns the agent protocol (`protocol`), the rollout runner and its
trajectories (`rollout`), the LLM agent (`llm`), its conversation and context policy
(`conversation`), the scripted agents (`scripted`) and `swarm-envs run`, a scripted swarm
on a task (`cli_run`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from swarm_envs.agents.protocol import Agent, TaskInfo

if TYPE_CHECKING:
    from swarm_envs.agents.llm import LLMAgent

__all__ = ["Agent", "LLMAgent", "TaskInfo"]


def __getattr__(name: str) -> Any:
    # The LLM agent needs the optional `openai` SDK: import it only when asked for.
    if name == "LLMAgent":
        try:
            from swarm_envs.agents.llm import LLMAgent
        except ModuleNotFoundError as e:
            if e.name != "openai":
                raise
            raise ModuleNotFoundError(
                "LLMAgent needs the openai SDK: pip install 'swarm-envs[llm]'", name="openai"
            ) from None
        return LLMAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
