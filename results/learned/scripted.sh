#!/bin/bash
# The scripted swarms of item 3, at the PPO runs' size and final cap, on the same tasks.
cd "$(dirname "$0")/../.."
LOG=results/learned/log.txt
ARGS="--tasks jsonkit structkit --agent none --agent claim --agent leader --sizes 8 --seeds 0 1 2 --time-cap 60 --budgets 20 30 40 50 60 --workers 1 --quiet --out results/learned/scripted_n8"
echo "$(date -u +%H:%M:%S) start scripted_n8: swarm-envs bench $ARGS" >> $LOG
t0=$(date +%s)
nice -n 15 .venv/bin/swarm-envs bench $ARGS > results/learned/scripted_n8.log 2>&1
echo "$(date -u +%H:%M:%S) end scripted_n8 rc=$? wall=$(( $(date +%s) - t0 ))s" >> $LOG
