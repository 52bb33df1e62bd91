#!/bin/bash
# The training queue after phase2.sh (stopped after its first run, structkit seed 1, to
# run the village evaluations beside it in village.sh): item 4's runs, then seeds 2 and 3.
cd "$(dirname "$0")/../.."
. results/learned/common.sh
T=$1; T0=$2
while kill -0 $T 2>/dev/null; do sleep 5; done
echo "$(date -u +%H:%M:%S) end train_structkit_n8_s1 wall=$(( $(date +%s) - T0 ))s" >> $LOG
run train_jsonkit_n4_s1 --task jsonkit --num-agents 4 --seed 1 --exp-name ppo_n4 --eval-sizes 4 $COMMON
run train_jsonkit_n4to16_s1 --task jsonkit --num-agents 4 --num-agents-end 16 --num-agents-kind geometric --seed 1 --exp-name ppo_n4to16 --eval-sizes 16 $COMMON
for seed in 2 3; do
  for task in jsonkit structkit; do
    run train_${task}_n8_s$seed --task $task --num-agents 8 --seed $seed --exp-name ppo_n8 --eval-sizes 8 $COMMON
  done
done
