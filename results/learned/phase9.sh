#!/bin/bash
# Item 3 again, structkit over three seeds, with the candidates that no longer include a
# mutant that hangs (phase5.sh stopped, see the log): the three seeds, the untrained
# network for the initial weights of each seed, the scripted swarms on structkit (their
# wrong attempts come from the same candidates); then the untrained jsonkit controls of
# seeds 2 and 3 that phase5.sh did not reach.
cd "$(dirname "$0")/../.."
. results/learned/common.sh
late() { false; }  # no fixed stop: the queue is sized to fit
echo "# session of 2026-12-02 (late): phase9.sh" >> $LOG
for seed in 1 2 3; do
  run train_structkit_n8_s$seed --task structkit --num-agents 8 --seed $seed --exp-name ppo_n8 --eval-sizes 8 $COMMON
done
untrained() {  # untrained TASK SEED OUT
  run untrained_$1_n8_s$2 --task $1 --num-updates 0 --eval-sizes 8 --eval-episodes 4 --num-envs 4 \
      --eval-time-cap 60 --seed $2 --exp-name untrained --threads 1 --runs-dir runs/learned --eval-out $3
}
untrained structkit 1 results/learned/untrained_structkit_n8.json
for seed in 2 3; do untrained structkit $seed results/learned/untrained_s${seed}_structkit_n8.json; done
echo "$(date -u +%H:%M:%S) start scripted_structkit_n8: swarm-envs bench --tasks structkit ..." >> $LOG
t0=$(date +%s)
nice -n 15 .venv/bin/swarm-envs bench --tasks structkit --agent none --agent claim --agent leader \
    --sizes 8 --seeds 0 1 2 --time-cap 60 --budgets 20 30 40 50 60 --workers 1 \
    --out results/learned/scripted_structkit_n8 > results/learned/scripted_structkit_n8.log 2>&1
echo "$(date -u +%H:%M:%S) end scripted_structkit_n8 rc=$? wall=$(( $(date +%s) - t0 ))s" >> $LOG
for seed in 2 3; do untrained jsonkit $seed results/learned/untrained_s${seed}_jsonkit_n8.json; done
