// Datatype queries (size, extents), addresses and MPI_Pack/MPI_Unpack/MPI_Pack_size.
// Sizes and extents may be asked of uncommitted types; packing needs a committed one.
#include <climits>
#include <cstdint>

#include "compat/mpi/mpi_impl.hpp"

namespace interlace::mpi {
// mpi_type_create.cpp: a datatype, committed or not, or MPI_ERR_TYPE naming it.
TypeObj& any_type(MPI_Datatype h, const char* call, const char* what);
}  // namespace interlace::mpi

using namespace interlace::mpi;

namespace {

void check_out(const void* p, const char* call, const char* what) {
  if (!p) raise(MPI_ERR_ARG, std::string(call) + ": " + what + " is NULL");
}

// The query calls share this shape: initialized, output non-null, type valid.
int query(const char* call, MPI_Datatype h, const void* out, const std::function<void(const TypeObj&)>& f) {
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    check_out(out, call, "output argument");
    f(any_type(h, call, "datatype"));
  });
}

}  // namespace

extern "C" {

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  return query("MPI_Type_size", datatype, size, [&](const TypeObj& t) {
    *size = t.size > static_cast<size_t>(INT_MAX) ? MPI_UNDEFINED : static_cast<int>(t.size);
  });
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  return query("MPI_Type_size_x", datatype, size,
               [&](const TypeObj& t) { *size = static_cast<MPI_Count>(t.size); });
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return query("MPI_Type_get_extent", datatype, lb, [&](const TypeObj& t) {
    check_out(extent, "MPI_Type_get_extent", "extent");
    *lb = t.lb;
    *extent = t.extent;
  });
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  return query("MPI_Type_get_true_extent", datatype, true_lb, [&](const TypeObj& t) {
    check_out(true_extent, "MPI_Type_get_true_extent", "true_extent");
    *true_lb = t.true_lb;
    *true_extent = t.true_extent;
  });
}

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  return query("MPI_Type_extent", datatype, extent, [&](const TypeObj& t) { *extent = t.extent; });
}

int MPI_Get_address(const void* location, MPI_Aint* address) {
  return guard("MPI_Get_address", MPI_COMM_NULL, [&] {
    check_out(address, "MPI_Get_address", "address");
    *address = static_cast<MPI_Aint>(reinterpret_cast<uintptr_t>(location));
  });
}

int MPI_Address(void* location, MPI_Aint* address) { return MPI_Get_address(location, address); }

// Address arithmetic is plain integer arithmetic on this flat address space.
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(base) + static_cast<uintptr_t>(disp));
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(addr1) - static_cast<uintptr_t>(addr2));
}

int MPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
             int* position, MPI_Comm comm) {
  return guard("MPI_Pack", comm, [&] {
    require_initialized("MPI_Pack");
    comm_obj(comm);
    check_count(incount, "incount");
    check_out(position, "MPI_Pack", "position");
    const TypeObj& t = type_obj(datatype);
    const size_t bytes = data_bytes(t, incount);
    if (*position < 0 || outsize < 0 || static_cast<size_t>(*position) + bytes > static_cast<size_t>(outsize))
      raise(MPI_ERR_TRUNCATE, "MPI_Pack: " + std::to_string(bytes) + " bytes at position " +
                                  std::to_string(*position) + " do not fit outsize " + std::to_string(outsize));
    if (bytes == 0) return;
    check_out(inbuf, "MPI_Pack", "inbuf");
    check_out(outbuf, "MPI_Pack", "outbuf");
    pack(inbuf, incount, t, static_cast<std::byte*>(outbuf) + *position);
    *position += static_cast<int>(bytes);
  });
}

int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm) {
  return guard("MPI_Unpack", comm, [&] {
    require_initialized("MPI_Unpack");
    comm_obj(comm);
    check_count(outcount, "outcount");
    check_out(position, "MPI_Unpack", "position");
    const TypeObj& t = type_obj(datatype);
    const size_t bytes = data_bytes(t, outcount);
    if (*position < 0 || insize < 0 || static_cast<size_t>(*position) + bytes > static_cast<size_t>(insize))
      raise(MPI_ERR_TRUNCATE, "MPI_Unpack: " + std::to_string(bytes) + " bytes at position " +
                                  std::to_string(*position) + " exceed insize " + std::to_string(insize));
    if (bytes == 0) return;
    check_out(inbuf, "MPI_Unpack", "inbuf");
    check_out(outbuf, "MPI_Unpack", "outbuf");
    unpack(static_cast<const std::byte*>(inbuf) + *position, outcount, t, outbuf);
    *position += static_cast<int>(bytes);
  });
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  return guard("MPI_Pack_size", comm, [&] {
    require_initialized("MPI_Pack_size");
    comm_obj(comm);
    check_count(incount, "incount");
    check_out(size, "MPI_Pack_size", "size");
    const size_t bytes = data_bytes(type_obj(datatype), incount);
    if (bytes > static_cast<size_t>(INT_MAX))
      raise(MPI_ERR_COUNT, "MPI_Pack_size: " + std::to_string(bytes) + " bytes exceed INT_MAX");
    *size = static_cast<int>(bytes);
  });
}

}  // extern "C"
