// Contract: the building blocks of collectives (ACCL+ "primitives" and schedules).
//  - Op: a built-in ReduceOp or a user C++ callable in MPI convention
//    (inout[i] = in[i] ∘ inout[i], `in` being the lower-rank operand). A
//    non-commutative op is only used with algorithms that keep rank order.
//  - Schedule: a DAG of primitive steps (send, recv, recv_reduce, copy, combine,
//    join). A step starts once every step it depends on has finished; dependencies
//    always name earlier steps. Executors run many schedules at once.
//  - Message matching: the k-th send to peer p (in build order) meets the k-th recv
//    from this rank that p built, so both sides must build their messages between a
//    pair of ranks in the same logical order. Sizes must agree; a short or long
//    message is an error naming both sizes.
//  - Args: what the collective was called with, after IN_PLACE was resolved.
//  - Algorithm: a named builder registered per collective kind; register_algorithm
//    makes it selectable by name (per call, or via INTERLACE_COLL) without rebuilding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "interlace/core/datatype.hpp"
#include "interlace/core/reduce_op.hpp"

namespace interlace::coll {

enum class Kind : uint8_t {
  barrier = 1, bcast, reduce, allreduce, scatter, scatterv, gather, gatherv, allgather,
  allgatherv, reduce_scatter, reduce_scatter_block, alltoall, alltoallv, scan, exscan,
};
inline constexpr int kKindCount = 17;  // values 1..16 are used
std::string_view kind_name(Kind k) noexcept;
std::optional<Kind> kind_from_name(std::string_view name) noexcept;

// MPI convention: inout[i] = in[i] ∘ inout[i].
using UserFn = std::function<void(const void* in, void* inout, size_t count, Datatype dt)>;

class Op {
 public:
  Op(ReduceOp op = ReduceOp::sum) : builtin_(op) {}  // NOLINT: implicit on purpose
  Op(UserFn fn, bool commutative = true, std::string name = "user")
      : fn_(std::make_shared<UserFn>(std::move(fn))), commutative_(commutative),
        name_(std::move(name)) {}
  bool is_builtin() const noexcept { return !fn_; }
  bool commutative() const noexcept { return commutative_; }
  ReduceOp builtin() const noexcept { return builtin_; }
  std::string name() const;
  // Throws invalid_op if the op cannot reduce dt (checked before any message moves).
  void check(Datatype dt) const;
  // inout = in ∘ inout
  void apply(const void* in, void* inout, size_t count, Datatype dt) const;
  // a = a ∘ b (a is the lower-rank operand).
  void apply_left(void* a, const void* b, size_t count, Datatype dt) const;

 private:
  ReduceOp builtin_ = ReduceOp::sum;
  std::shared_ptr<UserFn> fn_;
  bool commutative_ = true;
  std::string name_;
};

// Collective arguments. Counts are in elements of dt. `count` is: the whole buffer
// (bcast, reduce, allreduce, scan, exscan), the block per rank (gather, scatter,
// allgather, alltoall, reduce_scatter_block). Vector forms use counts/displs
// (gatherv, allgatherv: receive side; scatterv: send side; reduce_scatter: counts
// per rank, displs = prefix sums; alltoallv: send side, rcounts/rdispls receive side).
// Buffers a rank does not use (non-root receive of reduce, ...) may be null.
struct Args {
  Kind kind = Kind::barrier;
  int rank = 0, size = 1;
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;
  size_t count = 0;
  Datatype dt = Datatype::bytes;
  size_t esize = 1;
  Op op;
  int root = 0;
  std::vector<size_t> counts, displs, rcounts, rdispls;
  size_t segment_bytes = 64 * 1024;  // pipelining unit for segmented algorithms
};

// Wire compression (ACCL+ compression plugins): a schedule with a compressor sends
// every message converted to `wire` elements and converts received ones back, so the
// algorithms stay unchanged. Lossy for the built-ins: "fp16" and "bf16" (float32 and
// float64 data travel as float16 / bfloat16; reductions still compute in dt).
struct Compressor {
  std::string name;
  Datatype wire = Datatype::float16;
  std::function<bool(Datatype)> accepts;
  std::function<void(const void* in, void* out, size_t count, Datatype dt)> compress;    // dt -> wire
  std::function<void(const void* in, void* out, size_t count, Datatype dt)> decompress;  // wire -> dt
};
// Makes a compressor selectable by name (Options::compression); replaces one of that name.
void register_compressor(Compressor c);
std::vector<std::string> compressor_names();

class Schedule {
 public:
  using Id = int;                  // -1: no step
  using Deps = std::vector<Id>;

  Schedule(Datatype dt, Op op) : dt_(dt), esize_(datatype_size(dt)), op_(std::move(op)) {}

  Id send(int peer, const void* buf, size_t bytes, Deps deps = {});
  Id recv(int peer, void* buf, size_t bytes, Deps deps = {});
  // Receives count elements and combines them into dst: dst = dst ∘ incoming, or
  // dst = incoming ∘ dst when incoming_left (the sender holds lower ranks' data).
  Id recv_reduce(int peer, void* dst, size_t count, Deps deps = {}, bool incoming_left = false);
  Id copy(void* dst, const void* src, size_t bytes, Deps deps = {});
  // dst = dst ∘ src, or dst = src ∘ dst when src_left.
  Id combine(void* dst, const void* src, size_t count, Deps deps = {}, bool src_left = false);
  Id join(Deps deps);               // a no-op that finishes when deps have
  std::byte* scratch(size_t bytes); // zeroed memory owned by the schedule

  Datatype dt() const noexcept { return dt_; }
  size_t esize() const noexcept { return esize_; }
  const Op& op() const noexcept { return op_; }
  size_t steps() const noexcept { return steps_.size(); }
  size_t scratch_bytes() const noexcept { return scratch_bytes_; }  // all scratch() so far
  Id last() const noexcept { return static_cast<Id>(steps_.size()) - 1; }

  enum class StepKind : uint8_t { send, recv, recv_reduce, copy, combine, join };
  struct Step {
    StepKind kind;
    bool flag = false;      // incoming_left / src_left
    int peer = -1;
    int sub = 0;            // message index between this rank and peer (direction-wise)
    void* dst = nullptr;
    const void* src = nullptr;
    size_t bytes = 0;       // bytes (send/recv/copy) or elements (recv_reduce/combine)
    Deps deps;
  };
  const std::vector<Step>& step_list() const noexcept { return steps_; }
  // Messages this schedule receives from `peer` (their subs are 0 .. n-1).
  int recvs_from(int peer) const noexcept {
    return peer >= 0 && static_cast<size_t>(peer) < recvs_from_.size() ? recvs_from_[peer] : 0;
  }
  void set_compressor(std::shared_ptr<const Compressor> c) { compressor_ = std::move(c); }
  const Compressor* compressor() const noexcept { return compressor_.get(); }

 private:
  Id add(Step s);
  int next_sub(std::vector<int>& v, int peer);
  Datatype dt_;
  size_t esize_;
  Op op_;
  std::vector<Step> steps_;
  std::vector<int> sends_to_, recvs_from_;
  std::vector<std::unique_ptr<std::byte[]>> scratch_;
  size_t scratch_bytes_ = 0;
  std::shared_ptr<const Compressor> compressor_;
};

using Builder = std::function<void(const Args&, Schedule&)>;

struct Algorithm {
  Kind kind;
  std::string name;
  Builder build;
  bool keeps_order = false;  // safe for non-commutative ops
  std::string about;         // one line for `interlace info --collectives`
};

// Makes a new algorithm selectable by name (per call or INTERLACE_COLL) in this
// process. Replaces an algorithm of the same kind and name. Thread-safe.
void register_algorithm(Algorithm a);
// Removes a registered algorithm (built-ins too); false if there was none.
bool unregister_algorithm(Kind k, const std::string& name);
std::vector<std::string> algorithm_names(Kind k);

// Splits [0, count) into segments of at most seg_bytes (at least one element); one
// empty segment when count is 0, so zero-length collectives still synchronise.
std::vector<std::pair<size_t, size_t>> segments(size_t count, size_t esize, size_t seg_bytes);

}  // namespace interlace::coll
