#!/bin/bash
# Item 4: the jsonkit policies of seed 1, without further training, at other sizes (the
# size each was trained or ended at is in its end-of-training eval.json), beside phase3.sh.
cd "$(dirname "$0")/../.."
. results/learned/common.sh
run village_ppo_n8 $VILLAGE --eval-sizes 4 16 32 64 --resume $(ckpt jsonkit ppo_n8 1) --eval-out results/learned/village_ppo_n8.json
wait_for train_jsonkit_n4_s1
run village_ppo_n4 $VILLAGE --eval-sizes 8 16 32 64 --resume $(ckpt jsonkit ppo_n4 1) --eval-out results/learned/village_ppo_n4.json
wait_for train_jsonkit_n4to16_s1
run village_ppo_n4to16 $VILLAGE --eval-sizes 4 8 32 64 --resume $(ckpt jsonkit ppo_n4to16 1) --eval-out results/learned/village_ppo_n4to16.json
run village_ppo_n8_256 --task jsonkit --num-updates 0 --eval-episodes 1 --num-envs 1 --eval-time-cap 60 --threads 1 --runs-dir runs/learned --eval-sizes 256 --resume $(ckpt jsonkit ppo_n8 1) --eval-out results/learned/village_ppo_n8_256.json
