// Internal: runs schedules. One CollState per rank (engine model slot `coll`) holds
// the schedules in flight and each communicator's collective sequence number; an
// engine progress hook advances them, and so do wait()/test().
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/engine/completion.hpp"
#include "interlace/groups/comm_state.hpp"
#include "interlace/p2p/request.hpp"
#include "interlace/p2p/transport.hpp"

namespace interlace::coll {

struct CollState;

// A run is the engine completion record of a collective: done once every step finished
// or it failed; poll() advances its steps (and checks for a mismatched peer now and then).
struct Run : engine::Completion {
  std::shared_ptr<groups::CommState> comm;
  std::shared_ptr<Schedule> sched;
  CollState* owner = nullptr;
  Kind kind = Kind::barrier;   // 0 (custom) for user schedules
  uint32_t seq = 0;
  std::string algorithm;
  std::vector<uint8_t> state;  // per step: 0 waiting, 1 started, 2 done
  std::vector<interlace::Request> reqs;
  std::vector<std::unique_ptr<std::byte[]>> wire;  // compressed messages in flight
  size_t first_open = 0;
  std::exception_ptr error;
  std::vector<std::shared_ptr<void>> keep;  // front-end copies (in-place inputs)
  // Runs owned by a Plan are handed out again once no call holds them (see Plan).
  std::atomic<bool> in_use{false};
  std::string what() const;     // "allreduce #3 (ring)"
  bool poll() override;
  // Mismatch checks while waiting: a clock read every 256 polls (a read per poll was a
  // sixth of a small call's time), a check every 2 ms once a wait has gone on.
  uint64_t last_check = 0;
  unsigned polls = 0;
};

// A cached call shape: every argument a built-in builder reads, so equal keys build
// equal schedules (buffers included: the steps hold raw pointers).
struct PlanKey {
  uint64_t comm = 0, generation = 0;
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;
  size_t count = 0, segment_bytes = 0;
  int root = 0, rank = 0, size = 0;  // rank and size: the schedule is this rank's part
  Kind kind = Kind::barrier;
  Datatype dt = Datatype::bytes;
  ReduceOp op = ReduceOp::sum;
  std::string algorithm;  // Options::algorithm as requested ("" mostly)
  bool operator==(const PlanKey&) const = default;
};

// A built schedule and the Run that executes it, reused by later calls with the same
// key: a repeated small collective then costs no allocation, no registry lookup and
// no schedule building. The Run is lent to one call at a time through a shared_ptr
// whose control block lives in `control`; releasing it marks the Run free again and
// drops its communicator, so an idle plan never keeps the communicator (and through
// it this CollState) alive.
struct Plan {
  PlanKey key;
  std::unique_ptr<Run> run;
  uint32_t* seq = nullptr;   // this communicator's sequence counter in CollState::seq
  uint64_t last_use = 0;
  alignas(std::max_align_t) std::byte control[64];
};

struct CollState {
  explicit CollState(engine::Context& c) : ctx(c) {}
  engine::Context& ctx;
  std::vector<std::shared_ptr<Run>> active;
  std::unordered_map<uint64_t, uint32_t> seq;  // communicator id -> next sequence number
  std::vector<std::unique_ptr<Plan>> plans;    // small: a linear scan beats hashing
  uint64_t plan_clock = 0;
  // INTERLACE_COLL_SEGMENT (Config::coll_segment), copied here: read on every call.
  size_t segment_bytes = 64 * 1024;
  static CollState& of(engine::Context& ctx);
  // Communicator ids this rank keeps state for (sequence counters, plans): returns to
  // its value before a communicator was made once that communicator is gone.
  size_t comm_entries() const noexcept;
  static bool hook(void* self);
};

// Internal tag of a message: collective kind, sequence number and message index,
// always negative and below the p2p layer's own internal tags.
int message_tag(Kind k, uint32_t seq, int sub) noexcept;

// Registers and starts a run (steps with no dependencies start at once).
Request launch(const std::shared_ptr<groups::CommState>& c, std::shared_ptr<Schedule> s, Kind k,
               std::string algorithm, std::vector<std::shared_ptr<void>> keep = {});

// The plan cache (plan_cache.cpp). reuse_plan resolves a.segment_bytes (0: this
// rank's Config::coll_segment) and, for an eligible call whose plan is cached and
// idle, starts it; otherwise it returns a null Request and the caller builds the
// schedule, then launch_cached runs it and keeps it for the next call when it can.
Request reuse_plan(const std::shared_ptr<groups::CommState>& c, Args& a, const std::string& requested,
                   bool eligible);
Request launch_cached(const std::shared_ptr<groups::CommState>& c, const Args& a, const std::string& requested,
                      std::shared_ptr<Schedule> s, std::string algorithm);

// Advances as far as possible without waiting; true if any step moved.
bool advance(Run& r);
// Removes a finished run from its CollState (call with the context lock held).
void retire(Run& r);
// Ends a failed run: cancels its posted receives and marks it finished.
void abandon(Run& r);
// A posted receive whose message came under another collective kind: fails the run
// with Errc::protocol naming both collectives; true if so.
bool check_mismatch(Run& r);

const std::shared_ptr<groups::CommState>& comm_state(const Communicator& c, const char* op);

}  // namespace interlace::coll
