// Internal: the names the extern "C" entry points of shmem_*.cpp use. Using-declarations
// rather than using-directives: a directive for interlace::shmem would make its function
// pgas() collide with the namespace interlace::pgas.
#pragma once
#include "compat/shmem/shmem_state.hpp"
#include "interlace/core/error.hpp"

namespace pgas = interlace::pgas;
namespace shmem = interlace::shmem;
using interlace::Errc;
using interlace::throw_error;
using interlace::shmem::call;
using interlace::shmem::check_cmp;
using interlace::shmem::check_nelems;
using interlace::shmem::check_ptr;
using interlace::shmem::debug;
using interlace::shmem::domain_of;
using interlace::shmem::state;
using interlace::shmem::State;
using interlace::shmem::target_pe;
using interlace::shmem::world_barrier;
