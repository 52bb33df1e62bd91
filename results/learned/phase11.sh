#!/bin/bash
# Item 3, which change does the work at 24 updates (session of 2026-12-02, late): each of
# the two changes alone, with phase10.sh's sizes (24 updates x 4 rollouts, caps 20 -> 60 s,
# 8 agents, seeds 1-3, 8 held-out episodes). Two queues, one core each:
#   bash phase11.sh dep      bash phase11.sh attr
cd "$(dirname "$0")/../.."
. results/learned/common.sh
late() { false; }  # no fixed stop: the queue is sized to fit
LONG="--num-envs 4 --num-updates 24 --time-cap 20 --time-cap-end 60 --threads 1 --runs-dir runs/learned --eval-episodes 8"
case $1 in
  dep) name=dep_u24; extra="--dependency-feature" ;;
  attr) name=attr_u24; extra="--credit attributed" ;;
  *) echo "usage: phase11.sh dep|attr" >&2; exit 2 ;;
esac
echo "# session of 2026-12-02 (late): phase11.sh $1" >> $LOG
for seed in 1 2 3; do
  run train_jsonkit_n8_${name}_s$seed --task jsonkit --num-agents 8 --seed $seed --exp-name ppo_n8_$name \
      --eval-sizes 8 $extra $LONG
done
