#!/bin/bash
# Compressed vs uncompressed allreduce between two network namespaces (two "hosts",
# tcp fabric) whose links are shaped with tc tbf to RATE (default 1gbit), so the
# wire, not the loopback memcpy, is the bottleneck as on a real network.
#   sudo bench/run_compression.sh [RATE] [extra coll_compress_bench args]
# Needs root (ip netns, tc) and a build in $BUILD (default build/). Addresses
# 10.253.0.0/24 are used only inside this machine and removed afterwards.
set -euo pipefail
RATE=${1:-1gbit}
shift || true
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
BIN=$BUILD/bench/coll_compress_bench
[ -x "$BIN" ] || { echo "missing $BIN: build first (cmake --build build --target coll_compress_bench)" >&2; exit 1; }
tag=$$
br=icb$tag
ns=(icm${tag}a icm${tag}b)

cleanup() {
  for i in 0 1; do
    ip link delete icv$tag$i 2>/dev/null || true
    ip netns delete "${ns[$i]}" 2>/dev/null || true
  done
  ip link delete "$br" 2>/dev/null || true
}
trap cleanup EXIT

ip link add "$br" type bridge
ip addr add 10.253.0.1/24 dev "$br"
ip link set "$br" up
for i in 0 1; do
  ip netns add "${ns[$i]}"
  ip link add icv$tag$i type veth peer name icw$tag$i
  ip link set icw$tag$i netns "${ns[$i]}"
  ip link set icv$tag$i master "$br"
  ip link set icv$tag$i up
  ip -n "${ns[$i]}" addr add 10.253.0.$((i + 2))/24 dev icw$tag$i
  ip -n "${ns[$i]}" link set icw$tag$i up
  ip -n "${ns[$i]}" link set lo up
  # Each namespace's egress is shaped: every byte between the ranks crosses one.
  ip netns exec "${ns[$i]}" tc qdisc add dev icw$tag$i root tbf rate "$RATE" burst 256kb latency 50ms
done

run() {
  interlace run --hosts "${ns[0]},${ns[1]}" --rsh "ip netns exec {host}" --store-addr 10.253.0.1 \
    -n 2 --timeout 600 "$BIN" "$@"
}
tx_bytes() { ip netns exec "${ns[0]}" cat /sys/class/net/icw${tag}0/statistics/tx_bytes; }

echo "# link: tbf $RATE per direction, 2 ranks in 2 namespaces, tcp fabric" >&2
run "$@"
# Bytes on the wire: what rank 0's namespace sent during one run per method
# (3 allreduces of 16 MiB plus start-up, barriers and the timing reductions).
for m in none fp16 bf16; do
  before=$(tx_bytes)
  run --sizes 16777216 --reps 1 --methods "$m" >/dev/null
  echo "{\"method\": \"$m\", \"wire_bytes_rank0_3x16MiB\": $(( $(tx_bytes) - before ))}"
done
