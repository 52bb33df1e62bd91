"""Observation text: the parts, the caps, the status line that always survives."""

from swarm_envs.core import observation
from swarm_envs.core.channels import Message


def test_status_line_and_team():
    names = [f"agent_{i}" for i in range(3)]
    assert observation.team(names, "agent_1") == "teammates: agent_0, agent_2"
    assert observation.team(["agent_0"], "agent_0") == "you work alone"
    many = [f"agent_{i}" for i in range(20)]
    assert observation.team(many, "agent_0") == "teammates: 19 others (agent_0 .. agent_19)"
    line = observation.status_line(12.0, 10.0, 3, 13, "agent_0", "you work alone")
    assert line == "[t=12.0s, 0.0s left | tests 3/13 passing | you are agent_0 | you work alone]"


def test_compose_caps_the_body_and_keeps_messages_and_status():
    msgs = [Message(1.0, 3.0, 1, 0, "ping"), Message(1.0, 3.0, 2, 0, "all", channel="general")]
    text = observation.messages_text(msgs, ["agent_0", "agent_1", "agent_2"], 256)
    assert text == (
        "--- messages ---\n[t=3.0s] agent_1 -> you: ping\n[t=3.0s] #general agent_2: all"
    )
    status = "[status]"
    obs, shown = observation.compose("x" * 5000, text, status, 600)
    assert len(obs) <= 600 and obs.endswith("\n" + text + "\n" + status)
    assert "[... truncated" in shown and obs.startswith(shown)
    assert observation.compose(None, "", status, 600) == (status, "")


def test_format_report():
    class Report:
        verdict, error = "ok", None
        per_test = {"t::a": True, "t::b": False}
        failures = {"t::b": "assert 1 == 2\nwhere"}
        passed, total = 1, 2

    assert observation.format_report(Report()) == (
        "1 passed, 1 failed (of 2 selected)\nFAILED t::b\n    assert 1 == 2\n    where"
    )
    Report.verdict, Report.error = "no_verdict", "worker died"
    assert observation.format_report(Report()) == "tests could not be run: worker died"


def test_many_messages_format_only_what_shows():
    msgs = [Message(1.0, 2.0, i % 7, -1, f"claim: unit{i}", "general", i) for i in range(5000)]
    names = [f"agent_{i}" for i in range(7)]
    text = observation.messages_text(msgs, names, 1000)
    assert len(text) <= 1000
    assert "claim: unit0\n" in text and text.endswith("claim: unit4999")
    left_out = int(text.split("[... truncated ")[1].split(" messages")[0])
    shown = text.count("claim: unit")
    assert left_out + shown == 5000
