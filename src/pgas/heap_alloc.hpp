// The symmetric heap's allocator: first fit over offsets, deterministic, so PEs that
// make the same calls in the same order get the same offsets (OpenSHMEM's collective
// shmem_malloc relies on it; no agreement traffic is needed). Offsets only: the heap
// may live at a different address on every PE.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

namespace interlace::pgas {

class HeapAllocator {
 public:
  explicit HeapAllocator(size_t capacity = 0) { reset(capacity); }
  void reset(size_t capacity);
  // Offset of a block of `bytes` (> 0) aligned to `alignment` (a power of two), or
  // nullopt when no free range fits.
  std::optional<size_t> allocate(size_t bytes, size_t alignment);
  // Size of the block at `offset`, 0 if no block starts there.
  size_t block_size(size_t offset) const;
  // Grows or shrinks the block in place when the following range allows; false if not.
  bool resize_in_place(size_t offset, size_t bytes);
  bool release(size_t offset);  // false if no block starts there
  size_t used() const noexcept { return used_; }
  size_t capacity() const noexcept { return capacity_; }
  size_t largest_free() const;

 private:
  void add_free(size_t off, size_t len);
  std::map<size_t, size_t> free_;  // offset -> length, coalesced
  std::map<size_t, size_t> used_blocks_;
  size_t used_ = 0;
  size_t capacity_ = 0;
};

}  // namespace interlace::pgas
