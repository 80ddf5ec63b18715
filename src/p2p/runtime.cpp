#include <cstdlib>
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <random>
#include <thread>

#include "interlace/core/log.hpp"
#include "interlace/p2p/communicator.hpp"
#include "p2p/p2p_engine.hpp"

namespace interlace {

using p2p::CommState;
using p2p::RuntimeState;

using groups::kSelfId;
using groups::kWorldId;

Runtime Runtime::init() { return Runtime(engine::Context::options_from_environment()); }

Runtime::Runtime(const engine::ContextOptions& opts) {
  auto st = std::make_shared<RuntimeState>();
  st->ctx = std::make_unique<engine::Context>(opts);
  {
    // With INTERLACE_PROGRESS=thread the progress thread already runs, and the engine's
    // handlers find their state through this slot.
    std::lock_guard<engine::OptionalLock> g(st->ctx->lock());
    st->ctx->model_state(engine::Context::Model::p2p) = std::make_shared<p2p::P2pEngine>(*st->ctx);
  }
  state_ = std::move(st);
}

static RuntimeState& live(const std::shared_ptr<RuntimeState>& s, const char* op) {
  if (!s) throw_error(Errc::invalid_argument, std::string(op) + ": runtime is not initialised");
  if (s->finalized) throw_error(Errc::finalized, std::string(op) + ": called after finalize");
  return *s;
}

Communicator Runtime::world() const {
  RuntimeState& s = live(state_, "world");
  std::vector<int> members(s.ctx->size());
  for (int i = 0; i < s.ctx->size(); ++i) members[i] = i;
  return Communicator(CommState::make(state_, kWorldId, std::move(members)));
}

Communicator Runtime::self() const {
  RuntimeState& s = live(state_, "self");
  return Communicator(CommState::make(state_, kSelfId, {s.ctx->rank()}));
}

engine::Context& Runtime::context() const { return *live(state_, "context").ctx; }

void Runtime::finalize() {
  if (!state_ || state_->finalized) return;
  state_->ctx->finalize();
  state_->finalized = true;
  p2p::engine_of(*state_).abandon_pending();
}

bool Runtime::finalized() const { return !state_ || state_->finalized; }

// ---- communicator creation -------------------------------------------------

// Rank 0 of the parent gathers (color, key) from every member, forms the groups
// (ordered by key, then parent rank) and hands each member its group and a new id.
// Ids are (root world rank + 1) << 32 | a counter of the root, so they are unique in
// the job without any global agreement.
Communicator Communicator::split(int color, int key) const {
  CommState& c = state();
  if (c.rt->finalized) throw_error(Errc::finalized, "split: called after finalize");
  if (c.freed) throw_error(Errc::invalid_comm, "split: communicator was freed");
  if (color < 0 && color != UNDEFINED)
    throw_error(Errc::invalid_argument, "split: color " + std::to_string(color) +
                                            " is negative (use UNDEFINED to opt out)");
  c.ctx().require_no_foreign(c.world_of, "communicator creation (split)");
  const int n = c.size();
  int32_t mine[2] = {color, key};
  std::vector<int64_t> reply;
  if (c.rank == 0) {
    std::vector<int32_t> all(2 * n);
    all[0] = color;
    all[1] = key;
    for (int r = 1; r < n; ++r)
      p2p::internal_irecv(state_, &all[2 * r], 2, Datatype::int32, r, p2p::kTagSplit).wait();
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      if (all[2 * a] != all[2 * b]) return all[2 * a] < all[2 * b];
      return all[2 * a + 1] < all[2 * b + 1];
    });
    // Per rank: [id, members...] in world ranks.
    std::vector<std::vector<int64_t>> out(n);
    for (size_t i = 0; i < order.size();) {
      size_t j = i;
      while (j < order.size() && all[2 * order[j]] == all[2 * order[i]]) ++j;
      const int col = all[2 * order[i]];
      std::vector<int64_t> msg;
      if (col == UNDEFINED) {
        msg.push_back(0);
      } else {
        const uint64_t id = c.new_child_id();  // this rank is the group's root
        msg.push_back(static_cast<int64_t>(id));
        for (size_t k = i; k < j; ++k) msg.push_back(c.world_of[order[k]]);
      }
      for (size_t k = i; k < j; ++k) out[order[k]] = msg;
      i = j;
    }
    for (int r = 1; r < n; ++r)
      p2p::internal_isend(state_, out[r].data(), out[r].size(), Datatype::int64, r,
                          p2p::kTagSplitReply).wait();
    reply = std::move(out[0]);
  } else {
    p2p::internal_isend(state_, mine, 2, Datatype::int32, 0, p2p::kTagSplit).wait();
    Status st = p2p::internal_probe(c, 0, p2p::kTagSplitReply);
    reply.resize(st.count(Datatype::int64));
    p2p::internal_irecv(state_, reply.data(), reply.size(), Datatype::int64, 0,
                        p2p::kTagSplitReply).wait();
  }
  if (reply.empty() || reply[0] == 0) return Communicator{};
  std::vector<int> members(reply.begin() + 1, reply.end());
  return Communicator(CommState::make(c.rt, static_cast<uint64_t>(reply[0]), std::move(members)));
}

Communicator Communicator::dup() const { return split(0, rank()); }

void Communicator::free() {
  CommState& c = state();
  if (c.id == kWorldId || c.id == kSelfId)
    throw_error(Errc::invalid_comm, "free: the world and self communicators cannot be freed");
  c.release();
  state_.reset();
}

// ---- threads-as-ranks harness ----------------------------------------------

void run_ranks_as_threads(int size, const std::function<void(Runtime&)>& fn,
                          const std::string& fabric) {
  if (size < 1) throw_error(Errc::invalid_argument, "run_ranks_as_threads: size " + std::to_string(size));
  static std::atomic<uint64_t> counter{0};
  std::random_device rd;
  const std::string job = "t" + std::to_string(rd() % 100000) + "x" + std::to_string(++counter);
  auto store = bootstrap::shared_memory_store();
  Config cfg = Config::from_env();
  cfg.fabric = fabric;
  // INTERLACE_THREADS_FABRIC reruns the threads batteries on another fabric (sim):
  // it replaces the default shm only, tests that name a fabric keep it.
  if (const char* over = std::getenv("INTERLACE_THREADS_FABRIC"); over && *over && fabric == "shm")
    cfg.fabric = over;
  std::mutex m;
  std::exception_ptr first;
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([&, r] {
      try {
        engine::ContextOptions o;
        o.env.rank = r;
        o.env.size = size;
        // Every rank shares this host (and its cores): the wait policy counts them to
        // see a crowded host, whatever the fabric (tcp, udp) says about its scope.
        o.env.local_rank = r;
        o.env.local_size = size;
        o.env.job_id = job;
        o.env.secret = "threads";
        o.env.host = "localhost";
        o.env.source = "threads";
        o.config = cfg;
        o.store = store;
        Runtime rt(o);
        fn(rt);
        rt.finalize();
      } catch (const std::exception& e) {
        // Logged at once: the other ranks may hang waiting for this one.
        IL_LOG(error, "threads-as-ranks: rank " << r << " failed: " << e.what());
        std::lock_guard<std::mutex> g(m);
        if (!first) first = std::current_exception();
      } catch (...) {
        std::lock_guard<std::mutex> g(m);
        if (!first) first = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace interlace
