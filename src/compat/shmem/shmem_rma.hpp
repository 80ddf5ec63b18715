// Internal: the RMA operations every typed, sized and context entry point of
// shmem_rma*.cpp forwards to, with the argument checks the core cannot make.
#pragma once
#include <cstddef>
#include <cstdint>

#include "compat/shmem/shmem_state.hpp"

namespace interlace::shmem {

enum class Dir { put, get };

// nelems elements of elem bytes; nbi as in pgas::Pgas::put/get.
void rma(const char* routine, shmem_ctx_t ctx, Dir dir, void* dest, const void* source,
         size_t nelems, size_t elem, int pe, bool nbi);
void rma_strided(const char* routine, shmem_ctx_t ctx, Dir dir, void* dest, const void* source,
                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem, int pe);
void rma_signal(const char* routine, shmem_ctx_t ctx, void* dest, const void* source,
                size_t nelems, size_t elem, uint64_t* sig_addr, uint64_t signal, int sig_op,
                int pe, bool nbi);

uint64_t signal_fetch(const uint64_t* sig_addr);

}  // namespace interlace::shmem
