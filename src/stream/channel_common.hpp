// Internal: argument checks and endpoint set-up shared by both channel ends.
#pragma once
#include <string>

#include "stream/stream_engine.hpp"

namespace interlace::stream::detail {

struct OpenArgs {
  uint64_t comm;
  int peer;       // world rank
  int peer_rank;  // communicator rank
  int port;
};

// Raises an Error naming the bad value; `op` is the class, `role` the peer's role.
OpenArgs check_open(const Communicator& comm, int peer, int port, size_t count, Datatype dt,
                    const char* op, const char* role);

// While one lives on a thread, channels opened by that thread may use the negative
// ports reserved for streaming collectives (src/stream/coll_common.cpp).
struct ReservedPortScope {
  ReservedPortScope() noexcept;
  ~ReservedPortScope();
  ReservedPortScope(const ReservedPortScope&) = delete;
  ReservedPortScope& operator=(const ReservedPortScope&) = delete;
 private:
  bool prev_;
};

void fill_endpoint(Endpoint& e, StreamEngine& eng, const OpenArgs& a, size_t count, Datatype dt,
                   size_t degree);

}  // namespace interlace::stream::detail
