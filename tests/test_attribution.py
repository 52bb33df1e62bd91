"""Attribution: which agents' applied actions preceded each change of a test's outcome.

Hand-made two-agent episodes on calc, where who changed what is known by construction.
"""

from support.helpers import GCD, MEAN, STUB_GCD, STUB_MEAN, call

from swarm_envs.core.recording import AttributionEvent, read_events

NUMBERS = "calc/numbers.py"
GCD_TESTS = ["tests/test_calc.py::TestGcd::"]
MEAN_TESTS = ["tests/test_calc.py::TestMean::"]


def edit(unit, tokens):
    """An edit of calc/numbers.py that implements `unit` (gcd or mean) in the start state."""
    body = {"gcd": GCD, "mean": MEAN}[unit].split(":\n", 1)[1]
    stub = f"    raise NotImplementedError('not implemented yet: {unit}')\n"
    return call("edit_file", tokens=tokens, path=NUMBERS, old=stub, new=body)


def of(tests, prefixes):
    return bool(tests) and all(any(t.startswith(p) for p in prefixes) for t in tests)


def test_each_change_names_the_agent_and_file_that_preceded_it(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    # agent_0's edit completes at t=2 (1 s thinking, 1 s edit), agent_1's at t=4.
    _, rewards, _, _, infos = env.step({"agent_0": edit("gcd", 1), "agent_1": edit("mean", 3)})
    assert rewards == {"agent_0": 2.0, "agent_1": 2.0}  # the reward stays collective
    (first,) = infos["agent_0"]["attribution"]
    assert first["t"] == 2.0 and of(first["gained"], GCD_TESTS) and first["lost"] == []
    assert first["actions"] == [
        {"agent": "agent_0", "tool": "edit_file", "files": [NUMBERS], "t": 2.0}
    ]
    assert infos["agent_1"]["attribution"] == []  # busy: it has not observed since t=0

    _, _, _, _, infos = env.step({"agent_0": call("wait", tokens=10)})
    # agent_1 observes at t=4 and sees both changes since its previous observation.
    seen = infos["agent_1"]["attribution"]
    assert [r["t"] for r in seen] == [2.0, 4.0] and seen[0] == first
    second = seen[1]
    assert of(second["gained"], MEAN_TESTS) and len(second["gained"]) == 2
    assert [a["agent"] for a in second["actions"]] == ["agent_1"]
    assert list(env.view().attribution) == seen  # the whole episode's, in order


def test_a_loss_is_attributed_to_the_agent_that_caused_it(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    env.step({"agent_0": edit("gcd", 1), "agent_1": call("wait", tokens=2, seconds=1)})
    env.step({"agent_0": call("wait", tokens=1, seconds=100)})  # agent_1 is ready at t=3
    # agent_1 overwrites the file: mean passes, gcd is a stub again.
    broken = call("write_file", tokens=1, path=NUMBERS, content=STUB_GCD + MEAN)
    _, rewards, _, _, _ = env.step({"agent_1": broken})
    assert rewards["agent_0"] == rewards["agent_1"] == 0.0  # 2 gained, 2 lost
    last = env.view().attribution[-1]
    assert last["t"] == 5.0
    assert of(last["gained"], MEAN_TESTS) and of(last["lost"], GCD_TESTS)
    assert [(a["agent"], a["tool"]) for a in last["actions"]] == [("agent_1", "write_file")]


def test_round_mode_credits_everyone_applied_in_the_round(make_env):
    env = make_env("calc", num_agents=2, sync="round")
    env.reset(seed=0)
    _, _, _, _, infos = env.step({"agent_0": edit("gcd", 1), "agent_1": edit("mean", 1)})
    (record,) = env.view().attribution
    assert len(record["gained"]) == 4
    assert [a["agent"] for a in record["actions"]] == ["agent_0", "agent_1"]
    assert infos["agent_0"]["attribution"] == infos["agent_1"]["attribution"] == [record]


def test_only_applied_writes_count_and_a_command_has_no_files(make_env):
    env = make_env("calc", num_agents=2)
    env.reset(seed=0)
    env.step({"agent_1": call("wait", tokens=1, seconds=1000), "agent_0": call("list_files")})
    # A failed edit (no match), a read and a post nobody reads: none is an applied write; a write that
    # changes no outcome is forgotten at the next verdict.
    for action in [
        call("edit_file", tokens=1, path=NUMBERS, old="no such text", new="x"),
        call("read_file", tokens=1, path=NUMBERS),
        call("post", tokens=1, channel="notes", text="hi"),  # nobody listens
        call("write_file", tokens=1, path="impl.py", content=GCD + STUB_MEAN),
    ]:
        _, _, _, _, infos = env.step({"agent_0": action})
        assert infos["agent_0"]["ready"] and infos["agent_0"]["attribution"] == []
    assert env.view().attribution == ()
    t = env.view().time
    cmd = call("run_command", tokens=1, command=f"cp impl.py {NUMBERS}")
    _, _, _, _, infos = env.step({"agent_0": cmd})
    (record,) = infos["agent_0"]["attribution"]
    assert record["actions"] == [
        {"agent": "agent_0", "tool": "run_command", "files": None, "t": t + 2.0}
    ]
    assert of(record["gained"], GCD_TESTS)


def test_the_recording_keeps_every_attribution(make_env, tmp_path):
    path = tmp_path / "run.jsonl"
    env = make_env("calc", num_agents=2, record_path=str(path))
    env.reset(seed=0)
    env.step({"agent_0": edit("gcd", 1), "agent_1": edit("mean", 3)})
    env.step({"agent_0": call("done", tokens=1)})
    env.close()
    events = [e for e in read_events(path) if isinstance(e, AttributionEvent)]
    assert [e.model_dump(exclude={"type"}) for e in events] == list(env.view().attribution)
    assert [e.actions[0].agent for e in events] == ["agent_0", "agent_1"]
