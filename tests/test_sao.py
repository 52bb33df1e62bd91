"""SAO: strict two-sided clipping, ratios against behaviour log-probs, staleness pacing."""

import threading
import time

import pytest
import torch

from swarm_envs.baselines.lm.maths import policy_loss
from swarm_envs.baselines.lm.sao import AsyncRollouts, StalenessGate, WeightStore, snapshot

EPS = 0.2


def _grads(ratios, advantages, mode):
    behaviour = torch.zeros(len(ratios))
    logprobs = torch.log(torch.tensor(ratios)).requires_grad_(True)
    loss, stats = policy_loss(
        logprobs, behaviour, torch.tensor(advantages), eps_low=EPS, eps_high=EPS, mode=mode
    )
    loss.backward()
    return logprobs.grad, stats


# Ratios below, inside and above [0.8, 1.2], each with a positive and a negative advantage.
RATIOS = [0.5, 0.5, 1.0, 1.0, 1.5, 1.5]
ADVS = [1.0, -1.0, 1.0, -1.0, 1.0, -1.0]


def test_two_sided_clip_stops_gradient_outside_whatever_the_sign():
    grad, stats = _grads(RATIOS, ADVS, "two_sided")
    assert grad[0] == 0 and grad[1] == 0  # below the interval: no gradient, either sign
    assert grad[4] == 0 and grad[5] == 0  # above the interval: no gradient, either sign
    assert grad[2] < 0 and grad[3] > 0  # inside: the policy gradient (loss = -A * ratio)
    assert stats["clipfrac_low"] == pytest.approx(2 / 6)
    assert stats["clipfrac_high"] == pytest.approx(2 / 6)
    assert stats["clipfrac"] == pytest.approx(4 / 6)


def test_ppo_clip_is_one_sided():
    grad, _ = _grads(RATIOS, ADVS, "ppo")
    # PPO keeps the gradient that moves a ratio back toward the interval:
    assert grad[0] != 0  # ratio 0.5, A > 0: raising it is allowed
    assert grad[5] != 0  # ratio 1.5, A < 0: lowering it is allowed
    assert grad[1] == 0 and grad[4] == 0  # pushing further out is clipped
    two, _ = _grads(RATIOS, ADVS, "two_sided")
    assert two[0] == 0 and two[5] == 0  # SAO drops those too


def test_asymmetric_bounds():
    logprobs = torch.log(torch.tensor([0.85, 1.25])).requires_grad_(True)
    loss, stats = policy_loss(
        logprobs, torch.zeros(2), torch.ones(2), eps_low=0.1, eps_high=0.3, mode="two_sided"
    )
    loss.backward()
    assert stats["clipfrac_low"] == 0.5 and stats["clipfrac_high"] == 0.0
    assert logprobs.grad[0] == 0 and logprobs.grad[1] != 0


def test_ratio_is_taken_against_behaviour_logprobs():
    current = torch.log(torch.tensor([0.3, 0.6])).requires_grad_(True)
    behaviour = torch.log(torch.tensor([0.25, 0.6]))
    _, stats = policy_loss(current, behaviour, torch.ones(2), eps_low=EPS, eps_high=EPS)
    assert stats["ratio_mean"] == pytest.approx((0.3 / 0.25 + 1.0) / 2)
    # A stale sampler whose probability was much lower makes the ratio leave the interval.
    _, stale = policy_loss(current, torch.log(torch.tensor([0.1, 0.6])), torch.ones(2))
    assert stale["clipfrac_high"] == 0.5


def all_waiting(gate: StalenessGate, n: int, deadline_s: float = 60.0) -> None:
    """Poll until `n` workers are blocked at the gate (an event; the deadline is a hang)."""
    end = time.monotonic() + deadline_s
    while gate.waiting() < n:
        assert time.monotonic() < end, f"{gate.waiting()} of {n} workers at the gate"
        time.sleep(0.005)


def test_gate_paces_workers_with_a_fake_learner():
    gate = StalenessGate(episodes_per_update=2, max_staleness=1)
    started, lock = [], threading.Lock()

    def rollout(worker, version):
        with lock:
            started.append(version)
        time.sleep(0.001)
        return version

    workers = AsyncRollouts(rollout, num_workers=3, gate=gate).start()
    try:
        # Version 0 and a bound of 1: (0 + 1 + 1) * 2 = 4 episodes may start, no more.
        got = workers.get(4, timeout=10)
        # Every worker is blocked at the gate: nothing more can start until a publish.
        all_waiting(gate, 3)
        assert len(started) == 4 and gate.started == 4
        assert workers.results.empty()  # workers wait for a fresh policy, nothing is dropped
        # The fake learner consumed 2 and updates: two more may start, with version 1.
        gate.publish(1)
        got += workers.get(2, timeout=10)
        all_waiting(gate, 3)
        assert len(started) == 6
        assert started[-2:] == [1, 1]
        assert sorted(got) == [0, 0, 0, 0, 1, 1]
    finally:
        workers.close()


def test_gate_zero_staleness_is_synchronous():
    gate = StalenessGate(episodes_per_update=3, max_staleness=0)
    assert [gate.acquire(timeout=0.01) for _ in range(3)] == [0, 0, 0]
    assert gate.acquire(timeout=0.01) is None  # must wait for the update
    gate.publish(1)
    assert gate.acquire(timeout=0.01) == 1
    with pytest.raises(ValueError):
        StalenessGate(0, 1)


def test_gate_never_discards_a_long_rollout():
    gate = StalenessGate(episodes_per_update=1, max_staleness=0)
    release = threading.Event()

    def rollout(worker, version):
        release.wait(5)  # a long episode
        return ("long", version)

    workers = AsyncRollouts(rollout, num_workers=1, gate=gate).start()
    try:
        gate.publish(3)  # the learner moved on meanwhile (say, from other workers' data)
        release.set()
        assert workers.get(1, timeout=10) == [("long", 0)]  # delivered, marked with version 0
    finally:
        workers.close()


def test_worker_error_surfaces_in_the_learner():
    gate = StalenessGate(1, 0)

    def rollout(worker, version):
        raise OSError("env broke")

    workers = AsyncRollouts(rollout, 1, gate).start()
    with pytest.raises(RuntimeError, match="worker failed"):
        workers.get(1, timeout=10)
    workers.close()


def test_weight_store_publishes_and_pulls_newer_only():
    learner = torch.nn.Linear(2, 1)
    store = WeightStore()
    store.publish(0, {"p": learner})
    copies = snapshot({"p": learner})
    with torch.no_grad():
        learner.weight.add_(1.0)
    assert not torch.equal(copies["p"].weight, learner.weight)  # a real, independent copy
    assert store.pull(copies, have=0) == 0  # nothing newer
    store.publish(1, {"p": learner})
    assert store.pull(copies, have=0) == 1
    assert torch.equal(copies["p"].weight, learner.weight)
