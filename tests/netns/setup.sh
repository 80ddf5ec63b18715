#!/usr/bin/env bash
# Creates two network namespaces joined by a veth pair, for the cross-host
# fabric check. Idempotent: re-running repairs a half-built setup.
#   il-ns1: il-veth1 10.77.0.1/24   <->   il-ns2: il-veth2 10.77.0.2/24
# NETNS_PREFIX (default il-) and NETNS_NET (default 10.77.0) name another pair, so
# that concurrent users (the udp loss tests use udp-) do not collide.
set -euo pipefail
P=${NETNS_PREFIX:-il-} NET=${NETNS_NET:-10.77.0}
NS1=${P}ns1 NS2=${P}ns2 V1=${P}veth1 V2=${P}veth2

for ns in "$NS1" "$NS2"; do
  ip netns list | grep -qw "$ns" || ip netns add "$ns"
done
# Deleting either end of a veth deletes both, so "both ends present" is the test.
if ! ip -n "$NS1" link show "$V1" >/dev/null 2>&1 || ! ip -n "$NS2" link show "$V2" >/dev/null 2>&1; then
  ip -n "$NS1" link del "$V1" 2>/dev/null || true
  ip -n "$NS2" link del "$V2" 2>/dev/null || true
  ip link add "$V1" netns "$NS1" type veth peer name "$V2" netns "$NS2"
fi
ip -n "$NS1" addr replace $NET.1/24 dev "$V1"
ip -n "$NS2" addr replace $NET.2/24 dev "$V2"
for pair in "$NS1 $V1" "$NS2 $V2"; do
  set -- $pair
  ip -n "$1" link set lo up
  ip -n "$1" link set "$2" up
done
if command -v ping >/dev/null 2>&1; then
  ip netns exec "$NS1" ping -c 1 -W 2 $NET.2 >/dev/null 2>&1 ||
    { echo "setup.sh: $NET.2 unreachable from $NS1" >&2; exit 1; }
fi
echo "setup.sh: $NS1 ($NET.1) <-> $NS2 ($NET.2) ready"
