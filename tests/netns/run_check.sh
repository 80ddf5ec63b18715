#!/usr/bin/env bash
# Runs netns_fabric_check as rank 0 in il-ns1 (also serving the TcpStore on
# 10.77.0.1) and rank 1 in il-ns2, after setup.sh. Needs root.
#   run_check.sh [path/to/netns_fabric_check] [--netem "delay 5ms loss 1%"] [--frames N]
#   --crash: rank 1 dies mid-run; rank 0 must report it lost with its frames intact
#   --qdisc "tbf rate 50mbit burst 16k limit 16k"  any root qdisc on both veth ends
#   (kernels without sch_netem: tbf with a tiny limit tail-drops, so TCP still
#   has to retransmit)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${NETNS_CHECK_BIN:-}
qdisc="" frames=2000 crash=0
while [ $# -gt 0 ]; do
  case "$1" in
    --netem) qdisc="netem $2"; shift 2 ;;
    --qdisc) qdisc=$2; shift 2 ;;
    --crash) crash=1; shift ;;
    --frames) frames=$2; shift 2 ;;
    *) bin=$1; shift ;;
  esac
done
[ -n "$bin" ] || bin=$(ls -t /work/build*/tests/netns/netns_fabric_check 2>/dev/null | head -1 || true)
[ -x "$bin" ] || { echo "run_check.sh: netns_fabric_check not found; pass its path" >&2; exit 2; }

"$here/setup.sh"
clear_qdisc() {
  ip netns exec il-ns1 tc qdisc del dev il-veth1 root 2>/dev/null || true
  ip netns exec il-ns2 tc qdisc del dev il-veth2 root 2>/dev/null || true
}
trap clear_qdisc EXIT
if [ -n "$qdisc" ]; then
  if ! ip netns exec il-ns1 tc qdisc replace dev il-veth1 root $qdisc ||
     ! ip netns exec il-ns2 tc qdisc replace dev il-veth2 root $qdisc; then
    echo "run_check.sh: this kernel cannot set qdisc '$qdisc' (no sch_netem? try --qdisc tbf ...)" >&2
    exit 3
  fi
  echo "run_check.sh: qdisc '$qdisc' on both veth ends"
fi

port=$((20000 + RANDOM % 20000))
# Rank 0 names its interface, rank 1 its address: both INTERLACE_TCP_ADDR forms.
r0_extra=() r1_extra=()
[ "$crash" = 1 ] && r0_extra=(--expect-lost yes) r1_extra=(--die-after $((frames / 2)))
ip netns exec il-ns1 "$bin" --rank 0 --store "10.77.0.1:$port" --listen il-veth1 --frames "$frames" "${r0_extra[@]}" &
pid0=$!
ip netns exec il-ns2 "$bin" --rank 1 --store "10.77.0.1:$port" --listen 10.77.0.2 --frames "$frames" "${r1_extra[@]}" &
pid1=$!
rc=0
wait $pid0 || rc=1
wait $pid1 || rc=1
if [ -n "$qdisc" ]; then
  ip netns exec il-ns1 tc -s qdisc show dev il-veth1 | sed -n 's/^ *Sent/  il-veth1 sent/p'
fi
[ $rc -eq 0 ] && echo "run_check.sh: PASS" || echo "run_check.sh: FAIL"
exit $rc
