"""Off a terminal (stdout a pipe or a file, as under nohup, a scheduler or CI), the
trainers and the bench write one plain line per update or episode, and the final table.

Each command runs as a user runs it, `swarm-envs ...` in a child process with its
stdout redirected to a file; the lines must be there, in order, with no escape codes.
"""

import os
import re
import subprocess
import sys

import pytest

ESC = "\x1b["


def swarm_envs(tmp_path, *argv: str) -> str:
    """Run `swarm-envs ARGV` with stdout redirected to a file; that file's text."""
    log = tmp_path / "run.log"
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TERM")}
    env["COLUMNS"] = "200"
    with log.open("w") as out:
        done = subprocess.run(
            [sys.executable, "-m", "swarm_envs.cli", *argv],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=1800,  # a hang, not a slow run, fails here
        )
    text = log.read_text()
    assert done.returncode == 0, done.stderr[-3000:]
    assert ESC not in text  # plain text: no bar, no colours
    return text


@pytest.mark.slow
def test_the_menu_trainer_logs_a_line_per_update_and_its_table(tmp_path):
    pytest.importorskip("torch")
    text = swarm_envs(
        tmp_path, "train", "--task", "calc", "--num-agents", "2", "--num-envs", "1",
        "--num-updates", "3", "--num-minibatches", "1", "--time-cap", "10", "--hidden", "16",
        "--runs-dir", str(tmp_path / "runs"),
    )  # fmt: skip
    lines = re.findall(
        r"^update (\d+)/3: return -?[\d.]+, cap 10s, agents 2, decisions \d+", text, re.M
    )
    assert lines == ["1", "2", "3"], text
    assert "episodic return (first -> last update)" in text and "checkpoint.pt" in text


@pytest.mark.slow
def test_the_lm_trainer_logs_a_line_per_update(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from swarm_envs.baselines.lm.tiny import build_tiny_model

    tiny = build_tiny_model(tmp_path / "tiny")
    text = swarm_envs(
        tmp_path, "train", "--policy", "lm", "--model", str(tiny), "--task", "calc",
        "--num-agents", "2", "--num-envs", "1", "--episodes-per-update", "1",
        "--num-updates", "2", "--time-cap", "8", "--max-new-tokens", "8",
        "--max-prompt-tokens", "1024", "--no-tensorboard", "--runs-dir", str(tmp_path / "runs"),
    )  # fmt: skip
    assert re.findall(r"^update (\d+)/2: return", text, re.M) == ["1", "2"], text
    assert re.search(r"^done: 2 updates in \d+s", text, re.M), text


@pytest.mark.slow
def test_the_bench_logs_a_line_per_episode_and_its_summary(tmp_path):
    text = swarm_envs(
        tmp_path, "bench", "--tasks", "calc", "--sizes", "1", "2", "--seeds", "0",
        "--time-cap", "30", "--out", str(tmp_path / "out"), "--no-plots",
    )  # fmt: skip
    episodes = re.findall(
        r"^episode (\d+)/(\d+): calc-v0 .* seed 0: ok, \d+/\d+ tests$", text, re.M
    )
    total = int(episodes[0][1]) if episodes else 0
    assert total >= 2 and [int(n) for n, _ in episodes] == list(range(1, total + 1)), text
    assert re.search(rf"^{total} episodes \(0 failed\) in [\d.]+ s; report: ", text, re.M), text
