#!/bin/bash
# Item 3, what was changed (session of 2026-12-02, late): the two changes the diagnosis
# points to, on jsonkit with the sizes of every run above (8 agents, 6 updates x 4
# rollouts, caps 20 -> 60 s), three seeds each: the dependency feature and attributed
# credit together, then each alone; then the untrained network with the wider
# observation (seed 1's initial weights). Ran beside phase5.sh (one core each).
cd "$(dirname "$0")/../.."
. results/learned/common.sh
late() { false; }  # no fixed stop: the queue is sized to fit
echo "# session of 2026-12-02 (late): phase6.sh" >> $LOG
for variant in "dep_attr --dependency-feature --credit attributed" "attr --credit attributed" "dep --dependency-feature"; do
  set -- $variant
  name=$1; shift
  for seed in 1 2 3; do
    run train_jsonkit_n8_${name}_s$seed --task jsonkit --num-agents 8 --seed $seed --exp-name ppo_n8_$name \
        --eval-sizes 8 "$@" $COMMON
  done
done
run untrained_dep_jsonkit_n8 --task jsonkit --num-updates 0 --eval-sizes 8 --eval-episodes 4 --num-envs 4 \
    --eval-time-cap 60 --seed 1 --exp-name untrained_dep --dependency-feature --threads 1 \
    --runs-dir runs/learned --eval-out results/learned/untrained_dep_jsonkit_n8.json
