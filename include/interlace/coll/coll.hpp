// Contract: MPI-style buffer collectives on a Communicator (namespace interlace::coll).
//  - Every collective has a blocking form and a non-blocking `i` form returning a
//    coll::Request (wait()/test()); buffers must stay valid until it completes.
//  - All ranks of the communicator call the same collectives in the same order with
//    matching counts, datatype, op, root and algorithm. A rank that calls a different
//    collective gets Errc::protocol naming both collectives (detected while waiting);
//    a rank that never calls gets a timeout only with INTERLACE_TIMEOUT (as p2p).
//  - Counts are elements of one datatype used on both sides (no separate send and
//    receive types). Vector forms take counts/displacements in elements.
//  - IN_PLACE as sendbuf (recvbuf for scatter/scatterv at the root) as in MPI.
//  - op: any ReduceOp (float16/bfloat16 reduce in float32) or a user callable (Op);
//    non-commutative ops are computed in rank order by order-keeping algorithms.
//  - Options::algorithm picks an algorithm by name; otherwise the selection table
//    (defaults, overridden by INTERLACE_COLL) picks one by collective, message size and
//    communicator size. Unknown names raise invalid_argument listing the known ones.
//  - Non-blocking collectives progress from any wait/test/progress on the rank and
//    from the progress thread (INTERLACE_PROGRESS=thread); several may be in flight on
//    one or several communicators.
#pragma once
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "interlace/coll/schedule.hpp"
#include "interlace/p2p/communicator.hpp"

namespace interlace::coll {

// Sentinel for in-place collectives (never dereferenced).
inline void* const IN_PLACE = reinterpret_cast<void*>(static_cast<uintptr_t>(1));

struct Options {
  std::string algorithm;      // empty: the selection table decides
  size_t segment_bytes = 0;   // 0: 64 KiB (INTERLACE_COLL_SEGMENT)
  std::string compression;    // "": none; "fp16", "bf16" or a registered Compressor
};

struct Run;  // internal
}  // namespace interlace::coll
namespace interlace::engine { struct Completion; }
namespace interlace::coll {

class Request {
 public:
  Request() = default;
  explicit Request(std::shared_ptr<Run> r) : run_(std::move(r)) {}
  bool is_null() const noexcept { return !run_; }
  void wait();                 // rethrows the collective's error
  bool test();                 // progresses once; true when done
  const std::string& algorithm() const;  // the algorithm that runs it
  // The engine completion record (for layers that wait on a mix of requests).
  engine::Completion* completion() const noexcept;
 private:
  std::shared_ptr<Run> run_;
};

using Counts = std::span<const size_t>;

Request ibarrier(const Communicator& c, const Options& o = {});
Request ibcast(const Communicator& c, void* buf, size_t count, Datatype dt, int root, const Options& o = {});
Request ireduce(const Communicator& c, const void* sendbuf, void* recvbuf, size_t count, Datatype dt,
                const Op& op, int root, const Options& o = {});
Request iallreduce(const Communicator& c, const void* sendbuf, void* recvbuf, size_t count, Datatype dt,
                   const Op& op, const Options& o = {});
Request iscatter(const Communicator& c, const void* sendbuf, void* recvbuf, size_t count, Datatype dt,
                 int root, const Options& o = {});
Request iscatterv(const Communicator& c, const void* sendbuf, Counts sendcounts, Counts displs,
                  void* recvbuf, size_t recvcount, Datatype dt, int root, const Options& o = {});
Request igather(const Communicator& c, const void* sendbuf, void* recvbuf, size_t count, Datatype dt,
                int root, const Options& o = {});
Request igatherv(const Communicator& c, const void* sendbuf, size_t sendcount, void* recvbuf,
                 Counts recvcounts, Counts displs, Datatype dt, int root, const Options& o = {});
Request iallgather(const Communicator& c, const void* sendbuf, void* recvbuf, size_t count, Datatype dt,
                   const Options& o = {});
Request iallgatherv(const Communicator& c, const void* sendbuf, size_t sendcount, void* recvbuf,
                    Counts recvcounts, Counts displs, Datatype dt, const Options& o = {});
Request ireduce_scatter(const Communicator& c, const void* sendbuf, void* recvbuf, Counts recvcounts,
                        Datatype dt, const Op& op, const Options& o = {});
Request ireduce_scatter_block(const Communicator& c, const void* sendbuf, void* recvbuf, size_t count,
                              Datatype dt, const Op& op, const Options& o = {});
Request ialltoall(const Communicator& c, const void* sendbuf, void* recvbuf, size_t count, Datatype dt,
                  const Options& o = {});
Request ialltoallv(const Communicator& c, const void* sendbuf, Counts sendcounts, Counts sdispls,
                   void* recvbuf, Counts recvcounts, Counts rdispls, Datatype dt, const Options& o = {});
Request iscan(const Communicator& c, const void* sendbuf, void* recvbuf, size_t count, Datatype dt,
              const Op& op, const Options& o = {});
Request iexscan(const Communicator& c, const void* sendbuf, void* recvbuf, size_t count, Datatype dt,
                const Op& op, const Options& o = {});

// Blocking forms: the non-blocking call followed by wait().
inline void barrier(const Communicator& c, const Options& o = {}) { ibarrier(c, o).wait(); }
inline void bcast(const Communicator& c, void* buf, size_t count, Datatype dt, int root, const Options& o = {}) {
  ibcast(c, buf, count, dt, root, o).wait();
}
inline void reduce(const Communicator& c, const void* s, void* r, size_t count, Datatype dt, const Op& op,
                   int root, const Options& o = {}) {
  ireduce(c, s, r, count, dt, op, root, o).wait();
}
inline void allreduce(const Communicator& c, const void* s, void* r, size_t count, Datatype dt, const Op& op,
                      const Options& o = {}) {
  iallreduce(c, s, r, count, dt, op, o).wait();
}
inline void scatter(const Communicator& c, const void* s, void* r, size_t count, Datatype dt, int root,
                    const Options& o = {}) {
  iscatter(c, s, r, count, dt, root, o).wait();
}
inline void scatterv(const Communicator& c, const void* s, Counts sc, Counts d, void* r, size_t rc,
                     Datatype dt, int root, const Options& o = {}) {
  iscatterv(c, s, sc, d, r, rc, dt, root, o).wait();
}
inline void gather(const Communicator& c, const void* s, void* r, size_t count, Datatype dt, int root,
                   const Options& o = {}) {
  igather(c, s, r, count, dt, root, o).wait();
}
inline void gatherv(const Communicator& c, const void* s, size_t sc, void* r, Counts rc, Counts d,
                    Datatype dt, int root, const Options& o = {}) {
  igatherv(c, s, sc, r, rc, d, dt, root, o).wait();
}
inline void allgather(const Communicator& c, const void* s, void* r, size_t count, Datatype dt,
                      const Options& o = {}) {
  iallgather(c, s, r, count, dt, o).wait();
}
inline void allgatherv(const Communicator& c, const void* s, size_t sc, void* r, Counts rc, Counts d,
                       Datatype dt, const Options& o = {}) {
  iallgatherv(c, s, sc, r, rc, d, dt, o).wait();
}
inline void reduce_scatter(const Communicator& c, const void* s, void* r, Counts rc, Datatype dt,
                           const Op& op, const Options& o = {}) {
  ireduce_scatter(c, s, r, rc, dt, op, o).wait();
}
inline void reduce_scatter_block(const Communicator& c, const void* s, void* r, size_t count, Datatype dt,
                                 const Op& op, const Options& o = {}) {
  ireduce_scatter_block(c, s, r, count, dt, op, o).wait();
}
inline void alltoall(const Communicator& c, const void* s, void* r, size_t count, Datatype dt,
                     const Options& o = {}) {
  ialltoall(c, s, r, count, dt, o).wait();
}
inline void alltoallv(const Communicator& c, const void* s, Counts sc, Counts sd, void* r, Counts rc,
                      Counts rd, Datatype dt, const Options& o = {}) {
  ialltoallv(c, s, sc, sd, r, rc, rd, dt, o).wait();
}
inline void scan(const Communicator& c, const void* s, void* r, size_t count, Datatype dt, const Op& op,
                 const Options& o = {}) {
  iscan(c, s, r, count, dt, op, o).wait();
}
inline void exscan(const Communicator& c, const void* s, void* r, size_t count, Datatype dt, const Op& op,
                   const Options& o = {}) {
  iexscan(c, s, r, count, dt, op, o).wait();
}

// Runs a schedule the caller built from primitives (a custom collective) on c; the
// communicator's collective sequence keeps it apart from others.
Request start(const Communicator& c, std::shared_ptr<Schedule> s, const std::string& label = "custom");

// Primitives on local buffers (ACCL+ copy/combine).
void copy(void* dst, const void* src, size_t count, Datatype dt);
void combine(void* inout, const void* in, size_t count, Datatype dt, const Op& op);  // inout = in ∘ inout

// The selection in effect: algorithms per collective and rules, for `interlace info`.
std::string describe();
// The algorithm the table picks for (kind, bytes, comm size) with a commutative op.
// describe() and select() read INTERLACE_COLL through Config::from_env() now; a
// rank's collectives use the rules of its Context's Config.
std::string select(Kind k, size_t bytes, int comm_size);
// Checks INTERLACE_COLL-style rules against the collectives and the algorithms
// registered now; throws Error(invalid_argument) naming the rule (a rank does this
// when it starts using collectives, `interlace info` does it too).
void check_rules(const std::string& rules);

}  // namespace interlace::coll
