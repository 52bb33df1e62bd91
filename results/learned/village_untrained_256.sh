#!/bin/bash
# Item 4 at 256 agents: one held-out episode of the untrained network of seed 1 (the control),
# nice 19, beside the other queues.
cd "$(dirname "$0")/../.."
. results/learned/common.sh
ARGS="--task jsonkit --num-updates 0 --eval-episodes 1 --num-envs 1 --eval-time-cap 60 --threads 1 --runs-dir runs/learned --eval-sizes 256 --seed 1 --exp-name untrained --eval-out results/learned/village_untrained_256.json"
echo "$(date -u +%H:%M:%S) start village_untrained_256: swarm-envs train $ARGS" >> $LOG
t0=$(date +%s)
nice -n 19 .venv/bin/swarm-envs train $ARGS > results/learned/village_untrained_256.log 2>&1
echo "$(date -u +%H:%M:%S) end village_untrained_256 rc=$? wall=$(( $(date +%s) - t0 ))s" >> $LOG
