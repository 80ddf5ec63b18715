// Collective checking. A mismatch the tags cannot show (a different op, count, root or
// algorithm under the same collective) silently gives different results or stalls; an
// allgather of a small fixed-size signature before the call lets every rank compare
// all of them and fail alike, before any of the call's messages moves, so the
// communicator stays usable. It costs one small allgather per collective: off by default.
#include "coll/check.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "coll/executor.hpp"
#include "coll/registry.hpp"
#include "interlace/core/error.hpp"

namespace interlace::coll {

namespace {

constexpr uint64_t kPerRank = UINT64_MAX;  // count varies by rank (vector forms)
constexpr int32_t kNone = -1;              // op or root does not take part

// Same layout on every rank: all ranks run the same build of the library.
struct Signature {
  int32_t kind = 0, dt = 0, op = kNone, root = kNone;
  uint64_t count = 0, segment = 0, rules = 0;
  char algorithm[32] = {};
  char compression[16] = {};
};

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

void put(char* dst, size_t cap, const std::string& s) { std::strncpy(dst, s.c_str(), cap - 1); }

std::string text(const char* field, size_t cap) { return std::string(field, strnlen(field, cap)); }

std::string op_text(int32_t op) {
  if (op == kNone) return "";
  if (op == -2) return ", op user";
  return ", op " + std::string(reduce_op_name(static_cast<ReduceOp>(op)));
}

std::string describe(const Signature& s) {
  std::string out = std::string(kind_name(static_cast<Kind>(s.kind))) + "(";
  out += s.count == kPerRank ? "per-rank counts" : "count " + std::to_string(s.count);
  out += ", " + std::string(datatype_name(static_cast<Datatype>(s.dt)));
  out += op_text(s.op);
  if (s.root != kNone) out += ", root " + std::to_string(s.root);
  const std::string alg = text(s.algorithm, sizeof s.algorithm);
  out += ", algorithm " + (alg.empty() ? std::string("(table)") : alg);
  out += ", segment " + std::to_string(s.segment);
  const std::string z = text(s.compression, sizeof s.compression);
  if (!z.empty()) out += ", compression " + z;
  return out + ")";
}

std::string differences(const Signature& x, const Signature& y) {
  std::string d;
  auto add = [&](bool differ, const char* name) {
    if (differ) d += (d.empty() ? "" : ", ") + std::string(name);
  };
  add(x.kind != y.kind, "collective");
  add(x.count != y.count, "count");
  add(x.dt != y.dt, "datatype");
  add(x.op != y.op, "op");
  add(x.root != y.root, "root");
  add(std::memcmp(x.algorithm, y.algorithm, sizeof x.algorithm) != 0, "algorithm");
  add(x.segment != y.segment, "segment size");
  add(std::memcmp(x.compression, y.compression, sizeof x.compression) != 0, "compression");
  add(x.rules != y.rules, "INTERLACE_COLL rules");
  return d;
}

bool same(const Signature& x, const Signature& y) { return differences(x, y).empty(); }

}  // namespace

void agree_on_call(const std::shared_ptr<groups::CommState>& c, const Args& a, const Options& o, bool reduction,
                   bool rooted, bool uniform_count) {
  Signature mine;
  mine.kind = static_cast<int32_t>(a.kind);
  mine.dt = static_cast<int32_t>(a.dt);
  if (reduction) mine.op = a.op.is_builtin() ? static_cast<int32_t>(a.op.builtin()) : -2;
  if (rooted) mine.root = a.root;
  mine.count = uniform_count ? a.count : kPerRank;
  mine.segment = a.segment_bytes ? a.segment_bytes : c->rt->ctx->config().coll_segment;
  mine.rules = fnv1a(c->rt->ctx->config().coll_rules);
  put(mine.algorithm, sizeof mine.algorithm, o.algorithm);
  put(mine.compression, sizeof mine.compression, o.compression);
  if (a.size == 1) return;

  // The exchange is an allgather by a built-in algorithm, launched directly so that it
  // is not checked itself; its tags carry the allgather kind whatever the call is, so
  // ranks that called different collectives still meet here.
  std::vector<Signature> all(static_cast<size_t>(a.size));
  Args g;
  g.kind = Kind::allgather;
  g.rank = a.rank;
  g.size = a.size;
  g.sendbuf = &mine;
  g.recvbuf = all.data();
  g.count = sizeof(Signature);
  g.dt = Datatype::bytes;
  g.esize = 1;
  g.segment_bytes = 64 * 1024;
  auto s = std::make_shared<Schedule>(Datatype::bytes, Op{});
  choose(Kind::allgather, sizeof(Signature), a.size, true, "ring", nullptr, "").build(g, *s);
  launch(c, std::move(s), Kind::allgather, "collective check").wait();

  for (int r = 1; r < a.size; ++r) {
    if (same(all[0], all[static_cast<size_t>(r)])) continue;
    throw_error(Errc::protocol,
                "collective check (INTERLACE_COLL_CHECK=1): rank 0 called " + describe(all[0]) + " but rank " +
                    std::to_string(r) + " called " + describe(all[static_cast<size_t>(r)]) + "; they differ in " +
                    differences(all[0], all[static_cast<size_t>(r)]));
  }
}

}  // namespace interlace::coll
