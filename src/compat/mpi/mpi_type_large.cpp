// The large-count (MPI 4 `_c`) forms of the datatype constructors and of MPI_Pack,
// MPI_Unpack and MPI_Pack_size. interlace's typemaps and packing carry int counts, so
// each count is checked to fit an int (else MPI_ERR_COUNT naming it) and the int form
// runs; the type's contents are then those of the int form.
#include <climits>

#include "compat/mpi/mpi_type_builder.hpp"

namespace interlace::mpi {
namespace {

// Runs the int form `f` under guard() after converting; errors of f keep their codes.
template <class F>
int narrowed(const char* call, F&& f) {
  int rc = MPI_SUCCESS;
  const int conv = guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    rc = f();
  });
  return conv != MPI_SUCCESS ? conv : rc;
}

std::vector<int> ints_of(const MPI_Count* a, MPI_Count n, const char* call, const char* what) {
  if (n > 0) check_ptr(a, call, what);
  std::vector<int> out;
  for (MPI_Count i = 0; i < n; ++i) out.push_back(int_count(a[i], call, what));
  return out;
}

std::vector<MPI_Aint> aints_of(const MPI_Count* a, MPI_Count n, const char* call, const char* what) {
  if (n > 0) check_ptr(a, call, what);
  return n > 0 ? std::vector<MPI_Aint>(a, a + n) : std::vector<MPI_Aint>{};
}

}  // namespace
}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_contiguous_c";
  return narrowed(call, [&] { return MPI_Type_contiguous(int_count(count, call, "count"), oldtype, newtype); });
}

int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_vector_c";
  return narrowed(call, [&] {
    return MPI_Type_vector(int_count(count, call, "count"), int_count(blocklength, call, "blocklength"),
                           int_count(stride, call, "stride"), oldtype, newtype);
  });
}

int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_hvector_c";
  return narrowed(call, [&] {
    return MPI_Type_create_hvector(int_count(count, call, "count"), int_count(blocklength, call, "blocklength"),
                                   static_cast<MPI_Aint>(stride), oldtype, newtype);
  });
}

int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_indexed_c";
  return narrowed(call, [&] {
    const int n = int_count(count, call, "count");
    const auto bl = ints_of(array_of_blocklengths, count, call, "array_of_blocklengths");
    const auto d = ints_of(array_of_displacements, count, call, "array_of_displacements");
    return MPI_Type_indexed(n, bl.data(), d.data(), oldtype, newtype);
  });
}

int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_hindexed_c";
  return narrowed(call, [&] {
    const int n = int_count(count, call, "count");
    const auto bl = ints_of(array_of_blocklengths, count, call, "array_of_blocklengths");
    const auto d = aints_of(array_of_displacements, count, call, "array_of_displacements");
    return MPI_Type_create_hindexed(n, bl.data(), d.data(), oldtype, newtype);
  });
}

int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_indexed_block_c";
  return narrowed(call, [&] {
    const int n = int_count(count, call, "count");
    const auto d = ints_of(array_of_displacements, count, call, "array_of_displacements");
    return MPI_Type_create_indexed_block(n, int_count(blocklength, call, "blocklength"), d.data(), oldtype,
                                         newtype);
  });
}

int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_hindexed_block_c";
  return narrowed(call, [&] {
    const int n = int_count(count, call, "count");
    const auto d = aints_of(array_of_displacements, count, call, "array_of_displacements");
    return MPI_Type_create_hindexed_block(n, int_count(blocklength, call, "blocklength"), d.data(), oldtype,
                                          newtype);
  });
}

int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                             const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                             MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_struct_c";
  return narrowed(call, [&] {
    const int n = int_count(count, call, "count");
    const auto bl = ints_of(array_of_blocklengths, count, call, "array_of_blocklengths");
    const auto d = aints_of(array_of_displacements, count, call, "array_of_displacements");
    return MPI_Type_create_struct(n, bl.data(), d.data(), array_of_types, newtype);
  });
}

int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype* newtype) {
  return MPI_Type_create_resized(oldtype, static_cast<MPI_Aint>(lb), static_cast<MPI_Aint>(extent), newtype);
}

int MPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
               MPI_Count* position, MPI_Comm comm) {
  static constexpr const char* call = "MPI_Pack_c";
  return narrowed(call, [&] {
    check_ptr(position, call, "position");
    // outsize and position may exceed an int while the data is small: pack at an
    // offset then move the position.
    int pos = 0;
    const MPI_Count room = outsize - *position;
    if (*position < 0 || room < 0)
      raise(MPI_ERR_TRUNCATE, std::string(call) + ": position " + std::to_string(*position) +
                                  " is outside outsize " + std::to_string(outsize));
    const int rc = MPI_Pack(inbuf, int_count(incount, call, "incount"), datatype,
                            static_cast<std::byte*>(outbuf) + *position,
                            static_cast<int>(std::min<MPI_Count>(room, INT_MAX)), &pos, comm);
    if (rc == MPI_SUCCESS) *position += pos;
    return rc;
  });
}

int MPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf, MPI_Count outcount,
                 MPI_Datatype datatype, MPI_Comm comm) {
  static constexpr const char* call = "MPI_Unpack_c";
  return narrowed(call, [&] {
    check_ptr(position, call, "position");
    int pos = 0;
    const MPI_Count room = insize - *position;
    if (*position < 0 || room < 0)
      raise(MPI_ERR_TRUNCATE, std::string(call) + ": position " + std::to_string(*position) +
                                  " is outside insize " + std::to_string(insize));
    const int rc = MPI_Unpack(static_cast<const std::byte*>(inbuf) + *position,
                              static_cast<int>(std::min<MPI_Count>(room, INT_MAX)), &pos, outbuf,
                              int_count(outcount, call, "outcount"), datatype, comm);
    if (rc == MPI_SUCCESS) *position += pos;
    return rc;
  });
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  static constexpr const char* call = "MPI_Pack_size_c";
  return narrowed(call, [&] {
    check_ptr(size, call, "size");
    int s = 0;
    const int rc = MPI_Pack_size(int_count(incount, call, "incount"), datatype, comm, &s);
    if (rc == MPI_SUCCESS) *size = s;
    return rc;
  });
}

}  // extern "C"
