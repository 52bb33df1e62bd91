"""The OpenEnv server (`swarm-envs serve`) through openenv-core's real client and raw WebSockets.

Servers run in a thread of the test process (openenv-core's app under uvicorn) or as a
`swarm-envs serve` process of their own; clients are `SwarmEnvClient` (openenv-core's
`EnvClient`), in this process or in another one, and plain `websockets` for malformed input.
"""

import asyncio
import json
import signal
import subprocess
import sys
import textwrap
import threading

import psutil
import pytest
from serve_support import ROOT, START_S, app_server, cli, free_port, listening, poll, stop
from websockets.sync.client import connect

import swarm_envs
from swarm_envs.agents.scripted import make_team
from swarm_envs.error import ConfigError, SessionError
from swarm_envs.serve import SwarmAction, SwarmEnvClient, build_app
from swarm_envs.serve.server import serve

pytestmark = pytest.mark.timeout(240)

CONFIG = {"num_agents": 2, "time_cap_s": 900.0}


@pytest.fixture(scope="module")
def server():
    """One in-process server for the module: 2 agents, 2 sessions, a 4 s idle timeout."""
    app = build_app("calc", CONFIG, max_sessions=2, idle_timeout_s=4.0)
    _APPS.append(app)
    with app_server(app) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def sessions(server):
    """openenv-core's session table of the module's server (its `HTTPEnvServer`)."""
    return lambda: list(_APPS[-1].app.state.openenv._sessions.values())


_APPS: list = []


def _play_remote(url: str, seed: int, scripted: bool) -> list[tuple[int, float]]:
    """A whole episode through a session; the (tests passing, time) of every step."""
    team = make_team(swarm_envs.get_task("calc"), 2, "claim", seed=seed)
    curve = []
    with SwarmEnvClient(url).sync() as env:
        obs = env.reset(seed=seed).observation
        while True:
            if scripted:
                acts = {a: team[a].act(obs.observations[a], obs.infos[a]) for a in obs.ready}
            else:
                acts = {a: {"name": "wait", "arguments": {"seconds": 60}} for a in obs.ready}
            result = env.step(SwarmAction(actions=acts))
            obs = result.observation
            curve.append((obs.tests_passed, obs.time))
            if result.done:
                assert obs.end_reason is not None and obs.terminated != obs.truncated
                return curve


def _play_local(seed: int) -> list[tuple[int, float]]:
    env = swarm_envs.parallel_env("calc", **CONFIG)
    team = make_team(env.task, 2, "claim", seed=seed)
    curve = []
    obs, infos = env.reset(seed=seed)
    try:
        while env.agents:
            acts = {a: team[a].act(obs[a], infos[a]) for a in env.ready_agents}
            obs, _, _, _, infos = env.step(acts)
            view = env.view()
            curve.append((view.tests_passed, view.time))
    finally:
        env.close()
    return curve


def test_two_concurrent_sessions_play_whole_episodes_isolated(server):
    expected = _play_local(seed=3)
    results: dict[str, list] = {}

    def play(key, scripted):
        results[key] = _play_remote(server, 3, scripted)

    threads = [
        threading.Thread(target=play, args=("scripted", True)),
        threading.Thread(target=play, args=("idle", False)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=200)
    # The scripted swarm's session is step for step the in-process episode of the same
    # seed; the other session's workspace never saw its edits.
    assert results["scripted"] == expected
    assert expected[-1][0] == 13
    assert {passed for passed, _ in results["idle"]} == {0}
    assert results["idle"][-1][1] == CONFIG["time_cap_s"]


def test_malformed_messages_are_error_responses_and_the_session_goes_on(server):
    ws_url = server.replace("http", "ws") + "/ws"
    with connect(ws_url) as ws:

        def ask(text):
            ws.send(text)
            return json.loads(ws.recv(timeout=60))

        assert ask("{not json")["data"]["code"] == "INVALID_JSON"
        assert ask(json.dumps({"type": "launch"}))["data"]["code"] == "UNKNOWN_TYPE"
        early = ask(json.dumps({"type": "step", "data": {"actions": {"agent_0": "{}"}}}))
        assert "send a reset first" in early["data"]["message"]
        reset = ask(json.dumps({"type": "reset", "data": {"seed": 0}}))
        assert reset["type"] == "observation"
        assert reset["data"]["observation"]["ready"] == ["agent_0", "agent_1"]
        bad_type = ask(json.dumps({"type": "step", "data": {"actions": 5}}))
        assert bad_type["data"]["code"] == "VALIDATION_ERROR"
        extra = ask(json.dumps({"type": "step", "data": {"actions": {}, "launch": 1}}))
        assert extra["data"]["code"] == "VALIDATION_ERROR"
        bad_reset = ask(json.dumps({"type": "reset", "data": {"sead": 1}}))
        assert "sead" in bad_reset["data"]["message"]
        unknown = ask(
            json.dumps(
                {
                    "type": "step",
                    "data": {"actions": {"agent_0": '{"name": "list_files"}', "agent_7": "x"}},
                }
            )
        )
        assert unknown["type"] == "error"
        assert "agent_7" in unknown["data"]["message"]
        assert "nothing of this step was applied" in unknown["data"]["message"]
        # The refused step applied nothing: the time has not moved, and the next step is
        # an ordinary one; a malformed tool call is the agent's error observation.
        state = ask(json.dumps({"type": "state"}))
        assert state["data"]["time"] == 0.0 and state["data"]["step_count"] == 0
        ok = ask(
            json.dumps({"type": "step", "data": {"actions": {"agent_0": "{", "agent_1": "{"}}})
        )
        assert ok["type"] == "observation"
        assert ok["data"]["observation"]["infos"]["agent_0"]["error"]


def test_sessions_beyond_max_sessions_are_refused_with_the_reason(server):
    with SwarmEnvClient(server).sync() as a, SwarmEnvClient(server).sync() as b:
        a.reset(seed=0)
        b.reset(seed=0)
        with pytest.raises(SessionError, match="at capacity: 2/2.*--max-sessions"):
            with SwarmEnvClient(server).sync() as c:
                c.reset()
    # Both closed: their places are free again.
    with SwarmEnvClient(server).sync() as d:
        assert d.reset(seed=0).observation.tests_total == 13


def test_a_silent_session_is_closed_after_the_idle_timeout(server):
    with SwarmEnvClient(server).sync() as env:
        env.reset(seed=0)
        # openenv-core's reaper runs every 5 s; `state` is no activity of the session.
        poll(lambda: env.state().live == [], 60, 0.5, "the reaper to close the session")
        with pytest.raises(SessionError, match="idle past the server's timeout"):
            env.step(SwarmAction(actions={"agent_0": '{"name": "list_files"}'}))


CLIENT = textwrap.dedent(
    """
    import sys, time
    from swarm_envs.serve import SwarmAction, SwarmEnvClient
    env = SwarmEnvClient(sys.argv[1]).sync()
    env.connect()
    obs = env.reset(seed=0).observation
    env.step(SwarmAction(actions={a: '{"name": "list_files"}' for a in obs.ready}))
    print("playing", flush=True)
    time.sleep(600)
    """
)


def test_a_dropped_connection_frees_its_session_and_its_sandbox(server, sessions):
    assert sessions() == []
    ws = connect(server.replace("http", "ws") + "/ws", legacy=True)
    ws.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
    assert json.loads(ws.recv(timeout=60))["type"] == "observation"
    (session,) = sessions()
    root = session.parallel_env.view().workspace_root
    assert (root / "calc").is_dir()
    ws.socket.close()  # no closing handshake: the connection just ends
    poll(lambda: sessions() == [], 60, what="the dropped session to close")
    poll(lambda: not root.exists(), 60, what="its sandbox to be removed")
    ws.close()


@pytest.mark.slow  # the client's process imports openenv-core (and gradio with it): ~20 s
def test_a_killed_client_process_frees_its_session_and_its_sandbox():
    # A server of its own, without the module's short idle timeout: the client's reset,
    # in a process that starts under load, may take longer than 4 s.
    app = build_app("calc", CONFIG, max_sessions=2, idle_timeout_s=300.0)
    table = app.app.state.openenv._sessions
    with app_server(app) as port:
        url = f"http://127.0.0.1:{port}"
        client = subprocess.Popen(
            [sys.executable, "-c", CLIENT, url], stdout=subprocess.PIPE, text=True, cwd=ROOT
        )
        try:
            assert client.stdout.readline().strip() == "playing"
            (session,) = table.values()
            root = session.parallel_env.view().workspace_root
            assert (root / "calc").is_dir()
            client.send_signal(signal.SIGKILL)
            client.wait(timeout=30)
            poll(lambda: not table, 60, what="the killed client's session to close")
            poll(lambda: not root.exists(), 60, what="its sandbox to be removed")
        finally:
            stop(client)
        # Its place is free: both sessions of the server can be opened again.
        with SwarmEnvClient(url).sync() as a, SwarmEnvClient(url).sync() as b:
            assert a.reset(seed=0).observation.ready and b.reset(seed=1).observation.ready


def test_a_bearer_token_is_required_when_set_and_off_loopback():
    with pytest.raises(ConfigError, match="needs a bearer token"):
        serve("calc", host="0.0.0.0")
    app = build_app("calc", CONFIG, max_sessions=1, token="s3cret")
    with app_server(app) as port:
        url = f"http://127.0.0.1:{port}"
        with pytest.raises(SessionError, match="403"):
            asyncio.run(SwarmEnvClient(url, token="wrong").connect())
        with SwarmEnvClient(url, token="s3cret").sync() as env:
            assert env.reset(seed=0).observation.tests_total == 13
        import httpx

        assert httpx.get(f"{url}/schema").status_code == 401
        assert httpx.get(f"{url}/schema", headers={"Authorization": "Bearer s3cret"}).is_success
        assert httpx.get(f"{url}/health").is_success


def _alive(processes):
    return [p for p in processes if p.status() != psutil.STATUS_ZOMBIE]


@pytest.mark.slow
def test_a_server_restart_while_a_client_waits_is_a_clear_error_then_a_new_session():
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    args = ("serve", "calc", "-n", "2", "--port", str(port), "--max-sessions", "2")
    server = cli(*args)
    try:
        poll(lambda: listening(port), START_S, 0.2, "swarm-envs serve to listen")
        env = SwarmEnvClient(url).sync()
        env.connect()
        env.reset(seed=0)
        waiting: dict[str, BaseException | None] = {}

        # Both run it, so the step's first completing action is the long command.
        sleep = '{"name": "run_command", "arguments": {"command": "sleep 60"}}'

        def step():
            try:
                env.step(SwarmAction(actions={"agent_0": sleep, "agent_1": sleep}))
                waiting["error"] = None
            except BaseException as e:
                waiting["error"] = e

        thread = threading.Thread(target=step)
        thread.start()
        tree = psutil.Process(server.pid)
        poll(
            lambda: any(p.name() == "sleep" for p in _alive(tree.children(recursive=True))),
            60,
            what="the step's command to run",
        )
        server.kill()
        server.wait(timeout=30)
        thread.join(timeout=60)
        assert isinstance(waiting["error"], SessionError)
        assert "episode is gone" in str(waiting["error"])
        server = cli(*args)
        poll(lambda: listening(port), START_S, 0.2, "the restarted server")
        # The same client opens a new session on the new server.
        assert env.reset(seed=1).observation.ready == ["agent_0", "agent_1"]
        env.close()
    finally:
        stop(server)
