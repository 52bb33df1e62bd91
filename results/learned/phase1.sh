#!/bin/bash
# Item 3: 8-agent menu-mode PPO, time cap 20 -> 60 s, 6 updates x 4 rollouts, 3 seeds x 2 tasks, each evaluated at
# the end on 4 held-out episodes at 8 agents and the final cap; then item 4's training runs
# on jsonkit: 4 agents, and a size curriculum 4 -> 16.
cd "$(dirname "$0")/../.."
LOG=results/learned/log.txt
run() {  # run NAME ARGS...: one training command, its wall time in the log
  local name=$1; shift
  echo "$(date -u +%H:%M:%S) start $name: swarm-envs train $*" >> $LOG
  local t0=$(date +%s)
  nice -n 15 .venv/bin/swarm-envs train "$@" > results/learned/$name.log 2>&1
  local rc=$?
  echo "$(date -u +%H:%M:%S) end $name rc=$rc wall=$(( $(date +%s) - t0 ))s" >> $LOG
}
COMMON="--num-envs 4 --num-updates 6 --time-cap 20 --time-cap-end 60 --threads 1 --runs-dir runs/learned --eval-episodes 4"
for seed in 1 2 3; do
  for task in jsonkit structkit; do
    run train_${task}_n8_s$seed --task $task --num-agents 8 --seed $seed --exp-name ppo_n8 --eval-sizes 8 $COMMON
  done
done
run train_jsonkit_n4_s1 --task jsonkit --num-agents 4 --seed 1 --exp-name ppo_n4 --eval-sizes 4 $COMMON
run train_jsonkit_n4to16_s1 --task jsonkit --num-agents 4 --num-agents-end 16 --num-agents-kind geometric --seed 1 --exp-name ppo_n4to16 --eval-sizes 16 $COMMON
