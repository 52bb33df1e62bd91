"""The `swarm-envs` command, as a user runs it."""

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from swarm_envs import arguments
from swarm_envs.cli import COMMANDS, CommandParser, main

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "swarm_envs.cli", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    "command",
    [[], ["list"], ["run"], ["replay"], ["validate"], ["make-task"], ["make-suite"]]
    + [["generate"], ["bench"]],
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


@pytest.mark.slow
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


def _imported_after(*argv):
    """The modules a fresh interpreter holds after `swarm-envs ARGV`."""
    code = (
        "import json, sys\n"
        "from swarm_envs.cli import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return set(json.loads(res.stderr.splitlines()[-1]))


HEAVY = {"torch", "transformers", "tyro", "openenv", "mcp", "fastapi", "ray", "rich.progress"}


def test_the_top_level_help_imports_no_command_and_nothing_heavy():
    imported = _imported_after("--help")
    modules = {c.module for c in COMMANDS}
    unwanted = imported & (modules | HEAVY | {"swarm_envs.baselines", "swarm_envs.arguments"})
    assert not unwanted, sorted(unwanted)


def test_a_command_imports_its_own_module_alone():
    imported = _imported_after("replay", "--help")
    modules = {c.module for c in COMMANDS}
    assert imported & modules == {"swarm_envs.envs.cli_replay"}
    assert not imported & HEAVY, sorted(imported & HEAVY)


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_every_command_module_has_the_one_shape(command):
    import importlib

    module = importlib.import_module(command.module)
    assert callable(module.configure) and callable(module.run)
    assert (module.__doc__ or "").startswith(f"The `swarm-envs {command.name}` command")
    parser = CommandParser(prog=f"swarm-envs {command.name}", command=command)
    assert parser.module is module  # configured on first use, once
    assert parser.module is module
    if not command.own_options:
        assert parser.description and parser.format_help().count("--help") == 1


def test_the_contracts_name_every_command():
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"
    ]
    named = {c["name"]: c for c in contracts}
    modules = {c.module for c in COMMANDS}
    dispatcher = named[
        "The dispatcher reaches its commands by name: `swarm-envs --help` imports none of them"
    ]
    assert set(dispatcher["forbidden_modules"]) == modules
    leaves = named["A command's module is a leaf: nothing imports it, another command neither"]
    assert set(leaves["protected_modules"]) == modules and leaves["allowed_importers"] == []
    shared = named[
        "The shared flags are the commands' alone: nothing else imports swarm_envs.arguments"
    ]
    assert set(shared["allowed_importers"]) == modules | {"swarm_envs.cli"}


@pytest.mark.parametrize(
    ("kind", "text", "says"),
    [
        (arguments.positive_int, "0", "expected a positive integer, got 0"),
        (arguments.positive_int, "2.5", "expected a positive integer, got '2.5'"),
        (arguments.positive_float, "0", "expected a positive number of seconds, got 0.0"),
        (arguments.positive_float, "nan", "expected a positive number of seconds, got nan"),
        (arguments.positive_float, "soon", "expected a number of seconds, got 'soon'"),
    ],
)
def test_the_positive_types_refuse_naming_the_value(kind, text, says):
    with pytest.raises(argparse.ArgumentTypeError, match=re.escape(says)):
        kind(text)
    assert arguments.positive_int("3") == 3 and arguments.positive_float("0.5") == 0.5


def test_the_env_config_flags_merge_into_the_json(capsys):
    parser = argparse.ArgumentParser()
    arguments.add_env_config_flags(parser)
    args = parser.parse_args(["--time-cap", "60", "--env-config", '{"scorer": "subprocess"}'])
    assert arguments.env_config(args) == {"scorer": "subprocess", "time_cap_s": 60.0}
    assert arguments.env_config(parser.parse_args([])) == {}


def test_a_missing_extra_names_it_and_another_missing_module_is_raised(tmp_path, monkeypatch):
    (tmp_path / "needs_extra.py").write_text("import swarm_envs_test_absent_pkg\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(arguments.EXTRAS, "serve", ("swarm_envs_test_absent_pkg",))
    with pytest.raises(arguments.ConfigError) as e:
        arguments.import_extra("needs_extra", "serve")
    assert str(e.value) == (
        "this command needs the serve extra (swarm_envs_test_absent_pkg is missing): "
        "pip install 'swarm-envs[serve]'"
    )
    monkeypatch.setitem(arguments.EXTRAS, "serve", ("openenv",))
    with pytest.raises(ModuleNotFoundError):  # a bug, not a missing extra
        arguments.import_extra("needs_extra", "serve")
