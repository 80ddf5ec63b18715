// Internal: argument checks and byte staging shared by the collective files.
// The engine moves contiguous bytes; a buffer of a non-contiguous datatype is packed
// into a temp before and unpacked from it after the collective.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "mpi_coll_impl.hpp"

namespace interlace::mpi::collimpl {

// The communicator a collective runs on, looked up and checked once.
struct Ctx {
  const char* call;
  const Communicator* comm;
  int rank, size;
};
Ctx open(const char* call, MPI_Comm c);
void check_root(const Ctx& k, int root);
void check_nonneg(const Ctx& k, int value, const char* what);
// Checks n counts (MPI_ERR_COUNT naming the index) and that the arrays are not null.
void check_counts(const Ctx& k, const int* counts, const int* displs, const char* what);
std::string describe(int count, const TypeObj& t, MPI_Datatype h);  // "3 x MPI_INT (12 bytes)"

// Adds the temps that exist to what the collective keeps alive (contiguous buffers
// have none: the common case allocates nothing here).
inline void hold(Pending& p, const std::shared_ptr<std::vector<std::byte>>& a,
                 const std::shared_ptr<std::vector<std::byte>>& b = {}) {
  if (a) p.keep.push_back(a);
  if (b) p.keep.push_back(b);
}

// A user buffer seen as contiguous bytes: the buffer itself, or a packed temp.
struct Stage {
  std::byte* data = nullptr;
  size_t bytes = 0;
  std::shared_ptr<std::vector<std::byte>> tmp;  // set when packing is needed
};
// Input of count elements (packed copy when t is not contiguous).
Stage stage_in(const void* buf, int count, const TypeObj& t);
// Output of count elements; load: also pack the current contents (in-place inputs).
Stage stage_out(void* buf, int count, const TypeObj& t, bool load);
// Unpacks an output stage into the user buffer (no-op without a temp).
void unstage(const Stage& s, void* buf, int count, const TypeObj& t);
// unstage as a Pending::finish (empty without a temp); keeps its own copy of the type,
// which the program may free while a non-blocking collective is still running.
std::function<void()> finisher(const Stage& s, void* buf, int count, const TypeObj& t);

// A vector-form buffer: n blocks of counts[i] elements at displs[i] extents from buf,
// as bytes for the engine (counts and displacements in bytes from `data`).
struct VStage {
  Stage s;
  std::vector<size_t> counts, displs;
};
VStage stage_v(const void* buf, const int* counts, const int* displs, int n, const TypeObj& t, bool load);
void unstage_v(const VStage& v, void* buf, const int* counts, const int* displs, int n, const TypeObj& t);

}  // namespace interlace::mpi::collimpl
