"""What the language-model trainer's tests share: a small, quick run's arguments."""

from swarm_envs.baselines.lm import train as T


def small_args(tiny, tmp_path, **kw) -> T.Args:
    """A run of the tiny model on calc: 2 agents, short replies, 8 virtual seconds."""
    base = dict(
        model=str(tiny),
        task="calc",
        num_agents=2,
        num_envs=1,
        episodes_per_update=1,
        num_updates=2,
        time_cap=8.0,
        max_new_tokens=8,
        max_prompt_tokens=1024,
        learning_rate=1e-3,
        ent_coef=0.01,  # a gradient even before any test passes
        runs_dir=str(tmp_path / "runs"),
        tensorboard=True,
        env_kwargs={"time": {"output_token_s": 0.5}},
    )
    base.update(kw)
    return T.Args(**base)
