#!/usr/bin/env bash
# Removes what setup.sh created (the veth pair goes with its namespaces).
for ns in il-ns1 il-ns2; do
  ip netns list | grep -qw "$ns" && ip netns del "$ns"
done
exit 0
