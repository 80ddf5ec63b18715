#include "stream/coll_common.hpp"

#include <string>

#include "stream/channel_common.hpp"

namespace interlace::stream::detail {

int check_coll(const Communicator& comm, size_t count, Datatype dt, int port, int root,
               const char* what) {
  if (comm.is_null()) throw_error(Errc::invalid_comm, std::string(what) + ": the communicator is null");
  if (port < 0)
    throw_error(Errc::invalid_tag, std::string(what) + ": port " + std::to_string(port) +
                                       " is invalid (ports are 0.." + std::to_string(kTagUpperBound) + ")");
  const int size = comm.size();
  if (root < 0 || root >= size)
    throw_error(Errc::invalid_rank, std::string(what) + ": root " + std::to_string(root) +
                                        " is out of range for a communicator of size " +
                                        std::to_string(size));
  if (static_cast<unsigned>(dt) >= static_cast<unsigned>(kDatatypeCount))
    throw_error(Errc::invalid_datatype, std::string(what) + ": datatype code " +
                                            std::to_string(static_cast<int>(dt)) + " is not a valid datatype");
  (void)count;  // the channels check it against the element size
  return comm.rank();
}

SendChannel open_coll_send(const Communicator& comm, int dest, int port, size_t count, Datatype dt,
                           size_t degree) {
  ReservedPortScope scope;
  return SendChannel(comm, dest, coll_port(port), count, dt, degree);
}

RecvChannel open_coll_recv(const Communicator& comm, int source, int port, size_t count, Datatype dt,
                           size_t degree) {
  ReservedPortScope scope;
  return RecvChannel(comm, source, coll_port(port), count, dt, degree);
}

SendChannel open_token_send(const Communicator& comm, int dest, int port) {
  return open_coll_send(comm, dest, port, 1, Datatype::uint8, 1);
}

RecvChannel open_token_recv(const Communicator& comm, int source, int port) {
  return open_coll_recv(comm, source, port, 1, Datatype::uint8, 1);
}

void send_token(SendChannel& ch) {
  const uint8_t one = 1;
  ch.push(&one);
}

void wait_token(RecvChannel& ch) {
  uint8_t v = 0;
  ch.pop(&v);
}

void past_count(const char* what, int port, size_t calls) {
  throw_error(Errc::invalid_count, std::string(what) + " port " + std::to_string(port) +
                                       ": called more than the " + std::to_string(calls) +
                                       " times this rank takes part");
}

}  // namespace interlace::stream::detail
