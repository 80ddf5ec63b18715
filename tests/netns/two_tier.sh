#!/usr/bin/env bash
# Two tiers in one job (docs/fabrics.md "Two tiers"): two network namespaces stand
# for two hosts, two ranks in each; the launcher (in the root namespace, serving the
# TcpStore on the bridge) starts ranks 0,1 in ${P}ns1 and 2,3 in ${P}ns2 with
# INTERLACE_HOST set to the namespace's name. Checks that
#   - each rank uses shm for the rank beside it and tcp for the other host's ranks;
#   - the multi-process batteries pass across the mix: p2p, collectives, SMI
#     channels (p2p and collectives), PGAS active messages, OpenSHMEM, MPI;
#   - a lost host (its link cut) gives errors on the other host within bounded time.
#   two_tier.sh BUILD_DIR [PYTHON]     (PYTHON: one that imports interlace; default python3)
# Needs root and `ip`; exits 77 (ctest: skipped) with the reason otherwise.
# TWO_TIER_PREFIX (default tt-) and TWO_TIER_NET (default 10.78.0) name the setup.
set -uo pipefail
build=$(cd "${1:?usage: two_tier.sh BUILD_DIR [PYTHON]}" && pwd)
py=${2:-python3}
skip() { echo "two_tier.sh: SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to create network namespaces (CI runs as root)"
command -v ip >/dev/null || skip "the ip command (iproute2) is not installed"
"$py" -c "import interlace._core" 2>/dev/null || skip "$py cannot import interlace._core (pip install . first)"
P=${TWO_TIER_PREFIX:-tt-} NET=${TWO_TIER_NET:-10.78.0}
BR=${P}br NS1=${P}ns1 NS2=${P}ns2

teardown() {
  for i in 1 2; do
    ip link del "${P}v$i" 2>/dev/null
    ip netns del "${P}ns$i" 2>/dev/null
  done
  ip link del "$BR" 2>/dev/null
  return 0
}
teardown
trap teardown EXIT
ip netns add "$NS1" 2>/dev/null || skip "cannot create a network namespace (not permitted here)"
ip netns add "$NS2"
ip link add "$BR" type bridge && ip addr add "$NET.1/24" dev "$BR" && ip link set "$BR" up || exit 1
for i in 1 2; do
  ns=${P}ns$i
  ip link add "${P}v$i" type veth peer name "${P}w$i" || exit 1
  ip link set "${P}w$i" netns "$ns"
  ip link set "${P}v$i" master "$BR"
  ip link set "${P}v$i" up
  ip -n "$ns" addr add "$NET.$((i + 1))/24" dev "${P}w$i"
  ip -n "$ns" link set "${P}w$i" up
  ip -n "$ns" link set lo up
done

fails=0
# run NAME EXPECT [ENV=VALUE...] -- PROGRAM ARGS: 4 ranks over the two namespaces.
run() {
  local name=$1 expect=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local out rc
  out=$(env "${envs[@]}" timeout 200 "$py" -m interlace run --hosts "$NS1,$NS2" --rsh "ip netns exec {host}" \
        --store-addr "$NET.1" -n 4 --timeout 180 "$@" 2>&1)
  rc=$?
  if [ $rc -eq 0 ] && grep -qF -- "$expect" <<<"$out"; then
    echo "two_tier.sh: ok   $name"
  else
    echo "two_tier.sh: FAIL $name (exit $rc; expected '$expect')"
    sed 's/^/    /' <<<"$out" | tail -40
    fails=$((fails + 1))
  fi
  LAST_OUT=$out
}

# The choice per peer, as each rank logs it (INTERLACE_LOG=info).
run "p2p battery, tiers logged" "p2p_check OK on 4 ranks (shm+tcp)" INTERLACE_LOG=info -- \
  "$build/tests/multiproc/p2p_check"
for want in "fabric shm+tcp on host $NS1: shm to rank 1, tcp to ranks 2-3" \
            "fabric shm+tcp on host $NS1: shm to rank 0, tcp to ranks 2-3" \
            "fabric shm+tcp on host $NS2: tcp to ranks 0-1, shm to rank 3" \
            "fabric shm+tcp on host $NS2: tcp to ranks 0-1, shm to rank 2"; do
  if grep -qF -- "$want" <<<"$LAST_OUT"; then
    echo "two_tier.sh: ok   logged '$want'"
  else
    echo "two_tier.sh: FAIL no log line '$want'"
    fails=$((fails + 1))
  fi
done
# The same job named explicitly.
run "p2p battery, INTERLACE_FABRIC=shm+tcp" "p2p_check OK on 4 ranks (shm+tcp)" INTERLACE_FABRIC=shm+tcp -- \
  "$build/tests/multiproc/p2p_check"
run "collectives" "coll_check OK on 4 ranks" -- "$build/tests/multiproc/coll_check"
run "SMI channels" "smi_check OK on 4 ranks (battery)" -- "$build/tests/multiproc/smi_check"
run "SMI collectives" "smi_coll_check OK on 4 ranks" -- "$build/tests/multiproc/smi_coll_check"
for prog in "$build"/tests/pgas_c/*; do
  [ -x "$prog" ] && [ -f "$prog" ] || continue
  run "PGAS $(basename "$prog")" "OK $(basename "$prog")" -- "$prog"
done
for name in amo coll memory rma_typed locks ordering; do
  [ -x "$build/tests/shmem/$name" ] || { echo "two_tier.sh: FAIL tests/shmem/$name not built"; fails=$((fails + 1)); continue; }
  run "OpenSHMEM $name" "OK $name" -- "$build/tests/shmem/$name"
done
for name in conf_p2p conf_coll conf_icoll conf_win_fence conf_win_passive conf_comm; do
  [ -x "$build/tests/mpi/$name" ] || { echo "two_tier.sh: FAIL tests/mpi/$name not built"; fails=$((fails + 1)); continue; }
  run "MPI $name" "OK $name" -- "$build/tests/mpi/$name"
done
# The network tier over ucx (UCX's tcp transport over the namespaces' links), where the
# build has the ucx fabric.
if grep -q "^UCX_FOUND:INTERNAL=1" "$build/CMakeCache.txt" 2>/dev/null; then
  run "p2p battery, shm+ucx" "p2p_check OK on 4 ranks (shm+ucx)" INTERLACE_FABRIC=shm+ucx UCX_TLS=tcp -- \
    "$build/tests/multiproc/p2p_check"
  run "collectives, shm+ucx" "coll_check OK on 4 ranks" INTERLACE_FABRIC=shm+ucx UCX_TLS=tcp -- \
    "$build/tests/multiproc/coll_check"
else
  echo "two_tier.sh: skip shm+ucx (the build in $build has no ucx fabric)"
fi

# A lost host: once every rank is under way in a loop of allreduces, ${P}ns2's link
# goes down; ranks 0 and 1 must fail within INTERLACE_TIMEOUT (10 s) plus slack, not
# hang (tcp has no keep-alive: a silent host is found by the operation timeout).
log=$(mktemp)
INTERLACE_TIMEOUT=10 timeout 150 "$py" -m interlace run --hosts "$NS1,$NS2" --rsh "ip netns exec {host}" \
  --store-addr "$NET.1" -n 4 --timeout 140 --grace 20 "$build/tests/netns/tier_loop" 120 >"$log" 2>&1 &
job=$!
for _ in $(seq 600); do
  [ "$(grep -c 'running$' "$log")" -ge 4 ] && break
  kill -0 $job 2>/dev/null || break
  sleep 0.1
done
ip link set "${P}v2" down
t0=$(date +%s)
wait $job
rc=$?
took=$(( $(date +%s) - t0 ))
out=$(cat "$log")
rm -f "$log"
seen=0
for r in 0 1; do grep -q "tier_loop rank $r on $NS1: error after" <<<"$out" && seen=$((seen + 1)); done
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $seen -eq 2 ] && [ $took -lt 60 ]; then
  echo "two_tier.sh: ok   lost host: both ranks on $NS1 failed, the job ended ${took} s after the cut"
else
  echo "two_tier.sh: FAIL lost host (exit $rc ${took} s after the cut, $seen of 2 error lines from $NS1)"
  sed 's/^/    /' <<<"$out" | tail -20
  fails=$((fails + 1))
fi

[ $fails -eq 0 ] && echo "two_tier.sh: PASS" || echo "two_tier.sh: FAIL ($fails)"
[ $fails -eq 0 ]
