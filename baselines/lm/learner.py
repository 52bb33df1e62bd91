"""The token-level PPO learner: advantages over agents' turns, clipped updates, diagnostics.

`Learner` holds one `ActorCritic` per role (the same object for every role when the
policy is shared) and one optimizer over all of them. It turns finished episodes into
per-token advantages (`advantages`), runs the PPO/SAO update with gradient
accumulation (`update`), and measures the multi-role failure modes (`diagnose`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
from torch import nn

from swarm_envs.baselines.lm import diagnostics as D
from swarm_envs.baselines.lm.grammar import allowed_tokens
from swarm_envs.baselines.lm.maths import (
    ClipMode,
    kl_to_reference,
    masked_gae,
    normalize,
    policy_loss,
    role_balanced_weights,
    turn_rewards_to_tokens,
    value_loss,
)
from swarm_envs.baselines.lm.models import ActorCritic, pack
from swarm_envs.baselines.lm.rollout import EpisodeRecord, Turn
from swarm_envs.error import TrainingDiverged


@dataclass(frozen=True)
class PPOSettings:
    """The update's hyper-parameters (see `train.Args` for their meaning)."""

    gamma: float = 1.0
    lam: float = 1.0
    eps_low: float = 0.2
    eps_high: float = 0.2
    clip_mode: ClipMode = "two_sided"
    vf_coef: float = 0.5
    vf_clip: float | None = None
    ent_coef: float = 0.0
    epochs: int = 1
    num_minibatches: int = 1
    micro_batch_turns: int = 8
    max_grad_norm: float = 1.0
    temperature: float = 1.0
    normalize_advantages: bool = False
    role_balanced: bool = False
    same_role_scaling: Literal["none", "agreement"] = "none"
    autocast_dtype: torch.dtype | None = None


@dataclass
class _Targets:
    advantages: np.ndarray
    returns: np.ndarray
    values: np.ndarray


class Learner:
    """PPO with SAO options over the turns of LM agents.

    Args:
        actors: role -> its `ActorCritic` (one shared object, or one per role).
        optimizer: over the trainable parameters of every actor.
        pad_token_id: padding token of the batches.
        settings: the update's hyper-parameters.
        references: role -> frozen initial LM for the KL diagnostic (None: a LoRA
            actor's base, with the adapter off); a missing role has no KL diagnostic.
        seed: seed of the minibatch shuffling.
    """

    def __init__(
        self,
        actors: Mapping[str, ActorCritic],
        optimizer: torch.optim.Optimizer,
        pad_token_id: int,
        settings: PPOSettings,
        references: Mapping[str, nn.Module | None] | None = None,
        seed: int = 0,
    ):
        self.actors = dict(actors)
        self.optimizer = optimizer
        self.pad = pad_token_id
        self.s = settings
        self.references = dict(references or {})
        self.rng = np.random.default_rng(seed)
        self.targets: dict[int, _Targets] = {}
        self.role_scale: dict[str, float] = defaultdict(lambda: 1.0)
        self.collapse = D.CollapseDetector()

    @property
    def shared(self) -> bool:
        """One policy acts for every role."""
        return len({id(a) for a in self.actors.values()}) == 1

    def _device(self, role: str) -> torch.device:
        return next(self.actors[role].parameters()).device

    def _autocast(self, device: torch.device):
        dtype = self.s.autocast_dtype
        return torch.autocast(device.type, dtype=dtype, enabled=dtype is not None)

    def _batch(self, turns: Sequence[Turn], device: torch.device):
        batch = pack([t.prompt_ids for t in turns], [t.reply_ids for t in turns], self.pad)
        return _to(batch, device)

    def _target(self, turns: Sequence[Turn], name: str, device: torch.device) -> torch.Tensor:
        flat = np.concatenate([getattr(self.targets[id(t)], name) for t in turns])
        return torch.from_numpy(flat).float().to(device)

    def _allowed(self, turns: Sequence[Turn], device: torch.device) -> torch.Tensor | None:
        # Constrained decoding: the sampler's masks, so the ratio compares masked with masked.
        vocab = self.actors[turns[0].role].policy.get_output_embeddings().weight.shape[0]
        return allowed_tokens(turns, vocab, device) if turns else None

    def _params(self, role: str) -> list[torch.Tensor]:
        self.actors[role].activate()  # peft makes only the active adapter trainable
        return self.actors[role].trainable_parameters()

    # ------------------------------------------------------------------ advantages

    @torch.no_grad()
    def advantages(self, records: Sequence[EpisodeRecord]) -> list[Turn]:
        """Values, advantages and returns of every generated token; returns the turns.

        Per agent and episode, the turns' tokens form one sequence; each turn's reward
        sits on its last token; a truncated episode bootstraps from the value of the
        agent's final state, a terminated one does not.
        """
        turns = [t for r in records for t in r.all_turns()]
        values = self._token_values(turns)
        bootstrap = self._bootstrap_values(records)
        self.targets = {}
        for k, rec in enumerate(records):
            for agent, seq in rec.turns.items():
                if not seq:
                    continue
                v = np.concatenate([values[id(t)] for t in seq])
                r = turn_rewards_to_tokens([len(t.reply_ids) for t in seq], [t.reward for t in seq])
                last = bootstrap.get((k, agent), 0.0)
                adv, ret = masked_gae(
                    r, v, np.ones_like(v, bool), gamma=self.s.gamma, lam=self.s.lam, last_value=last
                )
                at = 0
                for t in seq:
                    n = len(t.reply_ids)
                    self.targets[id(t)] = _Targets(
                        adv[at : at + n], ret[at : at + n], v[at : at + n]
                    )
                    at += n
        return turns

    def _token_values(self, turns: Sequence[Turn]) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        for role, group in _by_role(turns).items():
            actor, device = self.actors[role], self._device(role)
            for chunk in _chunks(group, self.s.micro_batch_turns):
                batch = self._batch(chunk, device)
                with self._autocast(device):
                    values = actor(batch, self.s.temperature).values.double().cpu().numpy()
                at = 0
                for t in chunk:
                    out[id(t)] = values[at : at + len(t.reply_ids)]
                    at += len(t.reply_ids)
        return out

    def _bootstrap_values(self, records: Sequence[EpisodeRecord]) -> dict[tuple[int, str], float]:
        out: dict[tuple[int, str], float] = {}
        for k, rec in enumerate(records):
            for agent, prompt in rec.final_prompts.items():
                role = rec.roles[agent]
                batch = _to(pack([prompt], [[]], self.pad), self._device(role))
                with self._autocast(batch.input_ids.device):
                    out[(k, agent)] = float(self.actors[role].state_values(batch)[0])
        return out

    # ------------------------------------------------------------------ update

    def update(self, turns: Sequence[Turn]) -> dict[str, float]:
        """PPO/SAO epochs over minibatches of turns, with gradient accumulation."""
        s = self.s
        stats: dict[str, list[float]] = defaultdict(list)
        turns = [t for t in turns if t.reply_ids]
        for _ in range(s.epochs):
            order = self.rng.permutation(len(turns))
            for mb_idx in np.array_split(order, min(s.num_minibatches, max(len(turns), 1))):
                mb = [turns[i] for i in mb_idx]
                if mb:
                    self._minibatch(mb, stats)
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        empty = np.zeros(0)
        values = np.concatenate([self.targets[id(t)].values for t in turns]) if turns else empty
        returns = np.concatenate([self.targets[id(t)].returns for t in turns]) if turns else empty
        if len(returns) > 1 and np.var(returns) > 0:
            out["explained_variance"] = float(1 - np.var(returns - values) / np.var(returns))
        return out

    def _minibatch(self, mb: list[Turn], stats: dict[str, list[float]]) -> None:
        s = self.s
        self.optimizer.zero_grad(set_to_none=True)
        role_of = sorted({t.role for t in mb})
        role_id = {r: i for i, r in enumerate(role_of)}
        tokens = torch.tensor([role_id[t.role] for t in mb for _ in t.reply_ids])
        if s.role_balanced:
            w_all = role_balanced_weights(tokens)
        else:
            w_all = torch.ones(len(tokens))
        total_w = float(w_all.sum())
        # Per-token weights in the minibatch's order, handed out micro-batch by micro-batch.
        offsets = np.cumsum([0] + [len(t.reply_ids) for t in mb])
        where = {id(t): k for k, t in enumerate(mb)}
        acc: dict[str, float] = defaultdict(float)
        for role, group in _by_role(mb).items():
            actor, device = self.actors[role], self._device(role)
            scale = self.role_scale[role] if s.same_role_scaling == "agreement" else 1.0
            for chunk in _chunks(group, s.micro_batch_turns):
                batch = self._batch(chunk, device)
                w = torch.cat(
                    [w_all[offsets[where[id(t)]] : offsets[where[id(t)] + 1]] for t in chunk]
                ).to(device)
                adv = self._target(chunk, "advantages", device)
                ret = self._target(chunk, "returns", device)
                old_v = self._target(chunk, "values", device)
                beh = torch.tensor([x for t in chunk for x in t.behaviour_logprobs], device=device)
                if s.normalize_advantages:
                    adv = normalize(adv)
                with self._autocast(device):
                    fwd = actor(batch, s.temperature, self._allowed(chunk, device))
                pg, st = policy_loss(
                    fwd.logprobs,
                    beh,
                    adv,
                    eps_low=s.eps_low,
                    eps_high=s.eps_high,
                    mode=s.clip_mode,
                    weights=w,
                )
                vl = value_loss(fwd.values, ret, old_values=old_v, clip=s.vf_clip, weights=w)
                ent = (fwd.entropy * w).sum() / w.sum()
                share = float(w.sum()) / total_w  # so accumulated micro-batches = one batch
                loss = (pg + s.vf_coef * vl - s.ent_coef * ent) * share * scale
                if not torch.isfinite(loss):
                    raise TrainingDiverged(
                        f"non-finite loss (policy {pg.item():.4g}, value {vl.item():.4g}, "
                        f"entropy {ent.item():.4g}) for role {role!r}; lower lr, or check the "
                        "model's dtype (bf16 autocast needs a GPU that supports it)"
                    )
                loss.backward()
                acc["policy_loss"] += pg.item() * share
                acc["value_loss"] += vl.item() * share
                acc["entropy"] += ent.item() * share
                for k in ("approx_kl", "clipfrac", "clipfrac_low", "clipfrac_high"):
                    acc[k] += st[k] * share
        params = trainable_parameters(self.actors)
        grad_norm = torch.nn.utils.clip_grad_norm_(params, s.max_grad_norm)
        if not torch.isfinite(grad_norm):
            raise TrainingDiverged("non-finite gradient norm; lower lr or use fp32")
        self.optimizer.step()
        for k, v in acc.items():
            stats[k].append(v)
        stats["grad_norm"].append(float(grad_norm))

    # ------------------------------------------------------------------ diagnostics

    def diagnose(
        self, turns: Sequence[Turn], episode_return: float, max_turns: int = 32
    ) -> dict[str, float]:
        """Per-role shares, entropy, KL to the initial policy; agreement and collapse.

        Computed at the current parameters on up to `max_turns` turns (a deterministic
        spread over the batch), with gradients taken by `torch.autograd.grad` so that no
        optimizer state is touched.
        """
        out: dict[str, float] = {}
        counts: Counter[str] = Counter()
        for t in turns:
            counts[t.role] += len(t.reply_ids)
        for r, x in D.token_shares(counts).items():
            out[f"roles/{r}/token_share"] = x
        step = max(len(turns) // max_turns, 1)
        sample = [t for t in list(turns)[::step][:max_turns] if t.reply_ids]
        n_total = sum(len(t.reply_ids) for t in sample)
        grads: dict[str, torch.Tensor] = {}
        by_role = _by_role(sample)
        for role, group in by_role.items():
            actor, device = self.actors[role], self._device(role)
            params = self._params(role)
            per_agent = defaultdict(list)
            for t in group:
                per_agent[t.agent].append(t)
            losses, ents, kls = {}, [], []
            for agent, ts in per_agent.items():
                batch = self._batch(ts, device)
                adv = self._target(ts, "advantages", device)
                beh = torch.tensor([x for t in ts for x in t.behaviour_logprobs], device=device)
                allowed = self._allowed(ts, device)
                with self._autocast(device):
                    fwd = actor(batch, self.s.temperature, allowed)
                pg, _ = policy_loss(
                    fwd.logprobs,
                    beh,
                    adv,
                    eps_low=self.s.eps_low,
                    eps_high=self.s.eps_high,
                    mode=self.s.clip_mode,
                )
                losses[agent] = pg * (len(fwd.logprobs) / max(n_total, 1))
                ents.append(fwd.entropy.detach())
                if role in self.references:
                    ref = actor.reference_logprobs(
                        batch, self.references[role], self.s.temperature, allowed
                    )
                    kls.append(kl_to_reference(fwd.logprobs.detach(), ref))
            entropy = float(torch.cat(ents).mean())
            out[f"roles/{role}/entropy"] = entropy
            if kls:
                out[f"roles/{role}/kl_init"] = float(torch.cat(kls).mean())
            if params:
                grads[role] = D.flat_grad(torch.stack(list(losses.values())).sum(), params)
                if not self.shared and len(losses) >= 2:
                    agent_grads = [D.flat_grad(loss, params) for loss in losses.values()]
                    cos = D.mean_pairwise_cosine(agent_grads)
                    out[f"isolated/{role}/grad_cosine"] = cos
                    self.role_scale[role] = D.agreement_scale(len(agent_grads), cos)
                    out[f"isolated/{role}/grad_scale"] = self.role_scale[role]
            if not self.shared:
                out[f"isolated/{role}/collapse"] = float(
                    self.collapse.update(role, entropy, episode_return)
                )
        for r, x in D.grad_norm_shares(grads).items():
            out[f"roles/{r}/grad_norm_share"] = x
        return out


def _by_role(turns: Sequence[Turn]) -> dict[str, list[Turn]]:
    out: dict[str, list[Turn]] = {}
    for t in turns:
        out.setdefault(t.role, []).append(t)
    return out


def _chunks(items: list, size: int) -> list[list]:
    return [items[k : k + size] for k in range(0, len(items), max(size, 1))]


def _to(batch, device: torch.device):
    batch.input_ids = batch.input_ids.to(device)
    batch.attention_mask = batch.attention_mask.to(device)
    batch.response_mask = batch.response_mask.to(device)
    return batch


def trainable_parameters(actors: Mapping[str, ActorCritic]) -> list[torch.Tensor]:
    """Every trainable parameter of the actors, once each (per-role adapters share a base)."""
    out: dict[int, torch.Tensor] = {}
    for actor in actors.values():
        for p in actor.trainable_parameters():
            out.setdefault(id(p), p)
    return list(out.values())
