// Symmetric memory: shmem_malloc and friends. Every routine is collective: the core's
// allocator is deterministic, so PEs calling in the same order get the same offsets;
// the barriers are the specification's (the block is usable everywhere on return, and
// nobody still accesses a block when it is freed or moved).
#include <cstring>

#include "compat/shmem/shmem_entry.hpp"
#include "interlace/core/error.hpp"


namespace {

constexpr size_t kDefaultAlign = 16;

void* allocate(const char* routine, size_t bytes, size_t alignment, bool zero = false) {
  return call(routine, [&] {
    pgas::Pgas& p = shmem::pgas(routine);
    check_nelems(bytes, "size");
    void* mem = bytes ? p.malloc(bytes, alignment) : nullptr;
    // Zeroed before the barrier: after it a peer may already put into the block.
    if (mem && zero) std::memset(mem, 0, bytes);
    world_barrier();
    debug(std::string(routine) + "(" + std::to_string(bytes) + ") = " +
          std::to_string(reinterpret_cast<uintptr_t>(mem)));
    return mem;
  });
}

void release(const char* routine, void* ptr) {
  call(routine, [&] {
    pgas::Pgas& p = shmem::pgas(routine);
    world_barrier();
    p.free(ptr);
  });
}

void* reallocate(const char* routine, void* ptr, size_t bytes) {
  return call(routine, [&] {
    pgas::Pgas& p = shmem::pgas(routine);
    check_nelems(bytes, "size");
    world_barrier();
    void* mem = nullptr;
    if (ptr == nullptr) mem = bytes ? p.malloc(bytes, kDefaultAlign) : nullptr;
    else if (bytes == 0) p.free(ptr);
    else mem = p.realloc(ptr, bytes);
    world_barrier();
    return mem;
  });
}

void check_alignment(size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    throw_error(Errc::invalid_argument,
                "alignment " + std::to_string(alignment) + " is not a power of two");
}

}  // namespace

extern "C" {

void* shmem_malloc(size_t size) { return allocate("shmem_malloc", size, kDefaultAlign); }

void* shmem_calloc(size_t count, size_t size) {
  size_t bytes = 0;
  call("shmem_calloc", [&] {
    check_nelems(count, "count");
    check_nelems(size, "size");
    if (__builtin_mul_overflow(count, size, &bytes))
      throw_error(Errc::invalid_count, "count " + std::to_string(count) + " times size " +
                                           std::to_string(size) + " overflows size_t");
  });
  return allocate("shmem_calloc", bytes, kDefaultAlign, true);
}

void* shmem_align(size_t alignment, size_t size) {
  call("shmem_align", [&] { check_alignment(alignment); });
  return allocate("shmem_align", size, alignment < kDefaultAlign ? kDefaultAlign : alignment);
}

void* shmem_realloc(void* ptr, size_t size) { return reallocate("shmem_realloc", ptr, size); }

void shmem_free(void* ptr) { release("shmem_free", ptr); }

void* shmem_malloc_with_hints(size_t size, long hints) {
  // Every hint (SHMEM_MALLOC_ATOMICS_REMOTE, _SIGNAL_REMOTE, unknown bits) is accepted
  // and changes nothing: all of the heap serves remote atomics and signals.
  return allocate("shmem_malloc_with_hints", size, kDefaultAlign);
}

void* shmalloc(size_t size) { return allocate("shmalloc", size, kDefaultAlign); }

void shfree(void* ptr) { release("shfree", ptr); }

void* shrealloc(void* ptr, size_t size) { return reallocate("shrealloc", ptr, size); }

void* shmemalign(size_t alignment, size_t size) {
  call("shmemalign", [&] { check_alignment(alignment); });
  return allocate("shmemalign", size, alignment < kDefaultAlign ? kDefaultAlign : alignment);
}

}  // extern "C"
