"""Both trainers seed their episodes by one scheme: run seeds never share an episode seed."""

import pytest

from swarm_envs.baselines import runs
from swarm_envs.error import ConfigError

pytest.importorskip("torch")

from swarm_envs.baselines.lm import train as lm_train  # noqa: E402
from swarm_envs.baselines.ppo import Args as PPOArgs  # noqa: E402
from swarm_envs.baselines.ppo.envs import episode_seeds as ppo_seeds  # noqa: E402


def _ppo_run(seed: int, updates: int, num_envs: int) -> list[int]:
    args = PPOArgs(seed=seed, num_envs=num_envs)
    return [s for u in range(1, updates + 1) for s in ppo_seeds(args, u)]


def _lm_run(seed: int, updates: int, per_update: int) -> list[int]:
    # What the LM trainer's loop asks for: the update after `episodes` episodes.
    args = lm_train.Args(seed=seed, episodes_per_update=per_update)
    return [s for u in range(updates) for s in lm_train.episode_seeds(args, u * per_update)]


@pytest.mark.parametrize("run", [_ppo_run, _lm_run], ids=["ppo", "lm"])
def test_two_run_seeds_share_no_episode_seed(run):
    for a, b in [(0, 1), (1, 2), (0, 7)]:
        sa, sb = run(a, 50, 4), run(b, 50, 4)
        assert len(set(sa)) == len(sa) == 200  # no episode repeats within a run
        assert not set(sa) & set(sb), (a, b)


def test_both_trainers_use_the_same_scheme():
    # Episode k of run seed s is s * stride + k in both (PPO's update u starts at u * num_envs).
    assert lm_train.episode_seeds(lm_train.Args(seed=3, episodes_per_update=2), 10) == [
        3 * runs.EPISODE_SEED_STRIDE + 10,
        3 * runs.EPISODE_SEED_STRIDE + 11,
    ]
    assert ppo_seeds(PPOArgs(seed=3, num_envs=2), 5) == runs.episode_seeds(3, 10, 2)


def test_a_run_beyond_its_block_of_seeds_fails_naming_the_bound():
    with pytest.raises(ConfigError, match="at most 1000003 episode seeds"):
        runs.episode_seeds(0, runs.EPISODE_SEED_STRIDE - 1, 2)
