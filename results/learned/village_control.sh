#!/bin/bash
# Item 4's control: the untrained network of seed 1 at the village sizes (nice 19, beside
# the other queues; the same held-out episodes and cap as village.sh).
cd "$(dirname "$0")/../.."
. results/learned/common.sh
late village_untrained && exit
ARGS="$VILLAGE --seed 1 --exp-name untrained --eval-sizes 4 8 16 32 64 --eval-out results/learned/village_untrained.json"
echo "$(date -u +%H:%M:%S) start village_untrained: swarm-envs train $ARGS" >> $LOG
t0=$(date +%s)
nice -n 19 .venv/bin/swarm-envs train $ARGS > results/learned/village_untrained.log 2>&1
echo "$(date -u +%H:%M:%S) end village_untrained rc=$? wall=$(( $(date +%s) - t0 ))s" >> $LOG
