"""Recordings: events as models, written by the episode, read back and summarised."""

import json
import math

import pytest
from support.helpers import SIMPLE_TIME, call

import swarm_envs
from swarm_envs.core.recording import (
    MAX_TEXT,
    ActionEvent,
    EndEvent,
    EpisodeHeader,
    Recorder,
    StepEvent,
    read_events,
    summarize,
)
from swarm_envs.error import RecordingError


def header(**kw):
    base = dict(
        task="calc-v0",
        seed=0,
        time_cap=60.0,
        agents=["agent_0"],
        tests_total=13,
        tests_passed=0,
        config={},
    )
    return EpisodeHeader(**{**base, **kw})


def test_recorder_numbers_episodes_and_round_trips_events(tmp_path):
    path = tmp_path / "r.jsonl"
    rec = Recorder(path)
    for n in range(2):
        rec.begin(header(seed=n, time_cap=math.inf))
        rec.write(
            ActionEvent(
                t=0.0,
                agent="agent_0",
                tool="list_files",
                action={"name": "list_files"},
                output_tokens=3,
                input_tokens=1,
            )
        )
        rec.write(StepEvent(t=1.0, reward=2.0, tests_passed=2, observations={"agent_0": "x"}))
        rec.write(
            EndEvent(t=1.0, kind="terminated", reason="all_done", tests_passed=2, tests_total=13)
        )
    rec.close()
    rec.close()  # twice-safe
    events = read_events(path)
    assert [e.type for e in events] == ["episode", "action", "step", "end"] * 2
    assert [e.episode for e in events if isinstance(e, EpisodeHeader)] == [0, 1]
    assert events[0].time_cap == math.inf  # written as JSON's Infinity, read back
    (first, second) = summarize(path)
    assert first["return"] == 2.0 and first["end"] == "terminated (all_done)"
    assert first["tokens"] == 4 and second["seed"] == 1


def test_long_text_is_capped_with_the_marker():
    long = "y" * (MAX_TEXT + 10)
    ev = StepEvent(t=0, reward=0, tests_passed=0, observations={"agent_0": long})
    text = ev.observations["agent_0"]
    assert text.startswith("y" * MAX_TEXT) and "[... truncated 10 characters ...]" in text
    odd = ActionEvent(
        t=0, agent="a", tool="invalid", action=object(), output_tokens=0, input_tokens=0
    )
    assert isinstance(odd.action, str) and odd.action.startswith("<object")


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("not json\n", ":1: not a swarm-envs recording"),
        (json.dumps({"type": "step", "t": 0}) + "\n", "missing field"),
        (json.dumps({"type": "meteor"}) + "\n", "not a swarm-envs recording"),
    ],
)
def test_bad_recordings_are_recording_errors(tmp_path, content, fragment):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    with pytest.raises(RecordingError, match=fragment):
        summarize(bad)


def test_an_event_before_the_header_is_an_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        StepEvent(t=0, reward=0, tests_passed=0, observations={}).model_dump_json() + "\n"
    )
    with pytest.raises(RecordingError, match="before any episode header"):
        summarize(bad)


def test_the_episode_records_what_happened_in_every_form(tmp_path):
    path = tmp_path / "ep.jsonl"
    env = swarm_envs.parallel_env(
        "calc", num_agents=2, time=SIMPLE_TIME, record_path=str(path), time_cap_s=100
    )
    try:
        env.reset(seed=4)
        env.step({"agent_0": call("done", tokens=1), "agent_1": call("list_files", tokens=1)})
        env.step({"agent_1": call("done", tokens=1)})
    finally:
        env.close()
    events = read_events(path)
    head = events[0]
    assert isinstance(head, EpisodeHeader)
    assert (head.task, head.seed, head.time_cap, head.agents) == (
        "calc-v0",
        4,
        100.0,
        ["agent_0", "agent_1"],
    )
    assert head.config["num_agents"] == 2
    kinds = [e.type for e in events]
    assert kinds.count("action") == 3 and kinds.count("effect") == 3 and kinds[-1] == "end"
    assert events[-1].reason == "all_done"
