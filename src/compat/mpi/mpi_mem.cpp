// MPI_Alloc_mem/MPI_Free_mem and the Fortran status conversions. Memory for windows needs
// nothing special here (a window over any memory works, docs/mpi-rma.md), so the memory
// is the C heap's; the info hints are checked and ignored.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

#include "compat/mpi/mpi_impl.hpp"
#include "compat/mpi/mpi_info.hpp"

using namespace interlace::mpi;

static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), "MPI_F_STATUS_SIZE");
static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                  offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                  offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
              "MPI_F_SOURCE, MPI_F_TAG, MPI_F_ERROR");

extern "C" {

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  return guard("MPI_Alloc_mem", MPI_COMM_WORLD, [&] {
    if (size < 0) raise(MPI_ERR_SIZE, "MPI_Alloc_mem: size " + std::to_string(size) + " is negative");
    if (!baseptr) raise(MPI_ERR_ARG, "MPI_Alloc_mem: baseptr is a null pointer");
    info_items(info);  // MPI_ERR_INFO for a bad handle
    // A size of 0 still gives a distinct pointer that MPI_Free_mem accepts.
    void* p = std::malloc(size > 0 ? static_cast<size_t>(size) : 1);
    if (!p) raise(MPI_ERR_NO_MEM, "MPI_Alloc_mem: cannot allocate " + std::to_string(size) + " bytes");
    std::memcpy(baseptr, &p, sizeof p);
  });
}

int MPI_Free_mem(void* base) {
  return guard("MPI_Free_mem", MPI_COMM_WORLD, [&] { std::free(base); });
}

int MPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  return guard("MPI_Status_c2f", MPI_COMM_WORLD, [&] {
    if (!c_status)  // MPI_STATUS_IGNORE is the null pointer
      raise(MPI_ERR_ARG, "MPI_Status_c2f: c_status is MPI_STATUS_IGNORE or a null pointer");
    if (!f_status) raise(MPI_ERR_ARG, "MPI_Status_c2f: f_status is MPI_F_STATUS_IGNORE or a null pointer");
    std::memcpy(f_status, c_status, sizeof(MPI_Status));
  });
}

int MPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  return guard("MPI_Status_f2c", MPI_COMM_WORLD, [&] {
    if (!f_status) raise(MPI_ERR_ARG, "MPI_Status_f2c: f_status is MPI_F_STATUS_IGNORE or a null pointer");
    if (!c_status)  // MPI_STATUS_IGNORE is the null pointer
      raise(MPI_ERR_ARG, "MPI_Status_f2c: c_status is MPI_STATUS_IGNORE or a null pointer");
    std::memcpy(c_status, f_status, sizeof(MPI_Status));
  });
}

}  // extern "C"
