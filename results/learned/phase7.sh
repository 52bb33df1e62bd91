#!/bin/bash
# Item 4, what was not started before (session of 2026-12-02, late): the 4-agent and the
# curriculum (4 -> 16) policies of jsonkit seed 1 again (their checkpoints did not survive
# their machine; the runs are deterministic, as seed 1 of ppo_n8 showed), then the sizes
# they were not evaluated at: the curriculum at 4, 8, 32, 64 and 256, the 4-agent policy
# at 256. Restarted by hand when phase5.sh was stopped (see the log).
cd "$(dirname "$0")/../.."
. results/learned/common.sh
late() { false; }  # no fixed stop: the queue is sized to fit
# (was: wait_for untrained_structkit_n8_s3; phase5.sh was stopped, see the log)
echo "# session of 2026-12-02 (late): phase7.sh" >> $LOG
run train_jsonkit_n4_s1 --task jsonkit --num-agents 4 --seed 1 --exp-name ppo_n4 --eval-sizes 4 $COMMON
run train_jsonkit_n4to16_s1 --task jsonkit --num-agents 4 --num-agents-end 16 --num-agents-kind geometric --seed 1 --exp-name ppo_n4to16 --eval-sizes 16 $COMMON
run village_ppo_n4to16 $VILLAGE --eval-sizes 4 8 32 64 --resume $(ckpt jsonkit ppo_n4to16 1) --eval-out results/learned/village_ppo_n4to16.json
ONE="--task jsonkit --num-updates 0 --eval-episodes 1 --num-envs 1 --eval-time-cap 60 --threads 1 --runs-dir runs/learned --eval-sizes 256"
run village_ppo_n4to16_256 $ONE --resume $(ckpt jsonkit ppo_n4to16 1) --eval-out results/learned/village_ppo_n4to16_256.json
run village_ppo_n4_256 $ONE --resume $(ckpt jsonkit ppo_n4 1) --eval-out results/learned/village_ppo_n4_256.json
