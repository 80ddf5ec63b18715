// Contract: the completion record that every model's requests wrap (p2p requests,
// collective runs; channel, one-sided and task operations to come), so one wait can
// cover any mix of them (Context::wait_for: the MPI layer's Waitany over p2p and
// collective requests is one wait loop, not a poll in time slices).
//  - The owning model sets `done` under the Context lock (from a frame handler, a
//    progress hook, or its own poll()) once the operation has finished, failed or
//    been cancelled; the model keeps the outcome (status, error) itself.
//  - poll() advances work that moves only when a waiter asks (a collective schedule
//    starting its next steps); it runs under the Context lock and returns true if
//    anything moved. Operations driven entirely by frames keep the default.
#pragma once

namespace interlace::engine {

struct Completion {
  bool done = false;
  virtual bool poll() { return false; }
  virtual ~Completion() = default;
};

}  // namespace interlace::engine
