#!/bin/bash
# Item 3 again, jsonkit over three seeds (session of 2026-12-02): the seed-1 run of phase1
# did not survive its machine, so all three seeds run here, in one queue (the cores were
# shared with other work: see log.txt); then the scripted swarms on jsonkit for the table.
cd "$(dirname "$0")/../.."
. results/learned/common.sh
late() { false; }  # no fixed stop: the queue is sized to fit
for seed in 1 2 3; do
  run train_jsonkit_n8_s$seed --task jsonkit --num-agents 8 --seed $seed --exp-name ppo_n8 --eval-sizes 8 $COMMON
done
echo "$(date -u +%H:%M:%S) start scripted_jsonkit_n8: swarm-envs bench --tasks jsonkit ..." >> $LOG
t0=$(date +%s)
nice -n 15 .venv/bin/swarm-envs bench --tasks jsonkit --agent none --agent claim --agent leader \
    --sizes 8 --seeds 0 1 2 --time-cap 60 --budgets 20 30 40 50 60 --workers 1 \
    --out results/learned/scripted_jsonkit_n8 > results/learned/scripted_jsonkit_n8.log 2>&1
echo "$(date -u +%H:%M:%S) end scripted_jsonkit_n8 rc=$? wall=$(( $(date +%s) - t0 ))s" >> $LOG
