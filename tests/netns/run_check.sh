#!/usr/bin/env bash
# Runs netns_fabric_check as rank 0 in il-ns1 (also serving the TcpStore on
# 10.77.0.1) and rank 1 in il-ns2, after setup.sh. Needs root.
#   run_check.sh [path/to/netns_fabric_check] [--netem "delay 5ms loss 1%"] [--frames N]
#   --crash: rank 1 dies mid-run; rank 0 must report it lost with its frames intact
#   --qdisc "tbf rate 50mbit burst 16k limit 16k"  any root qdisc on both veth ends
#   (kernels without sch_netem: tbf with a tiny limit tail-drops, so TCP still
#   has to retransmit)
#   --fabric tcp|udp   the fabric under test (default tcp)
#   --loss PCT         nftables drops PCT% of the UDP packets arriving in each
#                      namespace (input hook: real loss; the store's TCP is spared)
#   --down AT:FOR      the link goes down AT seconds after the start, for FOR seconds
#   --min-seconds S    the senders spread their frames over at least S seconds
# NETNS_PREFIX / NETNS_NET (see setup.sh) pick the namespace pair.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${NETNS_CHECK_BIN:-}
qdisc="" frames=2000 crash=0 fabric=tcp loss=0 down="" min_s=0
while [ $# -gt 0 ]; do
  case "$1" in
    --netem) qdisc="netem $2"; shift 2 ;;
    --qdisc) qdisc=$2; shift 2 ;;
    --crash) crash=1; shift ;;
    --frames) frames=$2; shift 2 ;;
    --fabric) fabric=$2; shift 2 ;;
    --loss) loss=$2; shift 2 ;;
    --down) down=$2; shift 2 ;;
    --min-seconds) min_s=$2; shift 2 ;;
    *) bin=$1; shift ;;
  esac
done
[ -n "$bin" ] || bin=$(ls -t /work/build*/tests/netns/netns_fabric_check 2>/dev/null | head -1 || true)
[ -x "$bin" ] || { echo "run_check.sh: netns_fabric_check not found; pass its path" >&2; exit 2; }
P=${NETNS_PREFIX:-il-} NET=${NETNS_NET:-10.77.0}
NS1=${P}ns1 NS2=${P}ns2 V1=${P}veth1 V2=${P}veth2

"$here/setup.sh"
cleanup() {
  ip netns exec "$NS1" tc qdisc del dev "$V1" root 2>/dev/null || true
  ip netns exec "$NS2" tc qdisc del dev "$V2" root 2>/dev/null || true
  for ns in "$NS1" "$NS2"; do ip netns exec "$ns" nft delete table inet il_loss 2>/dev/null || true; done
  ip -n "$NS1" link set "$V1" up 2>/dev/null || true
  [ -n "${downer:-}" ] && kill "$downer" 2>/dev/null || true
}
trap cleanup EXIT
if [ -n "$qdisc" ]; then
  if ! ip netns exec "$NS1" tc qdisc replace dev "$V1" root $qdisc ||
     ! ip netns exec "$NS2" tc qdisc replace dev "$V2" root $qdisc; then
    echo "run_check.sh: this kernel cannot set qdisc '$qdisc' (no sch_netem? try --qdisc tbf ...)" >&2
    exit 3
  fi
  echo "run_check.sh: qdisc '$qdisc' on both veth ends"
fi
if [ "$loss" != 0 ]; then
  for ns in "$NS1" "$NS2"; do
    ip netns exec "$ns" nft -f - <<NFT
table inet il_loss {
  chain input {
    type filter hook input priority 0; policy accept;
    meta l4proto udp numgen random mod 100 < $loss counter drop
  }
}
NFT
  done
  echo "run_check.sh: nftables drops $loss% of incoming UDP in $NS1 and $NS2"
fi

port=$((20000 + RANDOM % 20000))
# Rank 0 names its interface, rank 1 its address: both INTERLACE_TCP_ADDR forms.
r0_extra=() r1_extra=()
[ "$crash" = 1 ] && r0_extra=(--expect-lost yes) r1_extra=(--die-after $((frames / 2)))
common=(--fabric "$fabric" --frames "$frames" --min-seconds "$min_s")
ip netns exec "$NS1" "$bin" --rank 0 --store "$NET.1:$port" --listen "$V1" "${common[@]}" "${r0_extra[@]}" &
pid0=$!
ip netns exec "$NS2" "$bin" --rank 1 --store "$NET.1:$port" --listen "$NET.2" "${common[@]}" "${r1_extra[@]}" &
pid1=$!
if [ -n "$down" ]; then
  ( sleep "${down%%:*}"; ip -n "$NS1" link set "$V1" down; echo "run_check.sh: $V1 down"
    sleep "${down##*:}"; ip -n "$NS1" link set "$V1" up; echo "run_check.sh: $V1 up" ) &
  downer=$!
fi
rc=0
wait $pid0 || rc=1
wait $pid1 || rc=1
if [ -n "$qdisc" ]; then
  ip netns exec "$NS1" tc -s qdisc show dev "$V1" | sed -n "s/^ *Sent/  $V1 sent/p"
fi
if [ "$loss" != 0 ]; then
  for ns in "$NS1" "$NS2"; do
    echo "  $ns dropped: $(ip netns exec "$ns" nft list table inet il_loss | grep -o 'packets [0-9]*')"
  done
fi
[ $rc -eq 0 ] && echo "run_check.sh: PASS" || echo "run_check.sh: FAIL"
exit $rc
