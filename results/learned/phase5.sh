#!/bin/bash
# Item 3 again, structkit over three seeds (session of 2026-12-02, late): the seed-1 run of
# phase1 did not survive its machine, so all three seeds run here on an otherwise idle
# machine; then the untrained control for the initial weights of seeds 2 and 3.
cd "$(dirname "$0")/../.."
. results/learned/common.sh
late() { false; }  # no fixed stop: the queue is sized to fit
echo "# session of 2026-12-02 (late): phase5.sh" >> $LOG
for seed in 1 2 3; do
  run train_structkit_n8_s$seed --task structkit --num-agents 8 --seed $seed --exp-name ppo_n8 --eval-sizes 8 $COMMON
done
for task in jsonkit structkit; do
  for seed in 2 3; do
    run untrained_${task}_n8_s$seed --task $task --num-updates 0 --eval-sizes 8 --eval-episodes 4 --num-envs 4 \
        --eval-time-cap 60 --seed $seed --exp-name untrained --threads 1 --runs-dir runs/learned \
        --eval-out results/learned/untrained_s${seed}_${task}_n8.json
  done
done
