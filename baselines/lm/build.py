"""What the trainer and its rollout workers build alike from a run's `Args`.

The options of the run's environments (`env_config`) and its policies (`build_actors`:
shared, isolated per role, LoRA adapters, KL references). The learner (`train`), the
asynchronous workers (`collect`) and the Ray actors (`remote`) all build from here, so
none of them imports another to get at it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from swarm_envs.baselines.lm.train import Args


def env_config(args: Args) -> dict[str, Any]:
    """The options of the run's environments: `env_kwargs`, the cap, the roles."""
    kw: dict[str, Any] = {**args.env_kwargs, "num_agents": args.num_agents}
    kw["time_cap_s"] = args.time_cap
    if args.roles:
        kw["roles"] = dict(args.roles)
    if args.role_tools:
        kw["role_tools"] = {r: list(t) for r, t in args.role_tools.items()}
    return kw


def build_actors(args: Args, device, roles: Sequence[str]):
    """Role -> ActorCritic, and role -> KL reference, for the chosen sharing scheme."""
    import torch

    from swarm_envs.baselines.lm.models import ActorCritic
    from swarm_envs.baselines.lm.policy import load_causal_lm

    def value_backbone():
        if args.value != "model":
            return None
        from transformers import AutoModel

        path = args.value_model or args.model
        return AutoModel.from_pretrained(path, local_files_only=True, dtype=torch.float32).to(
            device
        )

    def lora(model, names: Sequence[str]):
        from peft import LoraConfig, get_peft_model

        cfg = LoraConfig(
            r=args.lora_rank, lora_alpha=2 * args.lora_rank, target_modules="all-linear",
            lora_dropout=0.0, task_type="CAUSAL_LM",
        )  # fmt: skip
        peft_model = get_peft_model(model, cfg, adapter_name=names[0])
        for n in names[1:]:
            peft_model.add_adapter(n, cfg)
        return peft_model

    def frozen(model):
        ref = copy.deepcopy(model).eval()
        for p in ref.parameters():
            p.requires_grad_(False)
        return ref

    def prepare(model):
        if args.gradient_checkpointing:
            model.gradient_checkpointing_enable()
            model.config.use_cache = False
        return model

    actors, refs = {}, {}
    if args.policies == "shared":
        base = prepare(load_causal_lm(args.model, device=device))
        ref = frozen(base) if args.kl_reference and not args.lora else None
        policy = lora(base, ["default"]) if args.lora else base
        actor = ActorCritic(policy, value_backbone(), "default" if args.lora else None)
        for r in roles:
            actors[r] = actor
            if args.lora or ref is not None:
                refs[r] = ref  # None: the LoRA base, adapters off
    elif args.lora:  # isolated adapters on one base
        base = prepare(load_causal_lm(args.model, device=device))
        policy = lora(base, list(roles))
        for r in roles:
            actors[r] = ActorCritic(policy, None, r)
            refs[r] = None
    else:
        for r in roles:
            base = prepare(load_causal_lm(args.model, device=device))
            if args.kl_reference:
                refs[r] = frozen(base)
            actors[r] = ActorCritic(base, value_backbone())
    return actors, refs
