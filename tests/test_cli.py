"""The `swarm-envs` command, as a user runs it."""

import json
import re
import subprocess
import sys

import pytest

from swarm_envs.cli import main


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "swarm_envs.cli", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    "command", [[], ["list"], ["run"], ["replay"], ["validate"], ["make-task"], ["generate"]]
)
def test_help_everywhere(command):
    res = run_cli(*command, "--help")
    assert res.returncode == 0 and "usage: swarm-envs" in res.stdout


def test_wrong_arguments_are_clear():
    res = run_cli("run", "calc", "--agents", "zero")
    assert res.returncode == 2 and "expected a positive integer" in res.stderr
    res = run_cli("run", "nosuchtask")
    assert res.returncode == 2 and "unknown task 'nosuchtask'" in res.stderr
    res = run_cli("frobnicate")
    assert res.returncode == 2 and "invalid choice" in res.stderr


def test_list_shows_tasks(capsys):
    assert main(["list", "--suite", "mini"]) == 0
    out = capsys.readouterr().out
    assert "calc-v0" in out and "mini" in out and "jsonkit-v0" not in out
    assert re.search(r"calc-v0\D+13\b", out), out  # its 13 tests, collected


def test_run_records_and_replay_summarises(tmp_path, capsys):
    rec = tmp_path / "run.jsonl"
    assert main(["run", "calc", "--agents", "3", "--quiet", "--record", str(rec)]) == 0
    out = capsys.readouterr().out
    assert "13 / 13" in out and "all_tests_pass" in out
    events = [json.loads(line) for line in rec.read_text().splitlines()]
    kinds = {e["type"] for e in events}
    assert {"episode", "action", "effect", "step", "end"} <= kinds
    assert events[0]["task"] == "calc-v0" and events[-1]["tests_passed"] == 13
    assert sum(e["reward"] for e in events if e["type"] == "step") == 13
    assert main(["replay", str(rec)]) == 0
    out = capsys.readouterr().out
    assert "0 -> 13 / 13" in out and "edit_file" in out


def test_run_takes_the_work_model(tmp_path, capsys):
    inputs = {}
    for model in ("flat", "conversation"):
        rec = tmp_path / f"{model}.jsonl"
        assert (
            main(["run", "calc", "-n", "1", "-q", "--work-model", model, "--record", str(rec)]) == 0
        )
        events = [json.loads(line) for line in rec.read_text().splitlines()]
        inputs[model] = [e["input_tokens"] for e in events if e["type"] == "action"]
    # The same actions; the conversation model re-reads the prompt, the flat one does not.
    assert len(inputs["flat"]) == len(inputs["conversation"])
    assert all(c > f for f, c in zip(inputs["flat"], inputs["conversation"], strict=True))
    res = run_cli("run", "calc", "--work-model", "chat")
    assert res.returncode == 2 and "--work-model: invalid choice: 'chat'" in res.stderr


def test_replay_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert main(["replay", str(bad)]) == 2
    assert "not a swarm-envs recording" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2


@pytest.mark.parametrize("strategy", ["none", "claim", "leader"])
def test_scripted_strategies_solve_calc(strategy, capsys):
    assert main(["run", "calc", "--agents", "4", "--strategy", strategy, "--quiet"]) == 0
    assert "13 / 13" in capsys.readouterr().out


def test_an_unknown_flag_prints_the_usage_of_the_subcommand():
    res = run_cli("run", "calc", "--agentz", "3")
    assert res.returncode == 2
    assert "usage: swarm-envs run [-h]" in res.stderr and "--agents" in res.stderr
    assert "unrecognized arguments: --agentz 3" in res.stderr


def test_the_dashboard_renders_its_bars(capsys):
    assert main(["run", "calc", "--agents", "2", "--dashboard", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    bars = [ln for ln in out.splitlines() if ln.startswith(("time  [", "tests ["))]
    assert bars and all(
        "]" in ln and set(ln.split("[", 1)[1].split("]")[0]) <= {"#", "."} for ln in bars
    )
    assert any("#" in ln for ln in bars)
