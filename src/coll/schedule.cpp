// Schedule construction, Op application and kind names.
#include "interlace/coll/schedule.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "interlace/core/error.hpp"

namespace interlace::coll {

namespace {
constexpr std::string_view kKindNames[kKindCount] = {
    "custom", "barrier", "bcast", "reduce", "allreduce", "scatter", "scatterv", "gather",
    "gatherv", "allgather", "allgatherv", "reduce_scatter", "reduce_scatter_block",
    "alltoall", "alltoallv", "scan", "exscan"};
}  // namespace

std::string_view kind_name(Kind k) noexcept {
  const auto i = static_cast<unsigned>(k);
  return i < kKindCount ? kKindNames[i] : "invalid";
}

std::optional<Kind> kind_from_name(std::string_view name) noexcept {
  for (int i = 1; i < kKindCount; ++i)
    if (name == kKindNames[i]) return static_cast<Kind>(i);
  return std::nullopt;
}

std::string Op::name() const {
  return is_builtin() ? std::string(reduce_op_name(builtin_)) : name_;
}

void Op::check(Datatype dt) const {
  if (is_builtin() && !reduce_op_supports(builtin_, dt))
    throw_error(Errc::invalid_op, "reduction op " + name() + " is not defined for datatype " +
                                      std::string(datatype_name(dt)));
}

void Op::apply(const void* in, void* inout, size_t count, Datatype dt) const {
  if (count == 0) return;
  if (is_builtin()) {
    reduce_or_throw(builtin_, dt, inout, in, count);  // commutative: order is irrelevant
    return;
  }
  (*fn_)(in, inout, count, dt);
}

void Op::apply_left(void* a, const void* b, size_t count, Datatype dt) const {
  if (count == 0) return;
  if (is_builtin()) {
    reduce_or_throw(builtin_, dt, a, b, count);
    return;
  }
  // The user function writes its right operand, which here must stay b; work on a copy.
  const size_t bytes = count * datatype_size(dt);
  std::unique_ptr<std::byte[]> tmp(new std::byte[bytes]);
  std::memcpy(tmp.get(), b, bytes);
  (*fn_)(a, tmp.get(), count, dt);
  std::memcpy(a, tmp.get(), bytes);
}

int Schedule::next_sub(std::vector<int>& v, int peer) {
  if (peer < 0) throw_error(Errc::invalid_rank, "schedule: peer rank " + std::to_string(peer) + " is negative");
  if (static_cast<size_t>(peer) >= v.size()) v.resize(peer + 1, 0);
  return v[peer]++;
}

Schedule::Id Schedule::add(Step s) {
  const Id id = static_cast<Id>(steps_.size());
  for (Id d : s.deps)
    if (d >= id)
      throw_error(Errc::internal, "schedule: step " + std::to_string(id) + " depends on later step " +
                                      std::to_string(d));
  steps_.push_back(std::move(s));
  return id;
}

Schedule::Id Schedule::send(int peer, const void* buf, size_t bytes, Deps deps) {
  Step s{StepKind::send};
  s.peer = peer;
  s.sub = next_sub(sends_to_, peer);
  s.src = buf;
  s.bytes = bytes;
  s.deps = std::move(deps);
  return add(std::move(s));
}

Schedule::Id Schedule::recv(int peer, void* buf, size_t bytes, Deps deps) {
  Step s{StepKind::recv};
  s.peer = peer;
  s.sub = next_sub(recvs_from_, peer);
  s.dst = buf;
  s.bytes = bytes;
  s.deps = std::move(deps);
  return add(std::move(s));
}

Schedule::Id Schedule::recv_reduce(int peer, void* dst, size_t count, Deps deps, bool incoming_left) {
  Step s{StepKind::recv_reduce};
  s.peer = peer;
  s.sub = next_sub(recvs_from_, peer);
  s.dst = dst;
  s.src = scratch(count * esize_);  // landing zone of the incoming operand
  s.bytes = count;
  s.flag = incoming_left;
  s.deps = std::move(deps);
  return add(std::move(s));
}

Schedule::Id Schedule::copy(void* dst, const void* src, size_t bytes, Deps deps) {
  Step s{StepKind::copy};
  s.dst = dst;
  s.src = src;
  s.bytes = bytes;
  s.deps = std::move(deps);
  return add(std::move(s));
}

Schedule::Id Schedule::combine(void* dst, const void* src, size_t count, Deps deps, bool src_left) {
  Step s{StepKind::combine};
  s.dst = dst;
  s.src = src;
  s.bytes = count;
  s.flag = src_left;
  s.deps = std::move(deps);
  return add(std::move(s));
}

Schedule::Id Schedule::join(Deps deps) {
  Step s{StepKind::join};
  s.deps = std::move(deps);
  return add(std::move(s));
}

std::byte* Schedule::scratch(size_t bytes) {
  scratch_.emplace_back(new std::byte[bytes ? bytes : 1]());
  scratch_bytes_ += bytes;
  return scratch_.back().get();
}

std::vector<std::pair<size_t, size_t>> segments(size_t count, size_t esize, size_t seg_bytes) {
  std::vector<std::pair<size_t, size_t>> out;
  const size_t per = std::max<size_t>(1, seg_bytes / std::max<size_t>(esize, 1));
  for (size_t off = 0; off < count; off += per) out.emplace_back(off, std::min(per, count - off));
  if (out.empty()) out.emplace_back(0, 0);
  return out;
}

}  // namespace interlace::coll
