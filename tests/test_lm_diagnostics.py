"""Each multi-role diagnostic moves when its failure is induced on purpose."""

import copy
import math

import numpy as np
import pytest
import torch

from swarm_envs.baselines.lm.diagnostics import (
    CollapseDetector,
    agreement_scale,
    grad_norm_shares,
    mean_pairwise_cosine,
    token_shares,
)
from swarm_envs.baselines.lm.learner import Learner, PPOSettings, trainable_parameters
from swarm_envs.baselines.lm.models import ActorCritic
from swarm_envs.baselines.lm.policy import load_causal_lm
from swarm_envs.baselines.lm.rollout import EpisodeRecord, Turn
from swarm_envs.baselines.lm.tiny import build_tiny_model

PAD = 2


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny-lm"), hidden_size=32)


def episode(spec, seed=0):
    """Turns from (agent, role, reply length, reward) tuples; one-turn episodes."""
    rng = np.random.default_rng(seed)
    records = []
    for agent, role, n, reward in spec:
        prompt = rng.integers(10, 400, size=8).tolist()
        reply = rng.integers(10, 400, size=n).tolist()
        t = Turn(agent, role, prompt, reply, [-6.0] * n, 0, 0.0, True, reward=reward)
        records.append(
            EpisodeRecord(
                0, {agent: [t]}, reward, 0.0, "terminated", "all_done", 0, 0, {agent: role}
            )
        )
    return records


def shared_learner(tiny, **settings):
    actor = ActorCritic(load_causal_lm(tiny))
    ref = copy.deepcopy(actor.policy)
    opt = torch.optim.SGD(trainable_parameters({"a": actor}), lr=0.0)
    roles = {"implementer": actor, "reviewer": actor}
    return Learner(roles, opt, PAD, PPOSettings(**settings), {r: ref for r in roles})


def isolated_learner(tiny):
    actors = {r: ActorCritic(load_causal_lm(tiny)) for r in ("implementer", "reviewer")}
    refs = {r: copy.deepcopy(a.policy) for r, a in actors.items()}
    opt = torch.optim.Adam(trainable_parameters(actors), lr=1e-2)
    return Learner(actors, opt, PAD, PPOSettings(), refs)


def sampled_by(learner, records):
    """Store each turn's log-probabilities under its role's current policy as behaviour."""
    for rec in records:
        for turns in rec.turns.values():
            for t in turns:
                fwd = learner.actors[t.role](learner._batch([t], torch.device("cpu")))
                t.behaviour_logprobs = fwd.logprobs.detach().tolist()
    return records


def diag(learner, records):
    turns = learner.advantages(sampled_by(learner, records))
    return learner.diagnose(turns, episode_return=0.0, max_turns=64), turns


def test_token_share_moves_with_a_talkative_role(tiny):
    learner = shared_learner(tiny)
    even, _ = diag(
        learner, episode([("agent_0", "implementer", 4, 1.0), ("agent_1", "reviewer", 4, 1.0)])
    )
    skew, _ = diag(
        learner, episode([("agent_0", "implementer", 4, 1.0), ("agent_1", "reviewer", 28, 1.0)])
    )
    assert even["roles/reviewer/token_share"] == pytest.approx(0.5)
    assert skew["roles/reviewer/token_share"] == pytest.approx(28 / 32)
    assert token_shares({"a": 0, "b": 0}) == {"a": 0.0, "b": 0.0}


def test_grad_share_moves_when_one_role_dominates_the_gradient(tiny):
    learner = shared_learner(tiny)
    base = [("agent_0", "implementer", 6, 1.0), ("agent_1", "implementer", 6, -1.0),
            ("agent_2", "reviewer", 6, 1.0), ("agent_3", "reviewer", 6, -1.0)]  # fmt: skip
    calm, _ = diag(learner, episode(base))
    loud = [(a, r, n, x * (50.0 if r == "reviewer" else 1.0)) for a, r, n, x in base]
    dominated, _ = diag(learner, episode(loud))
    assert 0.2 < calm["roles/reviewer/grad_norm_share"] < 0.8
    assert dominated["roles/reviewer/grad_norm_share"] > 0.9
    assert dominated["roles/reviewer/grad_norm_share"] > calm["roles/reviewer/grad_norm_share"]
    assert grad_norm_shares({"a": torch.zeros(3)}) == {"a": 0.0}


def test_role_balanced_weights_remedy_a_dominant_role(tiny):
    spec = [("agent_0", "implementer", 2, 1.0), ("agent_1", "reviewer", 30, 1.0)]
    plain = shared_learner(tiny)
    balanced = shared_learner(tiny, role_balanced=True)
    for learner in (plain, balanced):
        learner.optimizer.param_groups[0]["lr"] = 0.0
    recs = sampled_by(plain, episode(spec))
    turns = plain.advantages(recs)
    balanced.advantages(recs)
    balanced.targets = plain.targets
    # Both update once; the balanced one weighs the reviewer's 30 tokens like the 2 others.
    grads = {}
    for name, learner in (("plain", plain), ("balanced", balanced)):
        learner.update(turns)
        actor = learner.actors["implementer"]
        grads[name] = torch.cat(
            [p.grad.reshape(-1) for p in actor.trainable_parameters() if p.grad is not None]
        )
    assert not torch.allclose(grads["plain"], grads["balanced"])


def test_per_role_entropy_falls_for_the_role_whose_outputs_sharpen(tiny):
    learner = isolated_learner(tiny)
    spec = [("agent_0", "implementer", 5, 0.0), ("agent_1", "reviewer", 5, 0.0)]
    before, _ = diag(learner, episode(spec))
    # Induce: the reviewer's policy becomes near-deterministic (it only ever writes one thing).
    rev = learner.actors["reviewer"].policy
    with torch.no_grad():
        rev.get_output_embeddings().weight.mul_(60.0)
    after, _ = diag(learner, episode(spec))
    assert after["roles/reviewer/entropy"] < 0.5 * before["roles/reviewer/entropy"]
    assert after["roles/implementer/entropy"] == pytest.approx(
        before["roles/implementer/entropy"], rel=1e-5
    )


def test_kl_to_initial_policy_rises_for_the_role_that_drifts(tiny):
    learner = isolated_learner(tiny)
    spec = [("agent_0", "implementer", 5, 2.0), ("agent_1", "reviewer", 5, 0.0)]
    before, turns = diag(learner, episode(spec))
    assert before["roles/implementer/kl_init"] == pytest.approx(0.0, abs=1e-6)
    impl_turns = [t for t in turns if t.role == "implementer"]
    for _ in range(10):  # train the implementer only
        learner.update(impl_turns)
    after, _ = diag(learner, episode(spec))
    assert after["roles/implementer/kl_init"] > 1e-3
    assert after["roles/reviewer/kl_init"] == pytest.approx(0.0, abs=1e-6)


def test_agreement_of_same_role_agents_detects_an_echo_chamber(tiny):
    learner = isolated_learner(tiny)
    # Independent samples: each implementer saw different prompts and replies.
    indep, _ = diag(learner, episode([("agent_0", "implementer", 6, 1.0), ("agent_1", "implementer", 6, -1.0),
                                      ("agent_2", "reviewer", 6, 1.0)]))  # fmt: skip
    # Echo chamber: the implementers produce the same text and are rewarded the same way.
    recs = episode([("agent_0", "implementer", 6, 1.0), ("agent_2", "reviewer", 6, 1.0)])
    twin = copy.deepcopy(recs[0])
    (t,) = twin.turns.pop("agent_0")
    t.agent = "agent_1"
    twin.turns = {"agent_1": [t]}
    twin.roles = {"agent_1": "implementer"}
    echo, _ = diag(learner, [*recs, twin])
    assert echo["isolated/implementer/grad_cosine"] == pytest.approx(1.0, abs=1e-4)
    assert indep["isolated/implementer/grad_cosine"] < 0.9
    assert echo["isolated/implementer/grad_scale"] == pytest.approx(1 / math.sqrt(2), rel=1e-3)
    assert "isolated/reviewer/grad_cosine" not in echo  # one reviewer: nobody to agree with


def test_mean_pairwise_cosine_and_agreement_scale():
    e = torch.eye(3)
    assert mean_pairwise_cosine([e[0], e[1], e[2]]) == pytest.approx(0.0)
    assert mean_pairwise_cosine([e[0], 2 * e[0]]) == pytest.approx(1.0)
    assert math.isnan(mean_pairwise_cosine([e[0]]))
    assert agreement_scale(4, 1.0) == pytest.approx(0.5)
    assert agreement_scale(4, -0.5) == 1.0 and agreement_scale(1, 1.0) == 1.0


def test_collapse_detector_needs_entropy_and_return_falling_together():
    falling = [5.0 - 0.4 * k for k in range(8)]
    flat = [1.0] * 8
    rising = [1.0 + 0.3 * k for k in range(8)]
    for ent, ret, expected in (
        (falling, falling, True),
        (falling, rising, False),
        (flat, falling, False),
    ):
        d = CollapseDetector(window=8)
        flags = [d.update("r", e, r) for e, r in zip(ent, ret, strict=True)]
        assert flags[-1] is expected
        assert not any(flags[:-1])  # never before the window is full
    d = CollapseDetector(window=4)
    for e, r in zip(falling, falling, strict=False):
        d.update("r", e, r)
    restored = CollapseDetector(window=4)
    restored.load_state_dict(d.state_dict())
    assert restored.update("r", 0.0, -10.0) is True
    with pytest.raises(ValueError):
        CollapseDetector(window=2)


@pytest.mark.slow
def test_collapse_flag_is_logged_for_isolated_roles(tiny):
    learner = isolated_learner(tiny)
    spec = [("agent_0", "implementer", 5, 0.0), ("agent_1", "reviewer", 5, 0.0)]
    turns = learner.advantages(episode(spec))
    flags = []
    for k in range(8):  # an echo chamber's collapse: entropy and return fall together
        with torch.no_grad():
            learner.actors["implementer"].policy.get_output_embeddings().weight.mul_(1.5)
        flags.append(
            learner.diagnose(turns, episode_return=10.0 - k)["isolated/implementer/collapse"]
        )
    assert flags[-1] == 1.0 and flags[0] == 0.0
