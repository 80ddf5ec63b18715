// Contract: matched probes (MPI_Mprobe/Improbe/Mrecv/Imrecv). A claimed message is taken
// out of matching: no receive or probe, of any thread, sees it again, and only
// receive_claimed() can take its data (the sender of a rendezvous message waits until
// then). Counts as matched for eager credit.
#pragma once
#include <cstddef>
#include <memory>

#include "interlace/p2p/communicator.hpp"
#include "interlace/p2p/request.hpp"

namespace interlace {

namespace p2p { struct ClaimedImpl; }

class ClaimedMessage {
 public:
  ClaimedMessage();
  ~ClaimedMessage();
  ClaimedMessage(ClaimedMessage&&) noexcept;
  ClaimedMessage& operator=(ClaimedMessage&&) noexcept;
  bool empty() const noexcept;  // default, or already received

 private:
  friend bool try_claim(const Communicator&, int, int, ClaimedMessage*, Status*);
  friend ClaimedMessage claim_blocking(const Communicator&, int, int, Status*);
  friend Request receive_claimed(ClaimedMessage&, void*, size_t);
  std::unique_ptr<p2p::ClaimedImpl> impl_;
};

// source: a rank of c or ANY_SOURCE (not PROC_NULL: the caller answers that itself).
// Progresses once when nothing has arrived yet; true and *out filled on a match.
bool try_claim(const Communicator& c, int source, int tag, ClaimedMessage* out, Status* st);
// Waits (within INTERLACE_TIMEOUT) for a matching message, then claims it.
ClaimedMessage claim_blocking(const Communicator& c, int source, int tag, Status* st);
// Starts receiving the claimed message into buf (bytes long); m becomes empty.
Request receive_claimed(ClaimedMessage& m, void* buf, size_t bytes);

}  // namespace interlace
