// Internal: runs schedules. One CollState per rank (engine model slot `coll`) holds
// the schedules in flight and each communicator's collective sequence number; an
// engine progress hook advances them, and so do wait()/test().
#pragma once
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "p2p/p2p_engine.hpp"

namespace interlace::coll {

struct CollState;

struct Run {
  std::shared_ptr<p2p::CommState> comm;
  std::shared_ptr<Schedule> sched;
  CollState* owner = nullptr;
  Kind kind = Kind::barrier;   // 0 (custom) for user schedules
  uint32_t seq = 0;
  std::string algorithm;
  std::vector<uint8_t> state;  // per step: 0 waiting, 1 started, 2 done
  std::vector<interlace::Request> reqs;
  std::vector<std::unique_ptr<std::byte[]>> wire;  // compressed messages in flight
  size_t first_open = 0;
  bool finished = false;
  std::exception_ptr error;
  std::vector<std::shared_ptr<void>> keep;  // front-end copies (in-place inputs)
  std::string what() const;     // "allreduce #3 (ring)"
};

struct CollState {
  explicit CollState(engine::Context& c) : ctx(c) {}
  engine::Context& ctx;
  std::vector<std::shared_ptr<Run>> active;
  std::unordered_map<uint64_t, uint32_t> seq;  // communicator id -> next sequence number
  static CollState& of(engine::Context& ctx);
  static bool hook(void* self);
};

// Internal tag of a message: collective kind, sequence number and message index,
// always negative and below the p2p layer's own internal tags.
int message_tag(Kind k, uint32_t seq, int sub) noexcept;

// Registers and starts a run (steps with no dependencies start at once).
Request launch(const std::shared_ptr<p2p::CommState>& c, std::shared_ptr<Schedule> s, Kind k,
               std::string algorithm, std::vector<std::shared_ptr<void>> keep = {});
// Advances as far as possible without waiting; true if any step moved.
bool advance(Run& r);
// Removes a finished run from its CollState (call with the context lock held).
void retire(Run& r);
// Ends a failed run: cancels its posted receives and marks it finished.
void abandon(Run& r);
// A posted receive whose message came under another collective kind: fails the run
// with Errc::protocol naming both collectives; true if so.
bool check_mismatch(Run& r);

const std::shared_ptr<p2p::CommState>& comm_state(const Communicator& c, const char* op);

}  // namespace interlace::coll
