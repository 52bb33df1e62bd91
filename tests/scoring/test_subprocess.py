"""The naive scorer: a fresh tree and a fresh pytest process per evaluation."""

from __future__ import annotations

from swarm_envs.scoring import make_scorer


def test_subprocess_scorer_no_verdict_when_sandbox_closed(task, sandbox):
    task.materialize(sandbox.root)
    sc = make_scorer(task, sandbox, kind="subprocess")
    sandbox.close()
    r = sc.evaluate()
    assert r.verdict == "no_verdict" and "closed" in (r.error or "")
    sc.close()
