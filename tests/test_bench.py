"""`swarm-envs bench`: the configuration's checks, a real bench through the CLI, crashes.

The benches here are small (the mini suite's `calc`, one or two seeds) but real: worker
processes, the real sandbox and scorer, scripted and imported agents.
"""

import json
import textwrap

import pytest

from swarm_envs.agents.rollout import Trajectory
from swarm_envs.bench import build_config, load_results, map_episodes, parse_agent
from swarm_envs.cli import main
from swarm_envs.error import ConfigError

PNG = b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------- configuration


def test_unknown_task_fails_at_once_with_the_valid_choices():
    with pytest.raises(ConfigError) as e:
        build_config(overrides={"tasks": ["calk"]})
    message = str(e.value)
    assert "'calk'" in message and "did you mean: calc" in message
    assert "mini" in message and "jsonkit" in message


def test_unknown_strategy_and_agent_kind_name_the_choices(tmp_path):
    with pytest.raises(
        ConfigError, match=r"unknown strategy 'swarm'.*\['none', 'claim', 'leader'\]"
    ):
        parse_agent("scripted:swarm")
    with pytest.raises(ConfigError, match="strategy"):
        build_config(overrides={"agents": [{"kind": "scripted", "strategy": "swarm"}]})
    toml = tmp_path / "bench.toml"
    toml.write_text('[[agents]]\nkind = "robot"\n')
    with pytest.raises(ConfigError, match=r"bench.toml.*'scripted', 'llm', 'import'"):
        build_config(toml)


def test_unknown_fields_files_and_factories_are_errors(tmp_path):
    with pytest.raises(ConfigError, match="sizez"):
        build_config(overrides={"sizez": [1]})
    with pytest.raises(ConfigError, match="no such bench configuration file"):
        build_config(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="cannot import 'no_such_module'"):
        build_config(overrides={"agents": [parse_agent("no_such_module:make")]})
    with pytest.raises(ConfigError, match="distinct `name`"):
        build_config(overrides={"agents": [parse_agent("claim"), parse_agent("claim")]})
    with pytest.raises(ConfigError, match="llm:MODEL@URL"):
        parse_agent("llm:no-url")


def test_a_toml_configuration_with_flags_on_top(tmp_path):
    toml = tmp_path / "bench.toml"
    toml.write_text(
        textwrap.dedent(
            """
            tasks = ["mini"]
            sizes = [8, 1, 8]
            [[agents]]
            kind = "scripted"
            strategy = "leader"
            p_wrong = 0.0
            [[agents]]
            kind = "llm"
            model = "m"
            base_url = "http://127.0.0.1:9/v1"
            """
        )
    )
    config = build_config(toml, {"seeds": [3], "sizes": None})
    assert config.sizes == [1, 8]
    assert config.seeds == [3]
    assert [a.label for a in config.agents] == ["leader (p_wrong=0.0)", "llm m"]
    assert [t.id for t in config.resolved_tasks()] == ["calc-v0"]


def test_the_cli_reports_a_bad_configuration_without_a_traceback(capsys):
    assert main(["bench", "--tasks", "nosuch", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("swarm-envs bench: error:") and "nosuch" in err
    assert "Traceback" not in err


# ---------------------------------------------------------------------- a real bench


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    status = main(
        ["bench", "--tasks", "calc", "--agent", "claim", "--agent", "none", "--sizes", "1", "3",
         "--seeds", "0", "1", "--token-budget-per-test", "1500", "--workers", "2",
         "--out", str(out), "--quiet"]
    )  # fmt: skip
    assert status == 0
    return out


def test_the_results_the_grid_once_per_distinct_episode(bench):
    results = load_results(bench / "episodes.jsonl")
    # alone, claim and none are one agent: 1 single + 2 swarms, x2 budgets x2 seeds
    assert len(results) == 12
    assert all(r.status == "ok" for r in results)
    assert sorted({(r.spec.label, r.spec.size) for r in results}) == [
        ("claim", 3),
        ("none", 3),
        ("scripted", 1),
    ]
    budgeted = [r for r in results if r.spec.budget_per_test is not None]
    assert len(budgeted) == 6
    assert all(r.token_budget == 1500 * r.tests_total for r in budgeted)
    # the action that crosses the budget completes; then the episode is truncated
    over = [r for r in budgeted if r.tokens > r.token_budget]
    assert over and all(r.end_reason in ("token_budget", "all_tests_pass") for r in over)
    assert any(r.end_reason == "token_budget" for r in budgeted)


def test_every_episode_is_recorded_with_its_trajectory(bench):
    results = load_results(bench / "episodes.jsonl")
    trajectories = Trajectory.load(bench / "trajectories.jsonl")
    assert len(trajectories) == len(results)
    for r in results:
        t = trajectories[r.trajectory_line]
        assert (t.seed, len(t.agents), t.tests_passed) == (r.spec.seed, r.spec.size, r.tests_final)


def test_the_curve_and_the_credit_add_up_to_the_episode(bench):
    for r in load_results(bench / "episodes.jsonl"):
        assert r.curve[0] == (0.0, r.tests_start)
        assert r.curve[-1][1] == r.tests_final
        assert [t for t, _ in r.curve] == sorted(t for t, _ in r.curve)
        net = sum(a.gained - a.lost for a in r.agents)
        assert net == pytest.approx(r.tests_final - r.tests_start)
        assert sum(len(a.segments) for a in r.agents) == sum(a.actions for a in r.agents)
        if r.spec.size == 1:
            assert r.messages == 0  # alone, nobody to coordinate with


def test_the_report_the_figures_and_the_plots(bench):
    fig = json.loads((bench / "figures.json").read_text())
    configs = {
        (c["agents"], c["size"], c["token_budget_per_test"]): c for c in fig["configurations"]
    }
    assert set(configs) == {(a, n, b) for a, n in [("scripted", 1), ("claim", 3), ("none", 3)]
                            for b in (None, 1500.0)}  # fmt: skip
    for c in configs.values():
        assert c["episodes"] == 2
        assert list(c["scores_at"]) == ["@30s", "@1m", "@2m", "@4m"]
        assert list(c["time_to"]) == ["25%", "50%", "90%", "100%"]
        assert sum(c["contribution"].values()) == pytest.approx(1.0)
        assert 0.0 <= c["held_out"] <= 1.0  # calc has held-out tests
    # the claim swarm posts its claims; alone or with `none`, nobody does
    assert configs[("claim", 3, None)]["messages"] > 0
    assert configs[("none", 3, None)]["messages"] == 0
    assert configs[("scripted", 1, None)]["fit"]["r2"] > 0.5
    swarms = {(c["agents"], c["token_budget_per_test"]) for c in fig["comparisons"]}
    assert swarms == {("claim", None), ("none", None), ("claim", 1500.0), ("none", 1500.0)}
    report = (bench / "report.md").read_text()
    assert "## Suite `mini`" in report and "| claim x3 |" in report and "speed-up to 90%" in report
    assert "![progress_mini](progress_mini.png)" in report
    assert "single agent's slowdown" in report and "| per agent |" in report
    for c in fig["comparisons"]:  # the dynamics per seed, for the seeds' range
        assert c["seeds"]["seeds"] == [0, 1]
        assert list(c["per_agent_at"]) == list(c["seeds"]["per_agent_at"])
    for name in ("progress_mini.png", "work_mini.png", "timeline.png"):
        data = (bench / name).read_bytes()
        assert data.startswith(PNG) and len(data) > 10_000


def test_the_plots_keep_one_colour_per_agents_fit_their_axes_and_show_every_configuration(
    bench, monkeypatch
):
    from swarm_envs.bench import plots
    from swarm_envs.bench.runner import EpisodeResult

    fig = json.loads((bench / "figures.json").read_text())
    style = plots.Style.of_figures(fig)
    # One colour per kind of agents, the same whichever figure draws it.
    assert len(set(style.colours.values())) == len(style.colours) == 3
    drawn = []
    monkeypatch.setattr(plots._pyplot(), "close", drawn.append)
    plots.work_plot(fig, "mini", bench / "w.png", style)
    plots.progress_plot(fig, "mini", bench / "p.png", style)
    work, progress = drawn
    colours = {}
    for f in (work, progress):
        for line in f.axes[0].get_lines():
            label = line.get_label().split(" ")[0]
            if label in ("claim", "none"):
                colours.setdefault(label, set()).add(line.get_color())
    assert colours == {"claim": {style.colour("claim")}, "none": {style.colour("none")}}
    # The work plot's time axis ends near the last change, not at the cap.
    last = max(c["curve"]["t"][-1] for c in fig["configurations"])
    cap = max(c["time_cap_s"] for c in fig["configurations"])
    right = work.axes[0].get_xlim()[1]
    per = {"s": 1, "min": 60, "h": 3600}[work.axes[0].get_xlabel().split("(")[1].split(",")[0]]
    assert right * per <= min(cap, last * 1.15) + 1e-6, (right, per, last, cap)
    # The timeline: every configuration's first episode, one panel each.
    results = [
        EpisodeResult.model_validate_json(line)
        for line in (bench / "episodes.jsonl").read_text().splitlines()
    ]
    shown = plots.timeline_episodes(results)
    keys = {(r.spec.label, r.spec.size, r.spec.budget_per_test) for r in shown}
    assert len(shown) == len(keys) == len(fig["configurations"]) == 6
    plots.timeline_plot(shown, bench / "t.png", style)
    assert len([a for a in drawn[-1].axes if a.get_title(loc="left")]) == 6


# ---------------------------------------------------------------------- crashes


@pytest.mark.slow
def test_an_agent_that_crashes_is_recorded_and_the_rest_continues(tmp_path):
    status = main(
        ["bench", "--tasks", "calc", "--agent", "support.bench_agents:flaky", "--sizes", "2",
         "--seeds", "0", "--workers", "1", "--out", str(tmp_path), "--quiet", "--no-plots"]
    )  # fmt: skip
    assert status == 0
    (r,) = load_results(tmp_path / "episodes.jsonl")
    assert r.status == "ok"
    errors = {a.name: a.error for a in r.agents}
    assert errors["agent_0"] is None
    assert "the agent's own bug" in errors["agent_1"]
    assert [s[2] for s in r.agents[0].segments] == ["list_files", "run_tests", "done"]
    fig = json.loads((tmp_path / "figures.json").read_text())
    assert fig["configurations"][0]["agent_errors"] == 1
    assert not list(tmp_path.glob("*.png"))


def test_a_worker_that_dies_loses_only_its_own_item():
    from support.bench_agents import square_or_die

    out = list(map_episodes(square_or_die, [1, 2, 3, 4], 2, lambda x, why: f"lost {x}: {why}"))
    assert sorted(o for o in out if isinstance(o, int)) == [1, 9, 16]
    (lost,) = [o for o in out if isinstance(o, str)]
    assert lost.startswith("lost 2: its worker process died")


@pytest.mark.slow
def test_llm_agents_over_a_local_server_and_a_server_that_fails(tmp_path):
    from support.llm_server import Reply, ScriptedServer, agent_of

    def script(request):
        # list the files, run the tests, then say done; agent_1 of the swarm gets 500s
        if agent_of(request) == "agent_1":
            return Reply(status=500)
        turns = sum(1 for m in request["messages"] if m["role"] == "assistant")
        return Reply(calls=[(["list_files", "run_tests", "done"][min(turns, 2)], {})])

    with ScriptedServer(script) as server:
        toml = tmp_path / "bench.toml"
        toml.write_text(
            f'tasks = ["calc"]\nsizes = [1, 2]\nseeds = [0]\nworkers = 2\nplots = false\n'
            f'out = "{tmp_path / "out"}"\n[[agents]]\nkind = "llm"\nmodel = "scripted"\n'
            f'base_url = "{server.url}"\nmax_retries = 0\ntimeout_s = 10\n'
        )
        assert main(["bench", "--config", str(toml), "--quiet"]) == 0
    alone, pair = sorted(
        load_results(tmp_path / "out" / "episodes.jsonl"), key=lambda r: r.spec.size
    )
    assert alone.status == pair.status == "ok"
    assert [s[2] for s in alone.agents[0].segments] == ["list_files", "run_tests", "done"]
    assert alone.tokens > 0 and alone.end_reason == "all_done"
    errors = {a.name: a.error for a in pair.agents}
    assert errors["agent_0"] is None and errors["agent_1"]  # the server's 500, recorded
