"""What a language-model run's configuration must satisfy, checked before anything loads.

`check` fails at start naming the field, its value and the fix: a missing model folder,
unknown roles, batch sizes that do not divide, bounds of the clipping, options that do
not go together (Ray and asynchronous rollouts, isolated LoRA with a value model, vLLM
outside a shared synchronous run). The environment's own options are checked by
building its configuration once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from swarm_envs.baselines import runs
from swarm_envs.baselines.lm.build import env_config
from swarm_envs.core.config import EnvConfig
from swarm_envs.error import ConfigError

if TYPE_CHECKING:
    from swarm_envs.baselines.lm.train import Args


def check(args: Args) -> Args:
    """Fail at start, naming the field, on anything that would fail later."""
    from swarm_envs.baselines.lm.policy import check_model_path

    if runs.on_ray(args) and args.async_rollouts:
        raise ConfigError(
            "async_rollouts: not with --ray / --ray-address (Ray actors collect each "
            "update's episodes in parallel; asynchronous rollouts are threads here)"
        )
    if not args.model:
        raise ConfigError("model: required; give the local folder of a causal LM (--model PATH)")
    check_model_path(args.model, "model")
    if args.value_model is not None:
        check_model_path(args.value_model, "value_model")
    runs.check_run(
        args,
        positive=("episodes_per_update", "rollout_workers", "max_new_tokens",
                  "max_prompt_tokens", "micro_batch_turns", "diag_turns", "lora_rank"),
    )  # fmt: skip
    # The environment checks the roles and the whitelists (its error names the field).
    config = EnvConfig.build(**env_config(args))
    unknown = sorted(set(args.role_prompts) - set(config.agent_roles()))
    if unknown:
        raise ConfigError(
            f"role_prompts: unknown role {unknown[0]!r}; roles are "
            f"{sorted(set(config.agent_roles()))} (set them with --roles)"
        )
    if args.episodes_per_update % args.num_envs:
        raise ConfigError(
            f"episodes_per_update={args.episodes_per_update}: must be a multiple of "
            f"num_envs={args.num_envs} (environments run side by side)"
        )
    if args.async_rollouts and args.episodes_per_update % args.rollout_workers:
        raise ConfigError(
            f"episodes_per_update={args.episodes_per_update}: must be a multiple of "
            f"rollout_workers={args.rollout_workers} in asynchronous mode"
        )
    if args.max_staleness < 0:
        raise ConfigError(f"max_staleness={args.max_staleness}: expected >= 0")
    if not args.temperature > 0:
        raise ConfigError(f"temperature={args.temperature!r}: expected > 0 (sampling)")
    if not 0 < args.eps_low < 1:
        raise ConfigError(f"eps_low={args.eps_low!r}: expected a number in (0, 1)")
    if not 0 < args.eps_high < float("inf"):
        raise ConfigError(f"eps_high={args.eps_high!r}: expected a positive number")
    if args.policies == "isolated" and args.lora and args.value == "model":
        raise ConfigError(
            "value='model' with isolated LoRA policies: per-role adapters share one base; "
            "use value='head' (one head per role) or full fine-tuning"
        )
    if args.engine == "vllm":
        from swarm_envs.baselines.lm.engines import vllm_available

        if not vllm_available():
            raise ConfigError("engine='vllm': needs `pip install vllm` and a CUDA GPU")
        if runs.on_ray(args):
            raise ConfigError("engine='vllm': not with --ray (Ray actors sample on their CPUs)")
        if args.async_rollouts or args.policies == "isolated":
            raise ConfigError(
                "engine='vllm': supported for a shared policy with synchronous rollouts"
            )
    return args
