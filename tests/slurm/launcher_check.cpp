// Run by tests/slurm/run.sh under srun --mpi=pmix|pmi2 and mpirun: checks that the job
// bootstrapped through the named launcher interface (argv[1]: pmix, pmi2) and that
// p2p, a collective and the launcher's locality hold. Prints
// "launcher_check OK on N ranks via SOURCE" on rank 0 when every rank passed.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <cstring>
#include <string>
#include <vector>

#include <interlace/engine/context.hpp>
#include <interlace/interlace.hpp>

using namespace interlace;

int main(int argc, char** argv) {
  const std::string want = argc > 1 ? argv[1] : "";
  Runtime rt = Runtime::init();
  Communicator w = rt.world();
  const bootstrap::Environment& env = w.context().environment();
  const int n = w.size(), me = w.rank();
  int failures = 0;
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) std::fprintf(stderr, "rank %d: check failed: %s\n", me, what.c_str()), ++failures;
  };
  const bool launcher = env.source == "pmix" || env.source == "pmi2";
  check(want.empty() || env.source == want, "bootstrap source is '" + env.source + "', expected '" + want + "'");

  if (launcher && !std::getenv("INTERLACE_STORE"))
    check(env.store_url == env.source + "://", "store '" + env.store_url + "' is not the launcher's");

  // p2p: a ring in both directions, then an exchange with every peer.
  int right = (me + 1) % n, left = (me + n - 1) % n, got = -1;
  Request r = w.irecv(&got, 1, Datatype::int32, left, 1);
  w.send(&me, 1, Datatype::int32, right, 1);
  r.wait();
  check(got == left, "ring value " + std::to_string(got));
  std::vector<long> out(n), in(n, -1);
  std::vector<Request> rq;
  for (int p = 0; p < n; ++p) {
    out[p] = me * 1000L + p;
    rq.push_back(w.irecv(&in[p], 1, Datatype::int64, p, 2));
  }
  for (int p = 0; p < n; ++p) rq.push_back(w.isend(&out[p], 1, Datatype::int64, p, 2));
  Request::wait_all(rq);
  for (int p = 0; p < n; ++p) check(in[p] == p * 1000L + me, "all-pairs value from " + std::to_string(p));

  // Collective: the rank sum.
  long sum = 0, mine = me;
  coll::allreduce(w, &mine, &sum, 1, Datatype::int64, ReduceOp::sum);
  check(sum == static_cast<long>(n) * (n - 1) / 2, "allreduce sum " + std::to_string(sum));

  // Locality (from the launcher's client only): the ranks that name this host are
  // local_size many, and their local ranks are 0..local_size-1, each once.
  check(!launcher || env.local_size > 0, "the launcher gave no local size");
  Communicator host = w.split(static_cast<int>(std::hash<std::string>{}(env.host) & 0x3fffffff), me);
  check(!launcher || host.size() == env.local_size, "host '" + env.host + "' has " + std::to_string(host.size()) +
                                            " ranks but local_size is " + std::to_string(env.local_size));
  std::vector<int> locals(host.size(), -1);
  coll::allgather(host, &env.local_rank, locals.data(), 1, Datatype::int32);
  std::vector<int> seen(host.size(), 0);
  for (int l : locals)
    if (l >= 0 && l < host.size()) ++seen[l];
  for (int c : seen) check(c == 1, "local ranks of host '" + env.host + "' are not 0..local_size-1 once each");
  check(!launcher || env.node_id >= 0, "the launcher gave no node id");

  int total = 0;
  coll::allreduce(w, &failures, &total, 1, Datatype::int32, ReduceOp::sum);
  if (me == 0 && total == 0)
    std::printf("launcher_check OK on %d ranks via %s (local %d/%d, node %d)\n", n, env.source.c_str(),
                env.local_rank, env.local_size, env.node_id);
  rt.finalize();
  return total == 0 ? 0 : 1;
}
