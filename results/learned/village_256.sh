#!/bin/bash
# Item 4 at 256 agents: one held-out episode of the 8-agent jsonkit policy (nice 19, beside
# the other queues, started early because its cost was unknown; village.sh's own 256 run
# is then skipped).
cd "$(dirname "$0")/../.."
. results/learned/common.sh
ARGS="--task jsonkit --num-updates 0 --eval-episodes 1 --num-envs 1 --eval-time-cap 60 --threads 1 --runs-dir runs/learned --eval-sizes 256 --resume $(ckpt jsonkit ppo_n8 1) --eval-out results/learned/village_ppo_n8_256.json"
echo "$(date -u +%H:%M:%S) start village_ppo_n8_256: swarm-envs train $ARGS" >> $LOG
t0=$(date +%s)
nice -n 19 .venv/bin/swarm-envs train $ARGS > results/learned/village_ppo_n8_256.log 2>&1
echo "$(date -u +%H:%M:%S) end village_ppo_n8_256 rc=$? wall=$(( $(date +%s) - t0 ))s" >> $LOG
