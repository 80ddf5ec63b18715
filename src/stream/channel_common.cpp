#include "stream/channel_common.hpp"

#include <algorithm>
#include <limits>

namespace interlace::stream::detail {

namespace {
thread_local bool t_reserved_ok = false;
}

ReservedPortScope::ReservedPortScope() noexcept : prev_(t_reserved_ok) { t_reserved_ok = true; }
ReservedPortScope::~ReservedPortScope() { t_reserved_ok = prev_; }

OpenArgs check_open(const Communicator& comm, int peer, int port, size_t count, Datatype dt,
                    const char* op, const char* role) {
  if (comm.is_null()) throw_error(Errc::invalid_comm, std::string(op) + ": the communicator is null");
  engine::Context& ctx = comm.context();
  if (ctx.finalized())
    throw_error(Errc::finalized, std::string(op) + ": called after interlace was finalized");
  const int size = comm.size();
  if (peer < 0 || peer >= size)
    throw_error(Errc::invalid_rank, std::string(op) + ": " + role + " rank " + std::to_string(peer) +
                                        " is out of range for a communicator of size " +
                                        std::to_string(size));
  if (port < 0 && !t_reserved_ok)
    throw_error(Errc::invalid_tag, std::string(op) + ": port " + std::to_string(port) +
                                       " is invalid (ports are 0.." + std::to_string(kTagUpperBound) + ")");
  if (static_cast<unsigned>(dt) >= static_cast<unsigned>(kDatatypeCount))
    throw_error(Errc::invalid_datatype, std::string(op) + ": datatype code " +
                                            std::to_string(static_cast<int>(dt)) +
                                            " is not a valid datatype");
  if (count > std::numeric_limits<size_t>::max() / 2 / datatype_size(dt))
    throw_error(Errc::invalid_count, std::string(op) + ": count " + std::to_string(count) + " is too large");
  return OpenArgs{comm.id(), comm.world_rank_of(peer), peer, port};
}

void fill_endpoint(Endpoint& e, StreamEngine& eng, const OpenArgs& a, size_t count, Datatype dt,
                   size_t degree) {
  e.eng = &eng;
  e.comm = a.comm;
  e.peer = a.peer;
  e.peer_rank = a.peer_rank;
  e.port = a.port;
  e.dt = dt;
  e.es = static_cast<uint32_t>(datatype_size(dt));
  e.count = count;
  e.degree = std::max<size_t>(degree, 1);
  e.registered = false;
  e.err = Errc::ok;
}

}  // namespace interlace::stream::detail
