// Teams of shmem.h (OpenSHMEM 1.5) and the communicators every collective runs on.
//  - A team is a Communicator (members in team order) plus its configuration. Handles
//    are numbers: SHMEM_TEAM_WORLD (1) and SHMEM_TEAM_SHARED (2) are predefined, split
//    teams get 3, 4, ... never reused, so a destroyed handle is reported as such.
//  - Active sets (PE_start, logPE_stride, PE_size) of the deprecated collectives become
//    communicators made without communication (CommState::make) under an id that every
//    member computes alike, in a range no other communicator uses: bit 63 set, see
//    active_set_id(). They are cached for the life of the process (as pSync would be).
//  - SHMEM_TEAM_SHARED: the world PEs whose symmetric heap this PE can load and store
//    (Pgas::ptr != nullptr): on shm every PE of the host, on tcp the PE alone. Its id is
//    bit 63 | bit 62 | its lowest world PE.
//  - Errors throw interlace::Error naming the value; the C entry points turn them into
//    the fatal report of shmem::call.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "compat/shmem/shmem_state.hpp"
#include "interlace/coll/coll.hpp"
#include "shmem.h"

namespace interlace::shmem::teams {

struct Team {
  Communicator comm;
  shmem_team_config_t config{0};
  long config_mask = 0;
};

// The team behind a handle; throws invalid_argument naming the handle when it is
// SHMEM_TEAM_INVALID, destroyed or never was a team of this PE.
Team& team(shmem_team_t t, const char* routine);
// The communicator of an active set, created (and cached) on first use. Checks the
// triplet against the number of PEs and that this PE is a member.
Communicator active_set(int start, int log_stride, int size, const char* routine);
uint64_t active_set_id(int start, int log_stride, int size);
// Registers a new team under a fresh handle / forgets one.
shmem_team_t add_team(Team t);
Team remove_team(shmem_team_t t);

// Drops every team and active set (shmem_finalize may call it before the runtime goes;
// harmless if it does not: the registry is never destroyed).
void finalize() noexcept;

// ---- collectives on a communicator (shmem_coll*.cpp) ----------------------------------
// Sizes are elements of `elem` bytes; every function checks its arguments first.
void broadcast(const Communicator& c, void* dest, const void* src, size_t nelems, size_t elem,
               int root, bool update_root, const char* routine);
void collect(const Communicator& c, void* dest, const void* src, size_t nelems, size_t elem,
             const char* routine);
void fcollect(const Communicator& c, void* dest, const void* src, size_t nelems, size_t elem,
              const char* routine);
void alltoall(const Communicator& c, void* dest, const void* src, size_t nelems, size_t elem,
              const char* routine);
void alltoalls(const Communicator& c, void* dest, const void* src, ptrdiff_t dst, ptrdiff_t sst,
               size_t nelems, size_t elem, const char* routine);

enum class RedOp { and_, or_, xor_, max, min, sum, prod };
// The engine datatype, count multiplier and op that reduce n elements of a C type
// (shmem_coll_reduce.cpp instantiates it for every type of the tables).
struct Reduction {
  Datatype dt = Datatype::bytes;
  size_t per_elem = 1;  // engine elements per C element
  coll::Op op;
  coll::Options opts;
};
template <class T> Reduction reduction_for(RedOp op);
void reduce(const Communicator& c, void* dest, const void* src, size_t n, size_t elem,
            const Reduction& r, const char* routine);

// Bytes of nelems elements, or invalid_count naming nelems when beyond 2^48 (a
// negative count converted to size_t lands there).
size_t bytes_of(size_t nelems, size_t elem, const char* what);

}  // namespace interlace::shmem::teams
