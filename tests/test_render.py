"""The ansi dashboard."""

import swarm_envs


def test_render_ansi_dashboard():
    env = swarm_envs.parallel_env("calc", num_agents=20, render_mode="ansi")
    env.reset(seed=0)
    env.step({"agent_0": '{"name": "list_files", "arguments": {}}'})
    text = env.render()
    assert "calc-v0" in text and "tests [" in text and "agent_0" in text
    assert "8 more agents" in text
    env.close()
