"""The OpenEnv server under hostile input: every message gets a typed error, no session dies.

Raw WebSockets (`websockets`) and raw HTTP (`httpx`, and a socket for a WebSocket handshake
under a forged `Host`) against an in-process server: what a web page, a broken client or a
fuzzer sends. After each attack the session that received it answers a valid message, and
`/health` answers.
"""

import json
import os
import socket

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serve_support import app_server
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from swarm_envs.serve import build_app
from swarm_envs.serve.messages import EPISODE_ID_MAX, check_message

pytestmark = pytest.mark.timeout(300)

CONFIG = {"num_agents": 2, "time_cap_s": 900.0}


@pytest.fixture(scope="module")
def server():
    app = build_app("calc", CONFIG, max_sessions=2, idle_timeout_s=60.0)
    with app_server(app) as port:
        yield app, port


def _sessions(app) -> int:
    return len(app.app.state.openenv._sessions)


class Session:
    """One raw WebSocket session: send a text (or bytes), get the JSON reply."""

    def __init__(self, port: int, **kw):
        self._connection = connect(f"ws://127.0.0.1:{port}/ws", **kw)
        self.ws = self._connection.__enter__()

    def ask(self, message) -> dict:
        self.ws.send(message if isinstance(message, str | bytes) else json.dumps(message))
        reply = json.loads(self.ws.recv(timeout=120))
        assert isinstance(reply, dict) and reply["type"] in ("observation", "state", "error")
        if reply["type"] == "error":
            assert reply["data"]["code"] and reply["data"]["message"]
        return reply

    def alive(self) -> None:
        state = self.ask({"type": "state"})
        assert state["type"] == "state", state

    def close(self) -> None:
        self._connection.__exit__(None, None, None)


@pytest.fixture
def session(server):
    _, port = server
    s = Session(port)
    yield s
    s.close()


@pytest.mark.parametrize(
    "raw, code",
    [
        ("[]", "INVALID_JSON"),
        ("5", "INVALID_JSON"),
        ('"reset"', "INVALID_JSON"),
        ("null", "INVALID_JSON"),
        ("true", "INVALID_JSON"),
        ("[" * 100_000, "INVALID_JSON"),
        (b"\x00\x01binary", "INVALID_JSON"),
        (b'{"type": "state"}', "INVALID_JSON"),
        ('{"type": 5}', "UNKNOWN_TYPE"),
        ('{"type": ["reset"]}', "UNKNOWN_TYPE"),
        ('{"data": {}}', "UNKNOWN_TYPE"),
        ('{"type": "mcp", "data": {}}', "UNKNOWN_TYPE"),
        ('{"type": "state", "data": [1]}', "VALIDATION_ERROR"),
        ('{"type": "state", "extra": 1}', "VALIDATION_ERROR"),
    ],
)
def test_a_message_that_is_not_one_is_a_typed_error_and_the_session_lives(
    server, session, raw, code
):
    app, _ = server
    session.alive()
    before = _sessions(app)
    reply = session.ask(raw)
    assert reply["type"] == "error" and reply["data"]["code"] == code, reply
    session.alive()
    assert _sessions(app) == before


@pytest.mark.parametrize(
    "data, field",
    [
        ({"seed": "x"}, "data.seed"),
        ({"seed": -1}, "data.seed"),
        ({"seed": 1.5}, "data.seed"),
        ({"seed": True}, "data.seed"),
        ({"seed": 2**40}, "data.seed"),
        ({"seed": [1]}, "data.seed"),
        ({"episode_id": 5}, "data.episode_id"),
        ({"episode_id": "e" * (EPISODE_ID_MAX + 1)}, "data.episode_id"),
        ({"episode_id": "../../etc/passwd"}, "data.episode_id"),
        ({"episode_id": ""}, "data.episode_id"),
        ({"time_cap": "x"}, "data.time_cap"),
        ({"time_cap": -1}, "data.time_cap"),
        ({"time_cap": 0}, "data.time_cap"),
        ({"time_cap": False}, "data.time_cap"),
        ({"options": 5}, "data.options"),
        ({"options": {"time_cap": "x"}}, "data.options.time_cap"),
        ({"options": {"sead": 1}}, "data.options.sead"),
        ({"sead": 1}, "data.sead"),
    ],
)
def test_every_reset_field_of_a_wrong_type_is_named_and_the_session_resets_after(
    session, data, field
):
    reply = session.ask({"type": "reset", "data": data})
    assert reply["type"] == "error" and reply["data"]["code"] == "VALIDATION_ERROR", reply
    assert field in reply["data"]["message"], reply
    assert any(".".join(e["loc"]) == field for e in reply["data"]["errors"])
    ok = session.ask({"type": "reset", "data": {"seed": 0}})
    assert ok["type"] == "observation" and ok["data"]["observation"]["tests_total"] == 13


@pytest.mark.parametrize(
    "data, field",
    [
        (None, "data"),
        ([], "data"),
        ({"actions": []}, "data.actions"),
        ({"actions": {}, "usage": []}, "data.usage"),
        ({"actions": {}, "usage": {"agent_0": 5}}, "data.usage.agent_0"),
        ({"actions": {}, "usage": {"agent_0": {"output_tokens": -1}}}, "output_tokens"),
        ({"actions": {}, "usage": {"agent_0": {"output_tokenz": 1}}}, "output_tokenz"),
        ({"actions": {}, "launch": 1}, "data.launch"),
    ],
)
def test_every_step_field_of_a_wrong_type_is_named(session, data, field):
    session.ask({"type": "reset", "data": {"seed": 0}})
    message = {"type": "step"} if data is None else {"type": "step", "data": data}
    reply = session.ask(message)
    assert reply["type"] == "error" and reply["data"]["code"] == "VALIDATION_ERROR", reply
    assert field in reply["data"]["message"], reply
    state = session.ask({"type": "state"})
    assert state["data"]["step_count"] == 0 and state["data"]["time"] == 0.0  # nothing applied


def test_a_malformed_action_of_a_ready_agent_is_its_error_observation(session):
    session.ask({"type": "reset", "data": {"seed": 0}})
    for bad in (5, None, [1, 2], {"name": 5}, {"nested": {"x": [1] * 10}}, "x" * 10_000):
        ready = session.ask({"type": "state"})["data"]["ready"]
        actions = dict.fromkeys(ready, bad)
        reply = session.ask({"type": "step", "data": {"actions": actions}})
        assert reply["type"] == "observation", reply
        infos = reply["data"]["observation"]["infos"]
        assert all(infos[a]["error"] for a in ready), (bad, infos)
    session.alive()


def test_every_episode_has_an_id_the_clients_or_a_fresh_one(session):
    session.ask({"type": "reset", "data": {"seed": 0}})
    first = session.ask({"type": "state"})["data"]["episode_id"]
    session.ask({"type": "reset", "data": {"seed": 0}})
    second = session.ask({"type": "state"})["data"]["episode_id"]
    assert isinstance(first, str) and first and second and first != second
    session.ask({"type": "reset", "data": {"seed": 0, "episode_id": "run-7:ep.3"}})
    assert session.ask({"type": "state"})["data"]["episode_id"] == "run-7:ep.3"


def test_a_partial_step_says_which_ready_agents_got_no_action(session):
    session.ask({"type": "reset", "data": {"seed": 0}})
    call = json.dumps({"name": "list_files", "arguments": {}})
    reply = session.ask({"type": "step", "data": {"actions": {"agent_0": call}}})
    obs = reply["data"]["observation"]
    assert obs["missing_actions"] == ["agent_1"] and obs["time"] == 0.0
    reply = session.ask({"type": "step", "data": {"actions": {"agent_1": call}}})
    assert reply["data"]["observation"]["missing_actions"] == []
    assert reply["data"]["observation"]["time"] > 0.0


# ------------------------------------------------------------------ browsers, rebinding


def _ws_handshake(port: int, host: str, origin: str | None = None) -> int:
    """The HTTP status of a WebSocket handshake with this `Host` (and `Origin`)."""
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    lines = [
        "GET /ws HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
    ]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        status = s.recv(4096).split(b"\r\n", 1)[0]
    return int(status.split()[1])


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "null", "http://127.0.0.1.evil.example:80", "file://"]
)
def test_a_web_page_of_another_origin_is_refused_on_every_route(server, origin):
    app, port = server
    s = Session(port)
    s.alive()
    before = _sessions(app)
    with pytest.raises(InvalidStatus) as e:
        connect(f"ws://127.0.0.1:{port}/ws", origin=origin)
    assert e.value.response.status_code == 403
    for path in ("/health", "/schema", "/metadata"):
        r = httpx.get(f"http://127.0.0.1:{port}{path}", headers={"Origin": origin})
        assert r.status_code == 403 and "--allow-origin" in r.json()["detail"]
    assert _sessions(app) == before
    s.close()


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example"])
def test_a_foreign_host_name_is_refused_dns_rebinding(server, host):
    _, port = server
    assert _ws_handshake(port, host) == 403
    r = httpx.get(f"http://127.0.0.1:{port}/schema", headers={"Host": host})
    assert r.status_code == 421 and "--allow-host" in r.json()["detail"]


def test_this_machines_names_and_pages_are_answered(server):
    _, port = server
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost"):
        assert _ws_handshake(port, host) == 101
    s = Session(port, origin=f"http://localhost:{port}")
    s.alive()
    s.close()
    r = httpx.get(f"http://127.0.0.1:{port}/health", headers={"Origin": "http://127.0.0.1:3000"})
    assert r.is_success


def test_the_allow_lists_are_configurable():
    app = build_app(
        "calc",
        CONFIG,
        max_sessions=1,
        allowed_origins=["https://notebook.example"],
        allowed_hosts=["box.internal:*"],
    )
    with app_server(app) as port:
        assert _ws_handshake(port, f"box.internal:{port}", "https://notebook.example") == 101
        assert _ws_handshake(port, f"127.0.0.1:{port}") == 403  # replaced, not added to
        assert _ws_handshake(port, f"box.internal:{port}", "http://localhost:1") == 403


# ------------------------------------------------------------------ fuzzing the schema

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
_reset = st.fixed_dictionaries(
    {},
    optional={
        "seed": _json | st.integers(),
        "episode_id": _json | st.text(max_size=200),
        "time_cap": _json | st.floats(),
        "options": _json | st.fixed_dictionaries({}, optional={"time_cap": _json}),
    },
)
_step = st.fixed_dictionaries(
    {},
    optional={
        "actions": _json | st.dictionaries(st.sampled_from(["agent_0", "agent_1", "x"]), _json),
        "usage": _json | st.dictionaries(st.sampled_from(["agent_0", "agent_1"]), _json),
    },
)
_messages = (
    st.fixed_dictionaries({"type": st.just("reset")}, optional={"data": _reset | _json})
    | st.fixed_dictionaries({"type": st.just("step")}, optional={"data": _step | _json})
    | st.fixed_dictionaries({"type": st.sampled_from(["state", "close", "mcp", "x"]) | _json})
    | _json
)


@given(message=_messages)
@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_the_message_check_answers_everything_with_a_typed_error_or_passes_it(message):
    reply = check_message(json.dumps(message))
    if reply is not None:
        data = json.loads(reply)["data"]
        assert data["code"] in ("INVALID_JSON", "UNKNOWN_TYPE", "VALIDATION_ERROR")
        assert data["message"]


def test_fuzzing_the_server_loses_no_session_and_health_answers(server):
    """Messages drawn from the schema against one live session, which must survive all."""
    app, port = server
    s = Session(port)
    s.ask({"type": "reset", "data": {"seed": 0}})
    before = _sessions(app)
    answered = []

    @given(message=_messages)
    @settings(
        max_examples=int(os.environ.get("FUZZ_EXAMPLES", "150")),
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    def attack(message):
        if isinstance(message, dict) and message.get("type") == "close":
            return  # a valid close ends the session: that is the protocol, not a loss
        if isinstance(message, dict) and message.get("type") == "reset":
            data = message.get("data")
            if check_message(json.dumps(message)) is None and isinstance(data, dict):
                message = {**message, "data": {**data, "time_cap": 60}}  # short episodes
        answered.append(s.ask(json.dumps(message))["type"])

    try:
        attack()
        s.alive()
        assert _sessions(app) == before
        assert httpx.get(f"http://127.0.0.1:{port}/health").is_success
    finally:
        s.close()
    assert answered
