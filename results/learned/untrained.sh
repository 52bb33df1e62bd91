#!/bin/bash
# The control of item 3: the untrained policy (the initial network of seed 1), evaluated
# like the trained ones (8 agents, 4 held-out episodes, cap 60 s).
cd "$(dirname "$0")/../.."
LOG=results/learned/log.txt
for task in jsonkit structkit; do
  ARGS="--task $task --num-updates 0 --eval-sizes 8 --eval-episodes 4 --num-envs 4 --eval-time-cap 60 --seed 1 --exp-name untrained --threads 1 --runs-dir runs/learned --eval-out results/learned/untrained_${task}_n8.json"
  echo "$(date -u +%H:%M:%S) start untrained_$task: swarm-envs train $ARGS" >> $LOG
  t0=$(date +%s)
  nice -n 19 .venv/bin/swarm-envs train $ARGS > results/learned/untrained_$task.log 2>&1
  echo "$(date -u +%H:%M:%S) end untrained_$task rc=$? wall=$(( $(date +%s) - t0 ))s" >> $LOG
done
