// Contract: the rank and communicator state that every model shares (p2p, collectives,
// streams, and later PGAS and tasks). It sits above the engine and below the models,
// so no model reaches into another's internals to learn who is in a communicator.
//  - RuntimeState: one per rank; owns the engine Context. Models keep their per-rank
//    state in Context::model_state and find it from here.
//  - CommState: one per communicator handle family (dup/split create new ones): its
//    id (unique in the job), this rank's rank and the rank translation tables.
//    A communicator made by split/dup has an id no later communicator reuses: when
//    its last reference goes, every model that registered with the Context
//    (Context::add_comm_free_listener) drops what it keeps under that id (world and
//    self share fixed ids and are skipped).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "interlace/engine/context.hpp"

namespace interlace::groups {

inline constexpr uint64_t kWorldId = 1;
inline constexpr uint64_t kSelfId = 2;  // self traffic never leaves the rank: one id serves all

struct RuntimeState {
  std::unique_ptr<engine::Context> ctx;
  bool finalized = false;
  ~RuntimeState();  // finalizes the Context if the program did not
};

struct CommState {
  std::shared_ptr<RuntimeState> rt;
  uint64_t id = 0;
  int rank = 0;                     // my rank in this communicator
  std::vector<int> world_of;        // comm rank -> world rank
  std::vector<int> rank_of_world;   // world rank -> comm rank, -1 if not a member
  bool freed = false;

  ~CommState();
  static std::shared_ptr<CommState> make(std::shared_ptr<RuntimeState> rt, uint64_t id,
                                         std::vector<int> members);
  int size() const { return static_cast<int>(world_of.size()); }
  engine::Context& ctx() const { return *rt->ctx; }
  // A fresh id for a communicator this rank creates for a group: (this rank's world
  // rank + 1) << 32 | a per-rank counter, unique in the job without any agreement.
  uint64_t new_child_id() const;
  // Communicator::free: later calls on this handle family raise invalid_comm. The
  // models' state goes when the last reference does (requests may still hold one).
  void release() { freed = true; }
};

}  // namespace interlace::groups
