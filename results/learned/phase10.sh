#!/bin/bash
# Item 3, more updates (session of 2026-12-02, late): phase8's larger batches bought less
# noisy steps but not more of them (8 updates x 8 epochs x 4 minibatches against 6 x 8 x
# 4), and the policy stayed as close to random. Here the batch of the first runs (4
# rollouts) with 4 times the updates: 24 updates = 96 episodes, caps 20 -> 60 s, 8 agents,
# seeds 1-3, for PPO and for PPO with both changes. Two queues, one core each, each after
# the matching phase8.sh queue:   bash phase10.sh plain      bash phase10.sh both
cd "$(dirname "$0")/../.."
. results/learned/common.sh
late() { false; }  # no fixed stop: the queue is sized to fit
LONG="--num-envs 4 --num-updates 24 --time-cap 20 --time-cap-end 60 --threads 1 --runs-dir runs/learned --eval-episodes 8"
case $1 in
  plain) wait_for train_jsonkit_n8_b128_s3; name=u24; extra="" ;;
  both) wait_for train_jsonkit_n8_both_b128_s3; name=both_u24; extra="--dependency-feature --credit attributed" ;;
  *) echo "usage: phase10.sh plain|both" >&2; exit 2 ;;
esac
echo "# session of 2026-12-02 (late): phase10.sh $1" >> $LOG
for seed in 1 2 3; do
  run train_jsonkit_n8_${name}_s$seed --task jsonkit --num-agents 8 --seed $seed --exp-name ppo_n8_$name \
      --eval-sizes 8 $extra $LONG
done
