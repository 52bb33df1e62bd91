import json

import pytest
from sandbox_support import docker_engine, sandbox_backend  # noqa: F401 - fixtures

import swarm_envs


def call(name: str, tokens: int | None = None, **arguments) -> str:
    """A tool call as JSON text, the way an LLM client sends it."""
    action = {"name": name, "arguments": arguments}
    if tokens is not None:
        action["usage"] = {"output_tokens": tokens, "input_tokens": 0}
    return json.dumps(action)


# A time model in which every action is easy to reason about: thinking costs exactly
# `tokens` x 1 s when usage is reported, tools take fixed round numbers.
SIMPLE_TIME = {
    "output_token_s": 1.0,
    "input_token_s": 0.0,
    "message_latency_s": 2.0,
    "tool_s": {
        "list_files": 1.0,
        "read_file": 1.0,
        "write_file": 1.0,
        "edit_file": 1.0,
        "run_command": 1.0,
        "send_message": 1.0,
        "post": 1.0,
        "subscribe": 1.0,
    },
}


@pytest.fixture
def make_env():
    envs = []

    def factory(task="calc", num_agents=2, **config):
        config.setdefault("time", SIMPLE_TIME)
        env = swarm_envs.parallel_env(task, num_agents=num_agents, **config)
        envs.append(env)
        return env

    yield factory
    for env in envs:
        env.close()
