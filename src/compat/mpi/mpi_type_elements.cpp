// Counting basic elements (MPI_Get_elements and its _x/_c forms) and the MPI_Count
// forms of the datatype queries.
#include <climits>

#include "compat/mpi/mpi_type_builder.hpp"

namespace interlace::mpi {

// Whole elements contribute all their basic elements; the bytes left over are walked
// through one element's runs, and must end on a basic element's boundary.
long long elements_in(const TypeObj& t, size_t bytes) {
  if (t.size == 0 || bytes == 0) return 0;
  long long per = 0;
  for (const TypeObj::Run& r : t.runs) per += static_cast<long long>(r.count);
  long long n = static_cast<long long>(bytes / t.size) * per;
  size_t rest = bytes % t.size;
  for (const TypeObj::Run& r : t.runs) {
    if (rest == 0) break;
    const size_t esize = state().types.get(r.type)->size;
    if (esize == 0) continue;
    const size_t whole = std::min(r.count, rest / esize);
    n += static_cast<long long>(whole);
    rest -= whole * esize;
    if (whole < r.count) break;  // the bytes end inside this run
  }
  return rest == 0 ? n : -1;
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

namespace {

int count_query(const char* call, const MPI_Status* status, MPI_Datatype dt, MPI_Count* count, bool elements) {
  return guard(call, MPI_COMM_NULL, [&] {
    check_ptr(status, call, "status");
    check_ptr(count, call, "count");
    const TypeObj& t = type_obj(dt);
    const auto bytes = static_cast<size_t>(status->il_bytes);
    if (elements) {
      const long long n = elements_in(t, bytes);
      *count = n < 0 ? MPI_UNDEFINED : n;
    } else if (t.size == 0) {
      *count = 0;
    } else {
      *count = bytes % t.size ? MPI_UNDEFINED : static_cast<MPI_Count>(bytes / t.size);
    }
  });
}

using Query = std::function<void(const TypeObj&)>;
int query(const char* call, MPI_Datatype h, std::initializer_list<const void*> outs, const Query& f) {
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    for (const void* p : outs) check_ptr(p, call, "an output argument");
    f(any_type(h, call, "datatype"));
  });
}

}  // namespace

extern "C" {

int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return count_query("MPI_Get_elements_x", status, datatype, count, true);
}

int MPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return count_query("MPI_Get_elements_c", status, datatype, count, true);
}

int MPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return count_query("MPI_Get_count_c", status, datatype, count, false);
}

int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  return query("MPI_Type_size_c", datatype, {size}, [&](const TypeObj& t) { *size = static_cast<MPI_Count>(t.size); });
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return query("MPI_Type_get_extent_x", datatype, {lb, extent}, [&](const TypeObj& t) {
    *lb = t.lb;
    *extent = t.extent;
  });
}

int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return query("MPI_Type_get_extent_c", datatype, {lb, extent}, [&](const TypeObj& t) {
    *lb = t.lb;
    *extent = t.extent;
  });
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return query("MPI_Type_get_true_extent_x", datatype, {true_lb, true_extent}, [&](const TypeObj& t) {
    *true_lb = t.true_lb;
    *true_extent = t.true_extent;
  });
}

int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return query("MPI_Type_get_true_extent_c", datatype, {true_lb, true_extent}, [&](const TypeObj& t) {
    *true_lb = t.true_lb;
    *true_extent = t.true_extent;
  });
}

}  // extern "C"
