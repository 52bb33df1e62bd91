#!/bin/bash
# train_structkit_n8_s1 took 47 min for its 6 updates (load 6-8): it is stopped once its
# final checkpoint is written, so that the training queue goes on, and its held-out
# evaluation (8 agents, 4 episodes, 60 s, as every run's) runs here at nice 19 instead.
cd "$(dirname "$0")/../.."
. results/learned/common.sh
T=$1
DIR=$(ls -d runs/learned/swarm/structkit-menu-v0__ppo_n8__1__* | tail -1)
while [ ! -f $DIR/checkpoint.pt ]; do sleep 3; done
sleep 2
kill $T
echo "$(date -u +%H:%M:%S) train_structkit_n8_s1 stopped by hand after its final checkpoint (update 6), before its end-of-training evaluation; evaluated below instead" >> $LOG
ARGS="--task structkit --num-updates 0 --eval-sizes 8 --eval-episodes 4 --num-envs 4 --eval-time-cap 60 --threads 1 --runs-dir runs/learned --resume $DIR/checkpoint.pt --eval-out $DIR/eval.json"
echo "$(date -u +%H:%M:%S) start eval_structkit_n8_s1: swarm-envs train $ARGS" >> $LOG
t0=$(date +%s)
nice -n 19 .venv/bin/swarm-envs train $ARGS > results/learned/eval_structkit_n8_s1.log 2>&1
echo "$(date -u +%H:%M:%S) end eval_structkit_n8_s1 rc=$? wall=$(( $(date +%s) - t0 ))s" >> $LOG
