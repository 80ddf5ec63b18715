// Argument checks and byte staging for the MPI collectives (see mpi_coll_stage.hpp),
// and the two ways a started collective completes: at once, or as a request.
#include "mpi_coll_stage.hpp"

#include <algorithm>
#include <cstring>

namespace interlace::mpi::collimpl {

Ctx open(const char* call, MPI_Comm c) {
  require_initialized(call);
  const Communicator& comm = comm_of(c);
  return Ctx{call, &comm, comm.rank(), comm.size()};
}

void check_root(const Ctx& k, int root) {
  if (root < 0 || root >= k.size)
    raise(MPI_ERR_ROOT, std::string(k.call) + ": root " + std::to_string(root) +
                            " is not a rank of a communicator of size " + std::to_string(k.size));
}

void check_nonneg(const Ctx& k, int value, const char* what) {
  if (value < 0)
    raise(MPI_ERR_COUNT, std::string(k.call) + ": " + what + " " + std::to_string(value) + " is negative");
}

void check_counts(const Ctx& k, const int* counts, const int* displs, const char* what) {
  if (!counts) raise(MPI_ERR_ARG, std::string(k.call) + ": " + what + " is null");
  if (!displs) raise(MPI_ERR_ARG, std::string(k.call) + ": the displacements for " + what + " are null");
  for (int i = 0; i < k.size; ++i)
    if (counts[i] < 0)
      raise(MPI_ERR_COUNT, std::string(k.call) + ": " + what + "[" + std::to_string(i) + "] " +
                               std::to_string(counts[i]) + " is negative");
}

std::string describe(int count, const TypeObj& t, MPI_Datatype h) {
  return std::to_string(count) + " x " + (t.name.empty() ? "datatype " + std::to_string(h) : t.name) + " (" +
         std::to_string(data_bytes(t, count)) + " bytes)";
}

Stage stage_in(const void* buf, int count, const TypeObj& t) {
  Stage s;
  s.bytes = data_bytes(t, count);
  if (t.contiguous() || s.bytes == 0) {
    s.data = static_cast<std::byte*>(const_cast<void*>(buf));
    return s;
  }
  s.tmp = std::make_shared<std::vector<std::byte>>(s.bytes);
  pack(buf, count, t, s.tmp->data());
  s.data = s.tmp->data();
  return s;
}

Stage stage_out(void* buf, int count, const TypeObj& t, bool load) {
  Stage s;
  s.bytes = data_bytes(t, count);
  if (t.contiguous() || s.bytes == 0) {
    s.data = static_cast<std::byte*>(buf);
    return s;
  }
  s.tmp = std::make_shared<std::vector<std::byte>>(s.bytes);
  if (load) pack(buf, count, t, s.tmp->data());
  s.data = s.tmp->data();
  return s;
}

void unstage(const Stage& s, void* buf, int count, const TypeObj& t) {
  if (s.tmp) unpack(s.tmp->data(), count, t, buf);
}

std::function<void()> finisher(const Stage& s, void* buf, int count, const TypeObj& t) {
  if (!s.tmp) return {};
  auto type = std::make_shared<TypeObj>(t);
  return [s, buf, count, type] { unstage(s, buf, count, *type); };
}

VStage stage_v(const void* buf, const int* counts, const int* displs, int n, const TypeObj& t, bool load) {
  VStage v;
  v.counts.resize(n);
  v.displs.resize(n);
  const size_t esize = data_bytes(t, 1);
  if (t.contiguous()) {
    // The engine takes unsigned displacements: start at the lowest block.
    int lowest = 0;
    for (int i = 0; i < n; ++i) lowest = std::min(lowest, displs[i]);
    v.s.data = static_cast<std::byte*>(const_cast<void*>(buf)) + static_cast<std::ptrdiff_t>(lowest) * t.extent;
    for (int i = 0; i < n; ++i) {
      v.counts[i] = static_cast<size_t>(counts[i]) * esize;
      v.displs[i] = static_cast<size_t>(displs[i] - lowest) * static_cast<size_t>(t.extent);
      v.s.bytes = std::max(v.s.bytes, v.displs[i] + v.counts[i]);
    }
    return v;
  }
  // Packed: block i follows block i-1.
  for (int i = 0; i < n; ++i) {
    v.counts[i] = static_cast<size_t>(counts[i]) * esize;
    v.displs[i] = v.s.bytes;
    v.s.bytes += v.counts[i];
  }
  v.s.tmp = std::make_shared<std::vector<std::byte>>(std::max<size_t>(v.s.bytes, 1));
  v.s.data = v.s.tmp->data();
  if (load)
    for (int i = 0; i < n; ++i)
      if (counts[i] > 0)
        pack(static_cast<const std::byte*>(buf) + static_cast<std::ptrdiff_t>(displs[i]) * t.extent, counts[i], t,
             v.s.data + v.displs[i]);
  return v;
}

void unstage_v(const VStage& v, void* buf, const int* counts, const int* displs, int n, const TypeObj& t) {
  if (!v.s.tmp) return;
  for (int i = 0; i < n; ++i)
    if (counts[i] > 0)
      unpack(v.s.data + v.displs[i], counts[i], t,
             static_cast<std::byte*>(buf) + static_cast<std::ptrdiff_t>(displs[i]) * t.extent);
}

void complete(Pending p) {
  p.req.wait();
  if (p.finish) p.finish();
}

void check_request_arg(const char* call, const MPI_Request* request) {
  if (!request) raise(MPI_ERR_ARG, std::string(call) + ": request is null");
}

void to_request(Pending p, MPI_Comm comm, MPI_Request* request) {
  ReqObj r;
  r.kind = ReqObj::Kind::coll;
  r.coll = std::move(p.req);
  r.comm = comm;
  if (p.finish) r.on_complete = [finish = std::move(p.finish)](MPI_Status&) { finish(); };
  if (!p.keep.empty()) r.keep = std::make_shared<std::vector<std::shared_ptr<void>>>(std::move(p.keep));
  *request = new_request(std::move(r));
}

}  // namespace interlace::mpi::collimpl
