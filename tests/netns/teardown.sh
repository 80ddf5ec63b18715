#!/usr/bin/env bash
# Removes what setup.sh created (the veth pair and nft tables go with their
# namespaces). NETNS_PREFIX as for setup.sh.
P=${NETNS_PREFIX:-il-}
for ns in ${P}ns1 ${P}ns2; do
  ip netns list | grep -qw "$ns" && ip netns del "$ns"
done
exit 0
