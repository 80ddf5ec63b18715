// Partitioned communication (MPI 4): MPI_Psend_init/Precv_init make persistent requests
// whose buffer is `partitions` x `count` elements. The message goes as one transfer:
// a started send waits (kind part_wait) until MPI_Pready has marked every partition,
// possibly from several threads, then sends the whole buffer; a receive is posted at
// MPI_Start and every partition arrives when the message does (MPI_Parrived). The
// message is an ordinary one with the user's tag, so a plain receive with that tag
// could also match it: keep partitioned tags apart from other traffic on a
// communicator (docs/mpi.md).
#include "compat/mpi/mpi_p2p.hpp"

namespace interlace::mpi {
namespace {

struct PartState : engine::Completion {  // done: every partition marked ready
  bool send = true;
  int partitions = 0;
  std::vector<char> ready;
  int marked = 0;
  // What the transfer needs (the type is the request's own copy).
  const void* buf = nullptr;
  int total = 0;
  std::shared_ptr<const TypeObj> type;
  int peer = 0, tag = 0;
  MPI_Comm comm = MPI_COMM_NULL;
};

PartState& part_of(MPI_Request h, ReqObj& r, bool want_send, const char* call) {
  if (!r.part)
    raise(MPI_ERR_REQUEST, "request " + std::to_string(h) + " is not a partitioned request (" +
                               std::string(want_send ? "MPI_Psend_init" : "MPI_Precv_init") + ")");
  auto& p = static_cast<PartState&>(*r.part);
  if (p.send != want_send)
    raise(MPI_ERR_REQUEST, std::string(call) + " needs a partitioned " +
                               (want_send ? "send" : "receive") + " request; request " +
                               std::to_string(h) + " is a partitioned " +
                               (p.send ? "send" : "receive"));
  return p;
}

void check_partition(const PartState& p, int partition) {
  if (partition < 0 || partition >= p.partitions)
    raise(MPI_ERR_ARG, "partition " + std::to_string(partition) + " is out of range (the request has " +
                           std::to_string(p.partitions) + " partitions)");
}

int total_count(int partitions, MPI_Count count) {
  if (partitions < 1)
    raise(MPI_ERR_ARG, "partitions " + std::to_string(partitions) + " must be at least 1");
  narrow_count(count, "count");
  return narrow_count(count * partitions, "partitions x count");
}

void mark_ready(MPI_Request h, int partition) {
  ReqObj& r = req_obj(h);
  PartState& p = part_of(h, r, true, "MPI_Pready");
  check_partition(p, partition);
  if (r.kind != ReqObj::Kind::part_wait) {
    if (r.kind == ReqObj::Kind::persistent_inactive)
      raise(MPI_ERR_REQUEST, "partitioned send " + std::to_string(h) + " is not started (MPI_Start)");
    raise(MPI_ERR_REQUEST, "partition " + std::to_string(partition) + " of request " +
                               std::to_string(h) + " is already marked ready");
  }
  if (p.ready[partition])
    raise(MPI_ERR_REQUEST, "partition " + std::to_string(partition) + " of request " +
                               std::to_string(h) + " is already marked ready");
  p.ready[partition] = 1;
  if (++p.marked < p.partitions) return;
  ReqObj s = start_send(comm_of(p.comm), p.buf, p.total, *p.type, p.peer, p.tag, p.comm, false);
  r.kind = ReqObj::Kind::p2p;
  r.p2p = std::move(s.p2p);
  r.keep = std::move(s.keep);
  p.done = true;  // after the switch: a waiting thread re-reads the kind under the lock
}

MPI_Request partitioned(std::shared_ptr<PartState> proto, void* recvbuf) {
  ReqObj r;
  r.kind = ReqObj::Kind::persistent_inactive;
  r.persistent = true;
  r.comm = proto->comm;
  empty_status(&r.status);
  r.part = proto;
  r.start = [proto, recvbuf](ReqObj& self) {
    auto p = std::make_shared<PartState>(*proto);  // a fresh round: nothing marked yet
    self.part = p;
    self.on_complete = nullptr;
    if (p->send) {
      self.kind = ReqObj::Kind::part_wait;
      return;
    }
    ReqObj fresh =
        start_recv(comm_of(p->comm), recvbuf, p->total, *p->type, p->peer, p->tag, p->comm, p->type);
    self.kind = fresh.kind;
    self.p2p = std::move(fresh.p2p);
    self.keep = std::move(fresh.keep);
    self.on_complete = std::move(fresh.on_complete);
  };
  return new_request(std::move(r));
}

}  // namespace
}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype dt, int dest,
                   int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  (void)info;  // no partitioned hints are used
  return guard("MPI_Psend_init", comm, [&] {
    check_out(request, "request");
    const int total = total_count(partitions, count);
    auto p = std::make_shared<PartState>();
    p->send = true;
    p->partitions = partitions;
    p->ready.assign(static_cast<size_t>(partitions), 0);
    p->buf = buf;
    p->total = total;
    p->type = keep_type(*check_send(total, dt, dest, tag, comm).t);
    p->peer = dest;
    p->tag = tag;
    p->comm = comm;
    *request = partitioned(std::move(p), nullptr);
  });
}

int MPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype dt, int source,
                   int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  (void)info;
  return guard("MPI_Precv_init", comm, [&] {
    check_out(request, "request");
    const int total = total_count(partitions, count);
    if (source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)
      raise(MPI_ERR_ARG, "a partitioned receive needs a definite source and tag (not "
                         "MPI_ANY_SOURCE or MPI_ANY_TAG)");
    auto p = std::make_shared<PartState>();
    p->send = false;
    p->partitions = partitions;
    p->total = total;
    p->type = keep_type(*check_recv(total, dt, source, tag, comm).t);
    p->peer = source;
    p->tag = tag;
    p->comm = comm;
    *request = partitioned(std::move(p), buf);
  });
}

int MPI_Pready(int partition, MPI_Request request) {
  return guard("MPI_Pready", comm_of_request(request), [&] { mark_ready(request, partition); });
}

int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  return guard("MPI_Pready_range", comm_of_request(request), [&] {
    if (partition_low > partition_high)
      raise(MPI_ERR_ARG, "partition_low " + std::to_string(partition_low) +
                             " is above partition_high " + std::to_string(partition_high));
    for (int i = partition_low; i <= partition_high; ++i) mark_ready(request, i);
  });
}

int MPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  return guard("MPI_Pready_list", comm_of_request(request), [&] {
    check_count(length, "length");
    if (length > 0) check_out(array_of_partitions, "array_of_partitions");
    for (int i = 0; i < length; ++i) mark_ready(request, array_of_partitions[i]);
  });
}

int MPI_Parrived(MPI_Request request, int partition, int* flag) {
  return guard("MPI_Parrived", comm_of_request(request), [&] {
    check_out(flag, "flag");
    ReqObj& r = req_obj(request);
    check_partition(part_of(request, r, false, "MPI_Parrived"), partition);
    // Inactive (not started, or completed and reported): nothing is outstanding.
    *flag = settle(r, false);
  });
}

}  // extern "C"
