#!/bin/bash
# ctest slurm_bootstrap: interlace bootstraps through PMIx and PMI-2 under a real
# Slurm started here (setup.sh), and through PMIx under Open MPI's mpirun.
#   tests/slurm/run.sh path/to/launcher_check [path/to/launcher_mpi]
# Exit 0: all passed; 1: a run failed; 77: skipped (the reason is printed).
# The private Slurm is stopped on every exit path (trap). About 10 s; at most ~4 min
# when every run hangs (25 s each).
set -u
check=${1:?usage: run.sh LAUNCHER_CHECK [LAUNCHER_MPI]}
mpi=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/interlace-slurm.XXXXXX") || exit 1
child=
trap '"$here/teardown.sh" "$dir"' EXIT
# A signal ends the command under test too, then the EXIT trap tears Slurm down.
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; exit 130' INT TERM HUP

# Variables of an enclosing launcher would win over the one under test.
unset INTERLACE_RANK INTERLACE_SIZE INTERLACE_STORE INTERLACE_JOB_ID INTERLACE_BOOTSTRAP \
      INTERLACE_LOCAL_RANK INTERLACE_LOCAL_SIZE INTERLACE_HOST INTERLACE_SECRET

"$here/setup.sh" "$dir"
rc=$?
if [ $rc -ne 0 ]; then
  echo "SKIP: no private Slurm on this machine (setup.sh exit $rc; the reason is above)"
  exit 77
fi
export SLURM_CONF=$dir/slurm.conf

failed=0
# run NAME EXPECTED-LINE COMMAND...: passes when the command exits 0 and prints the line.
run() {
  local name=$1 expect=$2
  shift 2
  local out rc
  # In the background so that a signal to this script is handled at once (wait
  # returns), not when the command ends. Each run takes about a second here.
  timeout -k 5 25 "$@" >"$dir/out" 2>&1 &
  child=$!
  wait "$child"
  rc=$?
  child=
  out=$(cat "$dir/out")
  if [ $rc -eq 0 ] && grep -qF "$expect" <<<"$out"; then
    echo "PASS $name: $(grep -F "$expect" <<<"$out" | head -n1)"
  else
    echo "FAIL $name (exit $rc): $*"
    sed 's/^/    /' <<<"$out" | tail -n 40
    failed=$((failed + 1))
  fi
}
# -O: 4 tasks on however few CPUs this machine has; -K: a failing rank ends the step.
srun_n=(srun -O -K -t 2)

run "srun --mpi=pmix check" "launcher_check OK on 4 ranks via pmix" "${srun_n[@]}" --mpi=pmix -n 4 "$check" pmix
run "srun --mpi=pmi2 check" "launcher_check OK on 4 ranks via pmi2" "${srun_n[@]}" --mpi=pmi2 -n 4 "$check" pmi2
# Without the clients (INTERLACE_BOOTSTRAP=env) the variables still start the job.
run "srun --mpi=pmi2, variables" "launcher_check OK on 2 ranks via pmi" \
  env INTERLACE_BOOTSTRAP=env "${srun_n[@]}" --mpi=pmi2 -n 2 "$check" pmi
if [ -n "$mpi" ]; then
  run "srun --mpi=pmix mpi.h" "launcher_mpi OK on 4 ranks" "${srun_n[@]}" --mpi=pmix -n 4 "$mpi"
  run "srun --mpi=pmi2 mpi.h" "launcher_mpi OK on 4 ranks" "${srun_n[@]}" --mpi=pmi2 -n 4 "$mpi"
fi

# Open MPI's mpirun is a PMIx launcher too (no Slurm involved).
if mpirun --version 2>/dev/null | grep -q "Open MPI"; then
  om=(env -u SLURM_CONF mpirun --allow-run-as-root --oversubscribe -n 2)
  run "mpirun check" "launcher_check OK on 2 ranks via pmix" "${om[@]}" "$check" pmix
  [ -n "$mpi" ] && run "mpirun mpi.h" "launcher_mpi OK on 2 ranks" "${om[@]}" "$mpi"
else
  echo "(Open MPI's mpirun is not installed: its PMIx run is left out)"
fi
[ $failed -eq 0 ] || { echo "$failed launcher run(s) failed"; exit 1; }
echo "slurm_bootstrap: all launcher runs passed"
