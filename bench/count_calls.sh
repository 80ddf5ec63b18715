#!/bin/sh
# Instructions per 8-byte send+receive pair to self, mpi.h against native p2p, counted
# by callgrind (deterministic: load on the machine does not change them). Each program
# runs at N and 2N pairs; (count(2N) - count(N)) / N leaves out start-up and shut-down.
#   bench/count_calls.sh [BUILD_DIR] [N]      (default build, 10000)
# Prints one line per program and mode (b: blocking, i: Irecv+Isend+2 Wait), then the
# instructions per 8-byte collective on one rank (a: barrier, r: reduce, t: alltoall) for
# interlace and, where mpicc.openmpi is installed, for Open MPI (a singleton run).
set -e
build=$(cd "${1:-build}" && pwd)
n=${2:-10000}
src=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$src")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -I"$repo/include" "$src/mpi_self_calls.c" -o "$tmp/mpi" -L"$build" -linterlace -Wl,-rpath,"$build"
c++ -std=c++20 -O2 -I"$repo/include" "$src/p2p_self_calls.cpp" -o "$tmp/native" -L"$build" -linterlace \
  -Wl,-rpath,"$build"
cc -O2 -I"$repo/include" "$src/mpi_coll_calls.c" -o "$tmp/coll" -L"$build" -linterlace -Wl,-rpath,"$build"
progs_coll=coll
if command -v mpicc.openmpi >/dev/null 2>&1; then
  mpicc.openmpi -O2 "$src/mpi_coll_calls.c" -o "$tmp/coll.openmpi" && progs_coll="coll coll.openmpi"
fi
count() {  # program mode pairs -> total instructions
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$tmp/$1" "$3" "$2" >/dev/null 2>&1
  awk '/^(summary|totals):/ {print $2; exit}' "$tmp/cg"
}
for prog in native mpi; do
  for mode in b i; do
    a=$(count $prog $mode "$n")
    b=$(count $prog $mode $((2 * n)))
    echo "$prog $mode: $(( (b - a) / n )) instructions per pair"
  done
done
for prog in $progs_coll; do
  for mode in a r t; do
    a=$(count $prog $mode "$n")
    b=$(count $prog $mode $((2 * n)))
    echo "$prog $mode: $(( (b - a) / n )) instructions per call"
  done
done
