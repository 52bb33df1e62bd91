import json

import pytest

import swarm_envs

# Reported usage is never below the estimate from the call's own text (4 characters a
# token), so tests that set thinking time exactly report it in units of TOKEN tokens,
# far above any test call's text; under SIMPLE_TIME one unit thinks for one second.
TOKEN = 2**16


def call(name: str, tokens: int | None = None, **arguments) -> str | swarm_envs.Action:
    """A tool call as JSON text, the way an LLM client sends it.

    With `tokens`, the text comes wrapped in an `Action` whose trusted usage reports
    `tokens` x TOKEN output tokens: `tokens` seconds of thinking under SIMPLE_TIME.
    """
    text = json.dumps({"name": name, "arguments": arguments})
    if tokens is None:
        return text
    usage = {"output_tokens": tokens * TOKEN, "input_tokens": 0}
    return swarm_envs.Action(tool_call=text, usage=usage)


# A time model in which every action is easy to reason about: thinking costs exactly
# `tokens` x 1 s when usage is reported, tools take fixed round numbers.
SIMPLE_TIME = {
    "output_token_s": 1.0 / TOKEN,
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
