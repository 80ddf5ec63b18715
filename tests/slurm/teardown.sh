#!/bin/bash
# Stops the daemons tests/slurm/setup.sh DIR started (by their pid files, nothing
# else), waiting until they are gone, then removes DIR. Safe to run twice or after
# a setup that failed half way.
set -u
dir=${1:?usage: teardown.sh DIR}
[ -d "$dir" ] || exit 0
stop() {  # pid file, daemon name: TERM, then KILL after 10 s
  local f=$1 name=$2 pid
  [ -s "$f" ] || return 0
  pid=$(cat "$f")
  # Only a process that is still this daemon (pids are recycled).
  grep -qs "$name" "/proc/$pid/comm" || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
}
# slurmstepd of a step that outlived srun belongs to slurmd's job: cancel first.
if [ -s "$dir/slurm.conf" ]; then
  SLURM_CONF=$dir/slurm.conf timeout 10 scancel --user=root --quiet 2>/dev/null
fi
stop "$dir/run/slurmd.pid" slurmd
stop "$dir/run/slurmctld.pid" slurmctld
stop "$dir/run/munged.pid" munged
rm -rf "$dir"
