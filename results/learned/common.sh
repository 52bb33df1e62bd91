# What the queues share: the log, one command with its wall time, the 12:50 stop.
LOG=results/learned/log.txt
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
ckpt() { ls runs/learned/swarm/$1-menu-v0__$2__$3__*/checkpoint.pt 2>/dev/null | tail -1; }
wait_for() { while ! grep -q "end $1 " $LOG; do sleep 10; done; }  # a command of the log
COMMON="--num-envs 4 --num-updates 6 --time-cap 20 --time-cap-end 60 --threads 1 --runs-dir runs/learned --eval-episodes 4"
VILLAGE="--task jsonkit --num-updates 0 --eval-episodes 2 --num-envs 2 --eval-time-cap 60 --threads 1 --runs-dir runs/learned"
