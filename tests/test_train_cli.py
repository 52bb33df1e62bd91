"""`swarm-envs train`: one command for both trainers, its help, and its checks at start."""

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from swarm_envs import cli  # noqa: E402
from swarm_envs.baselines.lm.tiny import build_tiny_model  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return str(build_tiny_model(tmp_path_factory.mktemp("tiny-lm")))


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["train", "--help"], ["swarm-envs train", "--num-minibatches", "--hidden"]),
        (["train", "--policy", "lm", "--help"], ["--policy lm", "--model", "--role-tools"]),
    ],
)
def test_help_of_each_trainer(argv, says, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 0
    out = capsys.readouterr().out
    for text in says:
        assert text in out, text


def test_an_unknown_policy_names_the_choices(capsys):
    assert cli.main(["train", "--policy", "rl"]) == 2
    assert "--policy 'rl': expected one of menu, lm" in capsys.readouterr().err
    # `--policy=menu` is the default trainer, spelled out
    with pytest.raises(SystemExit) as e:
        cli.main(["train", "--policy=menu", "--help"])
    assert e.value.code == 0


def _no_units_task(root):
    """A task folder whose solution has no stubbable units (text mode only)."""
    (root / "solution" / "pkg").mkdir(parents=True)
    (root / "solution" / "pkg" / "__init__.py").write_text("X = 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_x.py").write_text(
        "from pkg import X\n\ndef test_x():\n    assert X == 1\n"
    )
    (root / "task.toml").write_text('name = "nounits"\ndescription = "nothing to do"\n')
    return str(root)


LM_ERRORS = [
    # (options after `train --policy lm`, what the error must say)
    ([], "model: required"),
    (["--model", "{tmp}/no-such-model"], "model='"),
    (
        ["--num-agents", "2", "--roles", "implementer", "1", "Bad Role", "1"],
        "role name 'Bad Role' is not valid",
    ),
    (["--num-agents", "3", "--roles", "implementer", "1", "reviewer", "1"], "roles="),
    (
        ["--num-agents", "2", "--roles", "implementer", "1", "reviewer", "1"]
        + ["--role-tools", "reviewer", "read_file", "frobnicate"],
        "role_tools.reviewer: unknown tool 'frobnicate'",
    ),
    (["--num-agents", "2", "--role-tools", "judge", "read_file"], "unknown role 'judge'"),
    (["--episodes-per-update", "3", "--num-envs", "2"], "episodes_per_update=3"),
    (["--task", "no-such-task"], "task='no-such-task'"),
    (["--num-minibatches", "0"], "num_minibatches=0"),
]


@pytest.mark.parametrize(("options", "says"), LM_ERRORS, ids=[s for _, s in LM_ERRORS])
def test_the_lm_trainer_fails_at_start_naming_the_field(options, says, tiny, tmp_path, capsys):
    model = [] if not options or options[0] == "--model" else ["--model", tiny]
    argv = ["train", "--policy", "lm", *model, *(o.format(tmp=tmp_path) for o in options)]
    assert cli.main([*argv, "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("swarm-envs train: error: ") and says in err, err
    assert not (tmp_path / "runs").exists()  # nothing was started


MENU_ERRORS = [
    (["--task", "no-such-task"], "task='no-such-task'"),
    (["--task", "{nounits}"], "needs a task with units"),
    (["--num-envs", "1", "--num-agents", "2", "--num-minibatches", "3"], "num_minibatches=3"),
    (["--time-cap", "-1"], "time_cap"),
    (["--max-units", "2"], "max_units=2"),
]


@pytest.mark.parametrize(("options", "says"), MENU_ERRORS, ids=[s for _, s in MENU_ERRORS])
def test_the_menu_trainer_fails_at_start_naming_the_field(options, says, tmp_path, capsys):
    nounits = _no_units_task(tmp_path / "nounits")
    argv = ["train", *(o.format(nounits=nounits) for o in options)]
    assert cli.main([*argv, "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("swarm-envs train: error: ") and says in err, err
    assert not (tmp_path / "runs").exists()
