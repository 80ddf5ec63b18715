// Status accessors (MPI_Status_set_* and the MPI 4.1 get_* calls) and the MPI 4.1
// MPI_Request_get_status_any/all/some, which test like Test* but free nothing.
// A status carries the received bytes; set_elements stores the bytes of `count` basic
// elements of the type, so that MPI_Get_elements and MPI_Get_count read them back.
#include <algorithm>

#include "compat/mpi/mpi_p2p.hpp"

namespace interlace::mpi {
namespace {

void check_status(const void* status) {
  if (!status) raise(MPI_ERR_ARG, "status is a null pointer (MPI_STATUS_IGNORE has nothing to set)");
}

// The packed bytes of the first `count` basic elements of a message of type dt: whole
// elements of dt, then the leading runs of one more (TypeObj::runs, the walk
// MPI_Get_elements does the other way in elements_in), so every type works, pairs and
// types mixing basic types included.
long long bytes_of_elements(MPI_Datatype dt, MPI_Count count) {
  const TypeObj& t = type_obj(dt);
  if (count < 0) raise(MPI_ERR_COUNT, "count " + std::to_string(count) + " is negative");
  if (count == 0 || t.size == 0) return 0;
  long long per = 0;
  for (const TypeObj::Run& r : t.runs) per += static_cast<long long>(r.count);
  if (per == 0)
    raise(MPI_ERR_TYPE, "datatype " + (t.name.empty() ? std::to_string(dt) : t.name) +
                            " has no basic elements recorded");
  long long bytes = count / per * static_cast<long long>(t.size);
  long long rest = count % per;
  for (const TypeObj::Run& r : t.runs) {
    if (rest == 0) break;
    const long long n = std::min(rest, static_cast<long long>(r.count));
    bytes += n * static_cast<long long>(type_obj(r.type).size);
    rest -= n;
  }
  return bytes;
}

MPI_Status empty_st() {
  MPI_Status st;
  empty_status(&st);
  return st;
}

}  // namespace
}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype dt, int count) {
  return guard("MPI_Status_set_elements", MPI_COMM_NULL, [&] {
    check_status(status);
    status->il_bytes = bytes_of_elements(dt, count);
  });
}

int MPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype dt, MPI_Count count) {
  return guard("MPI_Status_set_elements_x", MPI_COMM_NULL, [&] {
    check_status(status);
    status->il_bytes = bytes_of_elements(dt, count);
  });
}

int MPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype dt, MPI_Count count) {
  return guard("MPI_Status_set_elements_c", MPI_COMM_NULL, [&] {
    check_status(status);
    status->il_bytes = bytes_of_elements(dt, count);
  });
}

int MPI_Status_set_cancelled(MPI_Status* status, int flag) {
  return guard("MPI_Status_set_cancelled", MPI_COMM_NULL, [&] {
    check_status(status);
    status->il_cancelled = flag != 0;
  });
}

int MPI_Status_set_source(MPI_Status* status, int source) {
  return guard("MPI_Status_set_source", MPI_COMM_NULL, [&] {
    check_status(status);
    status->MPI_SOURCE = source;
  });
}

int MPI_Status_set_tag(MPI_Status* status, int tag) {
  return guard("MPI_Status_set_tag", MPI_COMM_NULL, [&] {
    check_status(status);
    status->MPI_TAG = tag;
  });
}

int MPI_Status_set_error(MPI_Status* status, int error) {
  return guard("MPI_Status_set_error", MPI_COMM_NULL, [&] {
    check_status(status);
    status->MPI_ERROR = error;
  });
}

int MPI_Status_get_source(const MPI_Status* status, int* source) {
  return guard("MPI_Status_get_source", MPI_COMM_NULL, [&] {
    check_status(status);
    check_out(source, "source");
    *source = status->MPI_SOURCE;
  });
}

int MPI_Status_get_tag(const MPI_Status* status, int* tag) {
  return guard("MPI_Status_get_tag", MPI_COMM_NULL, [&] {
    check_status(status);
    check_out(tag, "tag");
    *tag = status->MPI_TAG;
  });
}

int MPI_Status_get_error(const MPI_Status* status, int* error) {
  return guard("MPI_Status_get_error", MPI_COMM_NULL, [&] {
    check_status(status);
    check_out(error, "error");
    *error = status->MPI_ERROR;
  });
}

int MPI_Request_get_status_any(int count, MPI_Request reqs[], int* index, int* flag,
                               MPI_Status* status) {
  return guard("MPI_Request_get_status_any", comm_of_requests(count, reqs), [&] {
    require_initialized("MPI_Request_get_status_any");
    check_requests(count, reqs);
    check_out(index, "index");
    check_out(flag, "flag");
    *flag = 0;
    *index = MPI_UNDEFINED;
    bool any_active = false;
    for (int i = 0; i < count; ++i) {
      if (!is_active(reqs[i])) continue;
      any_active = true;
      ReqObj& r = req_obj(reqs[i]);
      if (!settle(r, false)) continue;
      *flag = 1;
      *index = i;
      if (status) *status = r.status;
      return;
    }
    if (!any_active) {
      *flag = 1;
      if (status) *status = empty_st();
    }
  });
}

int MPI_Request_get_status_all(int count, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  return guard("MPI_Request_get_status_all", comm_of_requests(count, reqs), [&] {
    require_initialized("MPI_Request_get_status_all");
    check_requests(count, reqs);
    check_out(flag, "flag");
    bool all = true;
    for (int i = 0; i < count; ++i)
      if (is_active(reqs[i]) && !settle(req_obj(reqs[i]), false)) all = false;
    *flag = all;
    if (!all || !statuses) return;
    for (int i = 0; i < count; ++i)
      statuses[i] = is_active(reqs[i]) ? req_obj(reqs[i]).status : empty_st();
  });
}

int MPI_Request_get_status_some(int incount, MPI_Request reqs[], int* outcount, int indices[],
                                MPI_Status statuses[]) {
  return guard("MPI_Request_get_status_some", comm_of_requests(incount, reqs), [&] {
    require_initialized("MPI_Request_get_status_some");
    check_requests(incount, reqs);
    check_out(outcount, "outcount");
    bool any_active = false;
    int n = 0;
    for (int i = 0; i < incount; ++i) {
      if (!is_active(reqs[i])) continue;
      any_active = true;
      ReqObj& r = req_obj(reqs[i]);
      if (!settle(r, false)) continue;
      if (!indices) raise(MPI_ERR_ARG, "array_of_indices is a null pointer");
      indices[n] = i;
      if (statuses) statuses[n] = r.status;
      ++n;
    }
    *outcount = any_active ? n : MPI_UNDEFINED;
  });
}

}  // extern "C"
