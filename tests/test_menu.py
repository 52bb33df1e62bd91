"""Menu mode: discrete moves over units, through the text env, with the real sandbox and scorer."""

import pickle
import warnings

import gymnasium
import numpy as np
import pytest
import supersuit as ss
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test
from support.helpers import TOWER, write_files

import swarm_envs
from swarm_envs.envs.menu import MenuLayout, MenuParallelEnv, WorkMeter
from swarm_envs.error import ConfigError, Error
from swarm_envs.tasks import register_task

# Round numbers: a move costs its tokens x 0.01 s; tools as SIMPLE_TIME in support.helpers.
TIME = {
    "output_token_s": 0.01,
    "input_token_s": 0.0,
    "message_latency_s": 1.0,
    "tool_s": {"post": 1.0, "edit_file": 1.0},
}
TOKENS = {"claim": 100, "apply": 100, "run_tests": 100, "wait": 100, "done": 100}


@pytest.fixture
def make_menu():
    envs = []

    def factory(task="calc", num_agents=2, **config):
        config.setdefault("time", TIME)
        config.setdefault("move_tokens", TOKENS)
        env = swarm_envs.parallel_env(task, num_agents=num_agents, mode="menu", **config)
        envs.append(env)
        return env

    yield factory
    for env in envs:
        env.close()


def unit_slot(env, name):
    return [u.name for u in env.task.units].index(name)


def right(env, name):
    u = unit_slot(env, name)
    return env.layout.apply(u, next(k for k, c in enumerate(env.candidates[u]) if c.correct))


def wrong(env, name):
    u = unit_slot(env, name)
    return env.layout.apply(u, next(k for k, c in enumerate(env.candidates[u]) if not c.correct))


def rows(obs):
    return obs["observation"][:-19].reshape(-1, 6)


def run_until_ready(env, agent, actions=None, limit=50):
    """Step (passing `actions` once, then `wait` for the others) until `agent` is ready."""
    out = env.step(actions or {})
    for _ in range(limit):
        if not env.agents or agent in env.ready_agents:
            return out
        out = env.step({a: env.layout.wait for a in env.ready_agents})
    raise AssertionError(f"{agent} not ready after {limit} steps")


# ---------------------------------------------------------------------------- checkers


@pytest.mark.parametrize("num_agents", [1, pytest.param(3, marks=pytest.mark.slow)])
def test_parallel_api_and_seed(num_agents):
    env = swarm_envs.parallel_env("calc", num_agents=num_agents, mode="menu", time_cap_s=60)
    try:
        parallel_api_test(env, num_cycles=100)
    finally:
        env.close()
    parallel_seed_test(
        lambda: swarm_envs.parallel_env("calc", num_agents=num_agents, mode="menu", time_cap_s=60),
        num_cycles=30,
    )


def test_aec_api():
    env = swarm_envs.env("calc", num_agents=3, mode="menu", time_cap_s=60)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            api_test(env, num_cycles=60, verbose_progress=False)
    finally:
        env.close()


def test_gymnasium_check_env_by_id():
    env = gymnasium.make("swarm_envs:swarm/calc-menu-v0", time_cap_s=60)
    try:
        check_env(env.unwrapped, skip_render_check=True)
        obs, info = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        assert info["action_mask"].dtype == np.int8
    finally:
        env.close()
    with pytest.raises(ConfigError, match="num_agents"):
        gymnasium.make("swarm_envs:swarm/calc-menu-v0", num_agents=2)


def test_menu_ids_registered_for_every_task():
    ids = swarm_envs.register_envs()
    for task_id in swarm_envs.registered():
        name, version = task_id.rsplit("-v", 1)
        assert f"swarm/{name}-menu-v{version}" in ids


@pytest.mark.slow
@pytest.mark.parametrize("num_cpus", [0, 2])
def test_supersuit_vectorizes_it(num_cpus):
    env = swarm_envs.parallel_env("calc", num_agents=2, mode="menu", time_cap_s=6)
    env.set_time_cap(6.0)
    venv = ss.concat_vec_envs_v1(
        ss.pettingzoo_env_to_vec_env_v1(env), 2, num_cpus=num_cpus, base_class="gymnasium"
    )
    try:
        obs, infos = venv.reset(seed=3)
        assert obs["observation"].shape == (4, env.layout.obs_size)
        assert obs["action_mask"].shape == (4, env.layout.n_moves)
        rng = np.random.default_rng(0)
        ends = 0
        for _ in range(30):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
            obs, rewards, terms, truncs, infos = venv.step(actions)
            assert rewards.shape == (4,)
            for info, t, tr in zip(infos, terms, truncs, strict=True):
                if t or tr:
                    ends += 1
                    assert "terminal_observation" in info
                    # The sticky cap survived the automatic reset in the worker.
                    assert info["time"] <= 6.0
        assert ends > 0, "no episode ended in 30 steps at a 6 s cap"
    finally:
        venv.close()
        env.close()


def test_cleanrl_ma_pattern_works_with_box_observations():
    # ppo_pettingzoo_ma_atari.py: vec env of agents, torch.Tensor(next_obs), sampled actions.
    torch = pytest.importorskip("torch")
    env = swarm_envs.parallel_env("calc", num_agents=2, mode="menu", dict_obs=False)
    env.set_time_cap(10.0)
    envs = ss.pettingzoo_env_to_vec_env_v1(env)
    envs = ss.concat_vec_envs_v1(envs, 2, num_cpus=0, base_class="gymnasium")
    envs.single_observation_space = envs.observation_space
    envs.single_action_space = envs.action_space
    assert isinstance(envs.single_action_space, gymnasium.spaces.Discrete)
    try:
        next_obs, info = envs.reset(seed=1)
        next_obs = torch.Tensor(next_obs)
        assert next_obs.shape == (4, env.layout.obs_size)
        for _ in range(20):
            action = torch.randint(0, envs.single_action_space.n, (4,))
            next_obs, reward, term, trunc, info = envs.step(action.cpu().numpy())
            next_obs = torch.Tensor(next_obs)
            assert all("action_mask" in i for i in info)
    finally:
        envs.close()


def test_pickles_as_its_recipe(make_menu):
    env = make_menu("calc", num_agents=2, n_wrong=2)
    env.set_time_cap(42.0)
    obs, _ = env.reset(seed=5)
    copy = pickle.loads(pickle.dumps(env))
    try:
        assert copy.menu == env.menu and copy.possible_agents == env.possible_agents
        obs2, infos2 = copy.reset(seed=5)
        assert copy.view().time_cap == 42.0
        assert copy.view().workspace_root != env.view().workspace_root
        np.testing.assert_array_equal(obs2["agent_0"]["observation"], obs["agent_0"]["observation"])
    finally:
        copy.close()


# ---------------------------------------------------------------------------- moves


def test_starting_observation_and_layout(make_menu):
    env = make_menu("calc", num_agents=2, max_units=8)
    obs, infos = env.reset(seed=0)
    layout = env.layout
    assert layout == MenuLayout(8, 4)
    assert env.action_space("agent_0").n == 8 * 6 + 2
    assert env.observation_space("agent_0") is env.observation_space("agent_0")
    r = rows(obs["agent_0"])
    assert r.shape == (8, 6)
    np.testing.assert_array_equal(r[:4, 0], 1)  # four stubbed units
    assert r[4:].sum() == 0 and r[:, 1:].sum() == 0  # padding; nothing else yet
    g = obs["agent_0"]["observation"][-19:]
    assert g[:3].tolist() == [1.0, 0.0, 0.0]  # time left, tests passing, rank
    assert g[3:].tolist() == [1.0] + [0.0] * 15  # identity, one-hot
    g1 = obs["agent_1"]["observation"][-19:]
    assert g1[2] == 0.5 and g1[3:].argmax() == 1
    mask = obs["agent_0"]["action_mask"]
    assert np.array_equal(mask, infos["agent_0"]["action_mask"])
    assert mask[layout.claim(0)] and not mask[layout.claim(4)]
    assert mask[layout.wait] and mask[layout.done]
    for u, cands in enumerate(env.candidates):
        for k in range(4):
            assert mask[layout.apply(u, k)] == (k < len(cands))
    assert all(infos[a]["ready"] for a in env.agents)


def test_apply_right_candidate_implements_the_unit_and_pays_its_cost(make_menu):
    env = make_menu("calc", num_agents=1)
    env.reset(seed=0)
    move = right(env, "gcd")
    u = unit_slot(env, "gcd")
    ((path, old, new),) = env.candidates[u][move - env.layout.apply(u, 0)].patches
    obs, rewards, term, trunc, infos = env.step({"agent_0": move})
    assert rewards["agent_0"] == 2.0  # TestGcd has two tests
    info = infos["agent_0"]
    assert info["ready"] and info["tool"] == "edit_file" and info["error"] is None
    # Thinking (100 tokens + the code written, 4 characters a token) x 0.01 s + 1 s edit.
    assert info["time"] == pytest.approx((100 + (len(new) + 3) // 4) * 0.01 + 1.0)
    r = rows(obs["agent_0"])
    assert r[u].tolist() == [0, 1, 0, 0, 0, 1]  # implemented, passing, my current unit
    source = (env.view().workspace_root / path).read_text()
    assert new in source and old not in source
    # The candidate in place cannot be applied again; the others can.
    assert not obs["agent_0"]["action_mask"][move]


@pytest.fixture(scope="module")
def tower(tmp_path_factory):
    """Two units: `quad` depends on `double`."""
    return register_task(write_files(tmp_path_factory.mktemp("tower"), TOWER))


def test_dependency_feature_says_whether_a_units_dependencies_pass(make_menu, tower):
    plain = make_menu(tower, num_agents=1, max_units=4)
    env = make_menu(tower, num_agents=1, max_units=4, dependency_feature=True)
    assert env.layout.unit_features[-1] == "dependencies_pass"
    assert env.layout.obs_size == plain.layout.obs_size + 4  # one more feature per slot
    assert env.observation_space("agent_0")["observation"].shape == (env.layout.obs_size,)

    def dep_rows(obs):
        return obs["agent_0"]["observation"][:-19].reshape(4, 7)

    obs, _ = env.reset(seed=0)
    assert dep_rows(obs)[:, 6].tolist() == [1, 0, 0, 0]  # double has none; quad waits
    # quad's right candidate, double still stubbed: quad fails, as a wrong candidate would;
    # the feature tells the two apart.
    obs, *_ = env.step({"agent_0": right(env, "quad")})
    assert dep_rows(obs)[1].tolist() == [0, 0, 1, 0, 0, 1, 0]
    obs, *_ = env.step({"agent_0": wrong(env, "double")})
    assert dep_rows(obs)[:2, 6].tolist() == [1, 0]  # double is in place, but fails
    obs, rewards, *_ = env.step({"agent_0": right(env, "double")})
    assert dep_rows(obs)[:2, 6].tolist() == [1, 1]
    assert dep_rows(obs)[1, :3].tolist() == [0, 1, 0]  # and quad passes with it
    assert rewards["agent_0"] == 4.0


def test_wrong_candidate_fails_its_tests_and_can_be_replaced(make_menu):
    env = make_menu("calc", num_agents=1)
    env.reset(seed=0)
    u = unit_slot(env, "mean")
    obs, rewards, *_ = env.step({"agent_0": wrong(env, "mean")})
    first = rewards["agent_0"]
    assert first < 2.0  # a detected mutant: some of its two tests fail
    assert rows(obs["agent_0"])[u, :3].tolist() == [0, 0, 1]  # implemented, failing
    obs, rewards, *_ = env.step({"agent_0": right(env, "mean")})  # replaces the wrong body
    assert first + rewards["agent_0"] == 2.0
    assert rows(obs["agent_0"])[u, :3].tolist() == [0, 1, 0]


def test_claims_are_posts_that_teammates_see(make_menu):
    env = make_menu("calc", num_agents=2)
    env.reset(seed=0)
    u = unit_slot(env, "rpn")
    obs, _, _, _, infos = env.step({"agent_0": env.layout.claim(u), "agent_1": env.layout.wait})
    assert infos["agent_0"]["tool"] == "post"
    assert rows(obs["agent_0"])[u, 4] == 1  # claimed by me
    assert not obs["agent_0"]["action_mask"][env.layout.claim(u)]
    # agent_1 waited (1 s of thinking, then until a message): it wakes on the claim.
    obs, _, _, _, infos = run_until_ready(env, "agent_1", {"agent_0": env.layout.wait})
    msgs = infos["agent_1"]["messages"]
    assert msgs and msgs[0]["text"] == "claim: rpn" and msgs[0]["channel"] == "general"
    assert rows(obs["agent_1"])[u].tolist()[3:5] == [1, 0]


def test_concurrent_applies_conflict_and_count_as_duplicated_work(make_menu):
    env = make_menu("calc", num_agents=2)
    env.reset(seed=0)
    move = right(env, "tokenize")
    obs, rewards, _, _, infos = env.step({"agent_0": move, "agent_1": move})
    assert rewards["agent_0"] == 3.0
    assert infos["agent_0"]["error"] is None
    assert "does not occur" in infos["agent_1"]["error"]
    assert "apply candidate" in infos["agent_1"]["move_error"]
    assert infos["agent_1"]["duplicated_work"] == 1 and infos["agent_1"]["unit_edits"] == 2


def test_a_second_agent_on_a_unit_is_duplicated_work(make_menu):
    env = make_menu("calc", num_agents=2)
    env.reset(seed=0)
    env.step({"agent_0": right(env, "gcd"), "agent_1": env.layout.wait})
    run_until_ready(env, "agent_1")
    obs, rewards, _, _, infos = run_until_ready(env, "agent_1", {"agent_1": wrong(env, "gcd")})
    assert infos["agent_1"]["error"] is None
    assert infos["agent_1"]["duplicated_work"] == 1
    assert rewards["agent_1"] < 0  # the wrong code broke what passed


def test_masked_and_malformed_moves_are_errors_that_cost_thinking_time(make_menu):
    env = make_menu("calc", num_agents=1, max_units=8)
    env.reset(seed=0)
    root = env.view().workspace_root
    before = {p: p.read_bytes() for p in root.rglob("*.py")}
    obs, _, _, _, infos = env.step({"agent_0": env.layout.claim(6)})  # an empty slot
    assert "empty unit slot 6" in infos["agent_0"]["move_error"]
    assert "4 units" in infos["agent_0"]["move_error"]
    assert infos["agent_0"]["time"] == pytest.approx(1.0)  # the wait move's 100 tokens
    for bad in ("apply", -1, 10**6, None):
        obs, _, _, _, infos = env.step({"agent_0": bad})
        assert "expected an integer" in infos["agent_0"]["move_error"]
        assert infos["agent_0"]["ready"]
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == before
    with pytest.raises(Error, match="unknown agent"):
        env.step({"agent_9": 0})


def test_busy_agents_may_only_wait_and_are_ignored(make_menu):
    env = make_menu("calc", num_agents=2)
    env.reset(seed=0)
    obs, _, _, _, infos = env.step({"agent_0": env.layout.wait, "agent_1": right(env, "gcd")})
    busy = [a for a in env.possible_agents if not infos[a]["ready"]]
    assert busy
    for a in busy:
        assert obs[a]["action_mask"].sum() == 1 and obs[a]["action_mask"][env.layout.wait]


def test_run_tests_and_done(make_menu):
    env = make_menu("calc", num_agents=1)
    env.reset(seed=0)
    u = unit_slot(env, "rpn")
    _, _, _, _, infos = env.step({"agent_0": env.layout.run_tests(u)})
    assert infos["agent_0"]["tool"] == "run_tests"
    assert "failed (of 5 selected)" in infos["agent_0"]["result"]
    _, _, term, _, infos = env.step({"agent_0": env.layout.done})
    assert term["agent_0"] and infos["agent_0"]["termination"] == "all_done"
    assert not env.agents


def test_solving_every_unit_terminates_with_the_full_return(make_menu):
    env = make_menu("calc", num_agents=4)
    env.reset(seed=0)
    names = [u.name for u in env.task.units]
    _, rewards, term, _, infos = env.step(
        {f"agent_{i}": right(env, n) for i, n in enumerate(names)}
    )
    total = rewards["agent_0"]
    while env.agents:
        _, rewards, term, _, infos = env.step({a: env.layout.wait for a in env.ready_agents})
        total += rewards["agent_0"]
    assert term["agent_0"] and total == 13.0
    assert infos["agent_0"]["termination"] == "all_tests_pass"
    assert infos["agent_0"]["duplicated_work"] == 0
    assert not env.agents


def test_time_cap_is_sticky_and_reset_option_overrides_it(make_menu):
    env = make_menu("calc", num_agents=1)
    env.set_time_cap(7.0)
    env.reset(seed=0)
    assert env.view().time_cap == 7.0
    env.reset(seed=0, options={"time_cap": 3.0})
    assert env.view().time_cap == 3.0
    env.reset(seed=0)
    assert env.view().time_cap == 7.0
    obs, _, _, trunc, infos = env.step({"agent_0": env.layout.wait})
    while env.agents:
        obs, _, _, trunc, infos = env.step({"agent_0": env.layout.wait})
    assert trunc["agent_0"] and infos["agent_0"]["truncation"] == "time_cap"
    assert obs["agent_0"]["observation"][-19] == 0.0  # no time left
    with pytest.raises(ConfigError, match="time_cap"):
        env.set_time_cap(-1)


def test_bad_configuration_names_the_field(make_menu):
    with pytest.raises(ConfigError, match="max_units=2: task calc-v0 has 4 units"):
        make_menu("calc", max_units=2)
    with pytest.raises(ConfigError, match="did you mean 'n_wrong'"):
        make_menu("calc", n_wrongs=2)
    with pytest.raises(ConfigError, match="move_tokens"):
        make_menu("calc", move_tokens={"think": 3})
    with pytest.raises(ConfigError, match="mode='tree'"):
        swarm_envs.parallel_env("calc", mode="tree")
    with pytest.raises(ConfigError, match="num_agents"):
        make_menu("calc", num_agents=0)


def test_work_meter():
    m = WorkMeter()
    assert not m.edited(0, "a")
    assert not m.edited(0, "a")  # rework of one's own unit is not duplicated
    assert not m.edited(1, "b")
    assert m.edited(1, "a")  # a teammate edited it before
    assert m.edited(0, "b")
    assert (m.edits, m.duplicated, m.rate) == (5, 2, 0.4)
    assert WorkMeter().rate == 0.0


def test_menu_env_docstring_documents_every_feature():
    doc = MenuParallelEnv.__doc__
    for section in ("## Action Space", "## Observation Space", "## Rewards", "## Episode End"):
        assert section in doc
    for feature in ("stubbed", "passes", "fail", "claimed by another", "claimed by this agent"):
        assert feature in doc
