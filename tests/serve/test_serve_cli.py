"""`swarm-envs serve` and `swarm-envs mcp`: help, and bad input refused before serving."""

import pytest

from swarm_envs.cli import main


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    assert e.value.code == 0 and "usage: swarm-envs" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, why",
    [
        (["serve", "calc", "--host", "0.0.0.0"], "needs a bearer token"),
        (["serve", "calc", "--env-config", "{"], "--env-config: not valid JSON"),
        (["serve", "calc", "--env-config", '{"num_agentz": 3}'], "num_agentz"),
        (["serve", "nosuchtask"], "unknown task 'nosuchtask'"),
        (["mcp", "calc", "--agents", "2", "--slots", "3"], "--slots 3: expected 1 to --agents (2)"),
        (["mcp", "calc", "--host", "0.0.0.0"], "needs a bearer token"),
    ],
)
def test_bad_input_is_a_clear_error_before_anything_is_served(args, why, capsys, monkeypatch):
    monkeypatch.delenv("SWARM_ENVS_TOKEN", raising=False)
    assert main(args) == 2
    assert why in capsys.readouterr().err


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--agents", "2"]])
@pytest.mark.parametrize("name", ["x" * 5000, "../" * 2000 + "etc"])
def test_an_over_long_or_path_like_task_name_is_a_clear_error(command, name, capsys):
    assert main([command[0], name, *command[1:]]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err and len(err) < 1000


def test_a_port_out_of_range_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as e:
        main(["serve", "calc", "--port", "70000"])
    assert e.value.code == 2 and "expected a port, 0 to 65535" in capsys.readouterr().err
