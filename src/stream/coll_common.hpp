// Internal: what the four streaming collectives share: argument checks, the mapping
// of a collective's port onto the reserved negative stream ports, and the one-byte
// control channels (readiness, "send now").
#pragma once
#include <cstddef>

#include "interlace/stream/channel.hpp"

namespace interlace::stream::detail {

// Port p of a collective is stream port -1 - p: all of 0..2^31-1 fits, and no
// point-to-point channel can use it.
inline int coll_port(int port) noexcept { return -1 - port; }

// Raises an Error naming the bad value; returns the caller's rank.
int check_coll(const Communicator& comm, size_t count, Datatype dt, int port, int root,
               const char* what);

SendChannel open_coll_send(const Communicator& comm, int dest, int port, size_t count, Datatype dt,
                           size_t degree);
RecvChannel open_coll_recv(const Communicator& comm, int source, int port, size_t count, Datatype dt,
                           size_t degree);

// Control channels carry one byte; they are eager, so sending never waits.
SendChannel open_token_send(const Communicator& comm, int dest, int port);
RecvChannel open_token_recv(const Communicator& comm, int source, int port);
void send_token(SendChannel& ch);
void wait_token(RecvChannel& ch);

// Raises invalid_count: "CLASS port P: call N is past the COUNT calls of this rank".
[[noreturn]] void past_count(const char* what, int port, size_t calls);

}  // namespace interlace::stream::detail
