"""The scripted agents' work models: `flat` as it always was, `conversation` as an LLMAgent.

Everything runs through the public API (`parallel_env`, `swarm_envs.rollout`) with the
real sandbox and scorer; the conversation model is checked against a real `LLMAgent`
(the `openai` SDK) talking to the local scripted server.
"""

import threading

import pytest
from support.llm_server import Reply, ScriptedServer, agent_of

import swarm_envs
from swarm_envs.agents import LLMAgent
from swarm_envs.agents.scripted import REPLY_TOKENS, make_team
from swarm_envs.bench import build_config
from swarm_envs.error import ConfigError


def run(n, strategy="claim", seed=0, **options):
    env = swarm_envs.parallel_env("calc", num_agents=n)
    team = make_team(env.task, n, strategy, seed=seed, **options)
    try:
        return swarm_envs.rollout(env, team, seed=seed), team
    finally:
        env.close()


def inputs(trajectory):
    return [[d.usage.input_tokens for d in a.decisions] for a in trajectory.agents]


@pytest.mark.slow
def test_flat_reproduces_the_numbers_of_earlier_releases():
    # Recorded with the scripted agents before the conversation model existed.
    alone, _ = run(1, "claim", seed=2, p_wrong=0.5)
    assert inputs(alone) == [[144, 333, 364, 393, 639, 670, 699, 816, 847, 1005, 1037, 1066, 1188]]
    assert (alone.tokens, alone.duration_s) == (15148, pytest.approx(132.65588461538462, abs=1e-9))
    swarm, _ = run(3, "none", seed=2, p_wrong=0.5, context_tokens=300, work_model="flat")
    assert inputs(swarm) == [
        [207, 300, 300, 300, 300, 300, 300],
        [207, 300, 300, 384, 300, 300, 300, 300],
        [207, 300, 300, 376, 300, 300, 300, 300],
    ]
    assert (swarm.tokens, swarm.duration_s) == (17398, pytest.approx(74.10657692307693, abs=1e-9))


@pytest.fixture(scope="module")
def alone():
    """A lone agent's episode under the conversation model, with room for all of it."""
    trajectory, _ = run(1, p_wrong=0.5, work_model="conversation", context_tokens=32_768)
    return trajectory


def test_a_lone_agents_input_grows_with_what_it_has_done(alone):
    (tokens,) = inputs(alone)
    assert alone.end_reason == "all_tests_pass"
    assert all(b > a for a, b in zip(tokens, tokens[1:], strict=False)), tokens
    # The first request already holds the system prompt and the tool schemas.
    assert tokens[0] > 1000 and tokens[-1] > 2 * tokens[0]


def test_the_conversation_is_shortened_to_fit_the_context(alone):
    context = 3000
    small, team = run(1, p_wrong=0.5, work_model="conversation", context_tokens=context)
    (untruncated,), (truncated,) = inputs(alone), inputs(small)
    assert max(untruncated) > context - REPLY_TOKENS  # it would not fit
    assert max(truncated) <= context - REPLY_TOKENS
    assert truncated[0] == untruncated[0]  # nothing to shorten yet
    cost = team["agent_0"].cost
    assert cost is not None
    shortened = [
        m for m in cost.conversation.messages if "characters shortened" in str(m["content"])
    ]
    assert shortened and shortened[0]["role"] == "tool"  # the oldest tool results first


def test_a_swarm_splits_the_history_between_its_agents(alone):
    swarm, _ = run(4, p_wrong=0.5, work_model="conversation", context_tokens=32_768)
    per_action = [x for agent in inputs(swarm) for x in agent]
    assert max(per_action) < max(inputs(alone)[0])
    assert sum(per_action) / len(per_action) < sum(inputs(alone)[0]) / len(inputs(alone)[0])


class Pair:
    """A scripted agent, and an LLMAgent made to say what the scripted agent says."""

    def __init__(self, scripted, llm, pending):
        self.scripted, self.llm, self.pending = scripted, llm, pending
        self.predicted, self.reported = [], []

    def reset(self, agent_name, task_info):
        self.name = agent_name
        self.scripted.reset(agent_name, task_info)
        self.llm.reset(agent_name, task_info)

    async def act(self, observation, info):
        action = self.scripted.act(observation, info)
        self.pending[self.name] = action
        said = await self.llm.act(observation, info)
        self.predicted.append(action["usage"]["input_tokens"])
        self.reported.append(said.usage.input_tokens)
        return action

    async def aclose(self):
        await self.llm.aclose()


@pytest.mark.parametrize("n", [1, 3])
def test_the_conversation_model_predicts_what_an_llm_agent_is_charged(n):
    pending, lock = {}, threading.Lock()

    def script(request):
        with lock:
            action = pending.pop(agent_of(request))
        return Reply(calls=[(action["name"], action["arguments"])])

    env = swarm_envs.parallel_env("calc", num_agents=n)
    team = make_team(env.task, n, "claim", seed=1, p_wrong=0.5, work_model="conversation")
    with ScriptedServer(script) as server:
        llms = LLMAgent.team(n, model="replay", base_url=server.url, api_key="t")
        pairs = [Pair(team[a], llm, pending) for a, llm in zip(team, llms, strict=True)]
        trajectory = swarm_envs.rollout(env, pairs, seed=1)
    env.close()
    assert trajectory.end_reason == "all_tests_pass"
    # The server counts 4 characters of JSON a token, as the model does (0.25 a char).
    for p in pairs:
        assert len(p.predicted) == len(p.reported) > 2
        for predicted, reported in zip(p.predicted, p.reported, strict=True):
            assert predicted == pytest.approx(reported, rel=0.01)


def test_invalid_work_models_name_the_field():
    task = swarm_envs.get_task("calc")
    with pytest.raises(ConfigError, match=r"work_model='chat': expected one of \['flat'"):
        make_team(task, 2, work_model="chat")
    with pytest.raises(ConfigError, match="context_tokens=500: with work_model='conversation'"):
        make_team(task, 2, work_model="conversation", context_tokens=500)
    with pytest.raises(ConfigError, match="tokens_per_char=0"):
        make_team(task, 2, work_model="conversation", tokens_per_char=0)


def test_the_bench_takes_the_work_model():
    config = build_config(
        overrides={"agents": [{"kind": "scripted", "work_model": "conversation"}]}
    )
    assert config.agents[0].label == "claim (work_model=conversation)"
    assert build_config().agents[0].work_model == "flat"
    with pytest.raises(ConfigError, match="context_tokens=512"):
        build_config(
            overrides={
                "agents": [
                    {"kind": "scripted", "work_model": "conversation", "context_tokens": 512}
                ]
            }
        )


def test_teams_built_elsewhere_take_the_work_model():
    from swarm_envs.agents.scripted import ScriptedTeam
    from swarm_envs.bench.runner import make_agents

    task = swarm_envs.get_task("calc")
    env = swarm_envs.parallel_env(task, num_agents=2)
    try:
        # ScriptedTeam: the team factory of rollout workers
        team = ScriptedTeam("claim", work_model="conversation")(env)
        assert {a.work_model for a in team.values()} == {"conversation"}
        assert {a.work_model for a in ScriptedTeam("claim")(env).values()} == {"flat"}
    finally:
        env.close()
    with pytest.raises(ConfigError, match="work_model='chat'"):
        ScriptedTeam("claim", work_model="chat")  # type: ignore[arg-type]
    # The bench's MCP spec: the scripted teammates of the external agent
    config = build_config(
        overrides={
            "agents": [{"kind": "mcp", "slots": 1, "teammate_work_model": "conversation"}],
            "workers": 1,
        }
    )
    agents = make_agents(config.agents[0], task, 3, seed=0)
    models = [getattr(a, "work_model", None) for a in agents.values()]
    assert models[:2] == ["conversation", "conversation"] and models[2] is None  # the slot
