#!/bin/bash
# Item 3, a larger budget (session of 2026-12-02, late): at 24 episodes a run the policy
# stays near random (entropy 3.9 of 4.6 nats), so the same comparison with 5.3 times the
# episodes: 16 rollouts an update (calc's batch) x 8 updates = 128 episodes, caps 20 -> 60 s,
# 8 agents, seeds 1-3, for PPO as above and for PPO with both changes (the dependency
# feature and attributed credit); 8 held-out episodes each. Two queues, one core each:
#   bash phase8.sh plain   (after phase6.sh)      bash phase8.sh both   (after phase7.sh)
cd "$(dirname "$0")/../.."
. results/learned/common.sh
late() { false; }  # no fixed stop: the queue is sized to fit
BIG="--num-envs 16 --num-updates 8 --time-cap 20 --time-cap-end 60 --threads 1 --runs-dir runs/learned --eval-episodes 8"
case $1 in
  plain) wait_for untrained_dep_jsonkit_n8; name=b128; extra="" ;;
  both) wait_for village_ppo_n4_256; name=both_b128; extra="--dependency-feature --credit attributed" ;;
  *) echo "usage: phase8.sh plain|both" >&2; exit 2 ;;
esac
echo "# session of 2026-12-02 (late): phase8.sh $1" >> $LOG
for seed in 1 2 3; do
  run train_jsonkit_n8_${name}_s$seed --task jsonkit --num-agents 8 --seed $seed --exp-name ppo_n8_$name \
      --eval-sizes 8 $extra $BIG
done
