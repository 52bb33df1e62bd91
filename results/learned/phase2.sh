#!/bin/bash
# phase1.sh reordered after its first run (jsonkit seed 1): item 4's runs and the village
# evaluations before the seeds 2 and 3 of item 3, so that both items have results in time.
cd "$(dirname "$0")/../.."
LOG=results/learned/log.txt
T=$1; T0=$2  # the running train process of phase1.sh, and its start (epoch seconds)
while kill -0 $T 2>/dev/null; do sleep 5; done
echo "$(date -u +%H:%M:%S) end train_jsonkit_n8_s1 wall=$(( $(date +%s) - T0 ))s" >> $LOG
late() { [ "$(date -u +%H%M)" -ge 1250 ] && echo "$(date -u +%H:%M:%S) $1 not started: too late" >> $LOG; }
run() {  # run NAME ARGS...: one swarm-envs train command, its wall time in the log
  local name=$1; shift
  late $name && return
  echo "$(date -u +%H:%M:%S) start $name: swarm-envs train $*" >> $LOG
  local t0=$(date +%s)
  nice -n 15 .venv/bin/swarm-envs train "$@" > results/learned/$name.log 2>&1
  local rc=$?
  echo "$(date -u +%H:%M:%S) end $name rc=$rc wall=$(( $(date +%s) - t0 ))s" >> $LOG
}
ckpt() { ls runs/learned/swarm/$1-menu-v0__$2__$3__*/checkpoint.pt | tail -1; }
COMMON="--num-envs 4 --num-updates 6 --time-cap 20 --time-cap-end 60 --threads 1 --runs-dir runs/learned --eval-episodes 4"
run train_structkit_n8_s1 --task structkit --num-agents 8 --seed 1 --exp-name ppo_n8 --eval-sizes 8 $COMMON
run train_jsonkit_n4_s1 --task jsonkit --num-agents 4 --seed 1 --exp-name ppo_n4 --eval-sizes 4 $COMMON
run train_jsonkit_n4to16_s1 --task jsonkit --num-agents 4 --num-agents-end 16 --num-agents-kind geometric --seed 1 --exp-name ppo_n4to16 --eval-sizes 16 $COMMON
VILLAGE="--task jsonkit --num-updates 0 --eval-sizes 4 8 16 32 64 --eval-episodes 2 --num-envs 2 --eval-time-cap 60 --threads 1 --runs-dir runs/learned"
for exp in ppo_n8 ppo_n4 ppo_n4to16; do
  run village_$exp $VILLAGE --resume $(ckpt jsonkit $exp 1) --eval-out results/learned/village_$exp.json
done
for seed in 2 3; do
  for task in jsonkit structkit; do
    run train_${task}_n8_s$seed --task $task --num-agents 8 --seed $seed --exp-name ppo_n8 --eval-sizes 8 $COMMON
  done
done
run village_ppo_n8_256 --task jsonkit --num-updates 0 --eval-sizes 256 --eval-episodes 1 --num-envs 1 --eval-time-cap 60 --threads 1 --runs-dir runs/learned --resume $(ckpt jsonkit ppo_n8 1) --eval-out results/learned/village_ppo_n8_256.json
