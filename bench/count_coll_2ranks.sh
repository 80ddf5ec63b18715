#!/bin/sh
# Instructions per 8-byte collective on rank 0 of two (shm), outside waiting, counted by
# callgrind: rank 0 runs under callgrind, rank 1 natively. A rank that waits polls, and
# its polls follow the load and the other rank's timing, so what is counted is the
# call's inclusive cost minus what it spent in engine::Context::wait_for (the blocking
# wait and the progress it makes); what remains is the library's own setup and
# teardown of each call. Runs N and 2N calls; (count(2N) - count(N)) / N.
#   bench/count_coll_2ranks.sh [BUILD_DIR] [N]      (default build, 2000)
set -e
build=$(cd "${1:-build}" && pwd)
n=${2:-2000}
src=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$src")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -I"$repo/include" "$src/mpi_coll_calls.c" -o "$tmp/coll" -L"$build" -linterlace -Wl,-rpath,"$build"
cat > "$tmp/wrap" <<W
#!/bin/sh
if [ "\$INTERLACE_RANK" = 0 ]; then
  exec valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "\$@"
fi
exec "\$@"
W
chmod +x "$tmp/wrap"
outside() {  # mode calls -> instructions of the MPI calls outside Context::wait_for
  PYTHONPATH="$repo/python${PYTHONPATH:+:$PYTHONPATH}" python3 -m interlace run -n 2 --fabric shm --timeout 600 \
    "$tmp/wrap" "$tmp/coll" "$2" "$1" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes "$tmp/cg" 2>/dev/null | awk -v f="$3" '
    { gsub(",", "", $1) }
    index($0, ":" f " [") { call = $1 }
    index($0, "engine::Context::wait_for(") && !seen { wait = $1; seen = 1 }
    END { print call - wait }'
}
for mode in a r t; do
  case $mode in a) f=MPI_Barrier ;; r) f=MPI_Reduce ;; t) f=MPI_Alltoall ;; esac
  a=$(outside $mode "$n" $f)
  b=$(outside $mode $((2 * n)) $f)
  echo "$f, 2 ranks, rank 0 outside wait_for: $(( (b - a) / n )) instructions per call"
done
