// SMI_Open_*_channel / SMI_Bcast / SMI_Reduce / SMI_Scatter / SMI_Gather over
// interlace::stream's collective channels. Unlike SMI_Push/SMI_Pop these calls are
// not inline: each element goes through the library (a collective element touches
// several channels anyway).
#include <algorithm>
#include <string>

#include "compat/smi/smi_state.hpp"
#include "interlace/stream/collectives.hpp"

using namespace interlace;
using namespace interlace::compat::smi;

static_assert(int(SMI_ADD) == int(ReduceOp::sum) && int(SMI_MIN) == int(ReduceOp::min) &&
                  int(SMI_MAX) == int(ReduceOp::max) && int(SMI_LOR) == int(ReduceOp::lor),
              "SMI_Op values must equal interlace::ReduceOp");

namespace {

size_t elem_size(SMI_Datatype type) {
  const size_t es = SMI_Type_size(type);
  if (es == 0) throw_error(Errc::invalid_datatype, "type " + std::to_string(int(type)) + " is not an SMI_Datatype");
  return es;
}

size_t count_of(int count, const char* what) {
  if (count < 0) throw_error(Errc::invalid_count, std::string(what) + " " + std::to_string(count) + " is negative");
  return static_cast<size_t>(count);
}

size_t default_degree(SMI_Datatype type) { return std::max<size_t>(1, SMI_DEFAULT_DEGREE_BYTES / elem_size(type)); }

// Scatter and gather move the same number of elements per rank each way.
size_t same_counts(int send_count, int recv_count) {
  count_of(send_count, "send_count");
  count_of(recv_count, "recv_count");
  if (send_count != recv_count)
    throw_error(Errc::invalid_count, "send_count " + std::to_string(send_count) + " and recv_count " +
                                         std::to_string(recv_count) + " differ (they are per rank)");
  return static_cast<size_t>(send_count);
}

// Runs one element of a collective; releases the channel after its last call.
template <class Desc, class Impl, class F>
void step(const char* call, Desc* c, F&& f) {
  if (!c) { fail(call, SMI_ERR_ARG, "the channel pointer is NULL"); return; }
  if (!c->impl) {
    fail(call, SMI_ERR_CHANNEL, "the channel on port " + std::to_string(c->port) +
                                    " is closed (all its elements moved) or failed to open");
    return;
  }
  auto* impl = static_cast<Impl*>(c->impl);
  try {
    f(*impl);
  } catch (...) {
    fail_current(call);
    return;
  }
  if (impl->remaining() == 0) {
    delete impl;
    c->impl = nullptr;
  }
}

template <class Impl, class Desc>
void release_if_empty(Desc& d) {
  auto* impl = static_cast<Impl*>(d.impl);
  if (impl && impl->remaining() == 0) {
    delete impl;
    d.impl = nullptr;
  }
}

}  // namespace

extern "C" {

SMI_BChannel SMI_Open_bcast_channel_ad(int count, SMI_Datatype type, int port, int root, SMI_Comm comm,
                                       int asynch_degree) {
  const char* call = "SMI_Open_bcast_channel";
  SMI_BChannel d{nullptr, port, root, count, type};
  try {
    const size_t n = count_of(count, "count");
    elem_size(type);
    if (asynch_degree < 0)
      throw_error(Errc::invalid_argument, "asynchronicity degree " + std::to_string(asynch_degree) + " is negative");
    Communicator w = resolve(comm, call);
    d.impl = new stream::BcastChannel(w, n, static_cast<Datatype>(type), port, root,
                                      static_cast<size_t>(asynch_degree));
    release_if_empty<stream::BcastChannel>(d);
  } catch (...) {
    fail_current(call);
  }
  return d;
}

SMI_BChannel SMI_Open_bcast_channel(int count, SMI_Datatype type, int port, int root, SMI_Comm comm) {
  const size_t es = SMI_Type_size(type);
  const int k = es ? static_cast<int>(std::max<size_t>(1, SMI_DEFAULT_DEGREE_BYTES / es)) : 1;
  return SMI_Open_bcast_channel_ad(count, type, port, root, comm, k);
}

void SMI_Bcast(SMI_BChannel* c, void* data) {
  step<SMI_BChannel, stream::BcastChannel>("SMI_Bcast", c, [&](stream::BcastChannel& ch) {
    if (!data) throw_error(Errc::invalid_argument, "the data pointer is NULL");
    ch.bcast(data);
  });
}

SMI_RChannel SMI_Open_reduce_channel_ad(int count, SMI_Datatype type, SMI_Op op, int port, int root,
                                        SMI_Comm comm, int tile) {
  const char* call = "SMI_Open_reduce_channel";
  SMI_RChannel d{nullptr, port, root, count, type, op};
  try {
    const size_t n = count_of(count, "count");
    elem_size(type);
    if (tile < 0) throw_error(Errc::invalid_argument, "tile " + std::to_string(tile) + " is negative");
    Communicator w = resolve(comm, call);
    d.impl = new stream::ReduceChannel(w, n, static_cast<Datatype>(type), static_cast<ReduceOp>(op), port,
                                       root, static_cast<size_t>(tile));
    release_if_empty<stream::ReduceChannel>(d);
  } catch (...) {
    fail_current(call);
  }
  return d;
}

SMI_RChannel SMI_Open_reduce_channel(int count, SMI_Datatype type, SMI_Op op, int port, int root,
                                     SMI_Comm comm) {
  return SMI_Open_reduce_channel_ad(count, type, op, port, root, comm, SMI_DEFAULT_REDUCE_TILE);
}

void SMI_Reduce(SMI_RChannel* c, void* data_snd, void* data_rcv) {
  step<SMI_RChannel, stream::ReduceChannel>("SMI_Reduce", c, [&](stream::ReduceChannel& ch) {
    ch.reduce(data_snd, data_rcv);
  });
}

SMI_ScatterChannel SMI_Open_scatter_channel(int send_count, int recv_count, SMI_Datatype type, int port,
                                            int root, SMI_Comm comm) {
  const char* call = "SMI_Open_scatter_channel";
  SMI_ScatterChannel d{nullptr, port, root, send_count, recv_count, type};
  try {
    const size_t n = same_counts(send_count, recv_count);
    Communicator w = resolve(comm, call);
    d.impl = new stream::ScatterChannel(w, n, static_cast<Datatype>(type), port, root, default_degree(type));
    release_if_empty<stream::ScatterChannel>(d);
  } catch (...) {
    fail_current(call);
  }
  return d;
}

void SMI_Scatter(SMI_ScatterChannel* c, void* data_snd, void* data_rcv) {
  step<SMI_ScatterChannel, stream::ScatterChannel>("SMI_Scatter", c, [&](stream::ScatterChannel& ch) {
    ch.scatter(data_snd, data_rcv);
  });
}

SMI_GatherChannel SMI_Open_gather_channel(int send_count, int recv_count, SMI_Datatype type, int port,
                                          int root, SMI_Comm comm) {
  const char* call = "SMI_Open_gather_channel";
  SMI_GatherChannel d{nullptr, port, root, send_count, recv_count, type};
  try {
    const size_t n = same_counts(send_count, recv_count);
    Communicator w = resolve(comm, call);
    d.impl = new stream::GatherChannel(w, n, static_cast<Datatype>(type), port, root, default_degree(type));
    release_if_empty<stream::GatherChannel>(d);
  } catch (...) {
    fail_current(call);
  }
  return d;
}

void SMI_Gather(SMI_GatherChannel* c, void* data_snd, void* data_rcv) {
  step<SMI_GatherChannel, stream::GatherChannel>("SMI_Gather", c, [&](stream::GatherChannel& ch) {
    ch.gather(data_snd, data_rcv);
  });
}

}  // extern "C"
