#!/bin/bash
# Starts a private one-node Slurm (munged, slurmctld, slurmd) whose state, logs,
# sockets and key all live under DIR, so it touches nothing of a system Slurm.
#   tests/slurm/setup.sh DIR     then   export SLURM_CONF=DIR/slurm.conf
# Exit 0: the node is idle and takes jobs. Exit 77: cannot run here (the reason on
# stderr: not root, a binary missing). Exit 1: a daemon failed (its log is printed).
# tests/slurm/teardown.sh DIR stops what this started (also after a failure).
set -u
dir=${1:?usage: setup.sh DIR}
skip() { echo "SKIP: $*" >&2; exit 77; }
fail() {
  echo "FAIL: $*" >&2
  for f in "$dir"/log/*.log; do [ -s "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }; done
  exit 1
}

[ "$(id -u)" = 0 ] || skip "the private Slurm needs root (slurmd starts tasks as any user)"
sbin=/usr/sbin
for b in $sbin/munged $sbin/slurmctld $sbin/slurmd srun sinfo scontrol mungekey; do
  command -v "$b" >/dev/null 2>&1 || [ -x "$b" ] || skip "$b is not installed (apt-get install slurm-wlm munge)"
done
plugins=$(dirname "$(ls /usr/lib/*/slurm-wlm/mpi_pmi2.so /usr/lib/slurm/mpi_pmi2.so 2>/dev/null | head -n1)")
[ -n "$plugins" ] && [ "$plugins" != . ] || skip "Slurm's mpi_pmi2 plugin is not installed"

mkdir -p "$dir"/{log,state,spool,run,munge} || fail "cannot create $dir"
dir=$(cd "$dir" && pwd)
chmod 0700 "$dir/munge"

# munged refuses keys and sockets that others could touch; everything is root's.
mungekey --create --keyfile="$dir/munge/munge.key" --force >/dev/null 2>&1 ||
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 0400 "$dir/munge/munge.key"
$sbin/munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munge.seed" --force >/dev/null 2>&1 || fail "munged did not start"

# Two free TCP ports for slurmctld and slurmd (a system Slurm may hold 6817/6818).
read -r ctld_port slurmd_port < <(python3 - <<'PY'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
PY
)
[ -n "${slurmd_port:-}" ] || fail "no free ports"
host=$(hostname -s)
cpus=$(nproc)
cat > "$dir/slurm.conf" <<CONF
ClusterName=interlace-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/slurmd-%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PluginDir=$plugins
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=FORCE:8
CONF
echo "$dir/slurm.conf" > "$dir/conf.path"
export SLURM_CONF=$dir/slurm.conf

$sbin/slurmctld -i -f "$SLURM_CONF" >/dev/null 2>&1 || fail "slurmctld did not start"
$sbin/slurmd -f "$SLURM_CONF" -N "$host" >/dev/null 2>&1 || fail "slurmd did not start"

# The node registers within a few seconds; 60 s covers a loaded machine.
for _ in $(seq 120); do
  state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null | head -n1)
  case "$state" in
    idle*|mixed*) echo "slurm up: node $host ($cpus CPUs), SLURM_CONF=$SLURM_CONF"; exit 0 ;;
  esac
  sleep 0.5
done
fail "node $host did not become idle (last state: '${state:-none}')"
