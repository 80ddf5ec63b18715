#include "pgas/heap_alloc.hpp"

#include <algorithm>

namespace interlace::pgas {

namespace {
// Blocks are multiples of this, so neighbours never share a cache line with a
// different block's atomics more than they must and offsets stay 64-bit aligned.
constexpr size_t kGrain = 64;
size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
}  // namespace

void HeapAllocator::reset(size_t capacity) {
  free_.clear();
  used_blocks_.clear();
  used_ = 0;
  capacity_ = capacity / kGrain * kGrain;
  if (capacity_ > 0) free_[0] = capacity_;
}

void HeapAllocator::add_free(size_t off, size_t len) {
  if (len == 0) return;
  auto next = free_.lower_bound(off);
  if (next != free_.end() && off + len == next->first) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      prev->second += len;
      return;
    }
  }
  free_[off] = len;
}

std::optional<size_t> HeapAllocator::allocate(size_t bytes, size_t alignment) {
  if (bytes == 0) return std::nullopt;
  alignment = std::max(alignment, kGrain);
  const size_t need = round_up(bytes, kGrain);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const size_t start = round_up(it->first, alignment);
    const size_t end = it->first + it->second;
    if (start > end || end - start < need) continue;
    const size_t off = it->first, len = it->second;
    free_.erase(it);
    add_free(off, start - off);
    add_free(start + need, end - (start + need));
    used_blocks_[start] = need;
    used_ += need;
    return start;
  }
  return std::nullopt;
}

size_t HeapAllocator::block_size(size_t offset) const {
  auto it = used_blocks_.find(offset);
  return it == used_blocks_.end() ? 0 : it->second;
}

bool HeapAllocator::resize_in_place(size_t offset, size_t bytes) {
  auto it = used_blocks_.find(offset);
  if (it == used_blocks_.end() || bytes == 0) return false;
  const size_t need = round_up(bytes, kGrain), have = it->second;
  if (need <= have) {
    add_free(offset + need, have - need);
    it->second = need;
    used_ -= have - need;
    return true;
  }
  auto next = free_.find(offset + have);
  if (next == free_.end() || next->second < need - have) return false;
  const size_t rest = next->second - (need - have);
  free_.erase(next);
  add_free(offset + need, rest);
  it->second = need;
  used_ += need - have;
  return true;
}

bool HeapAllocator::release(size_t offset) {
  auto it = used_blocks_.find(offset);
  if (it == used_blocks_.end()) return false;
  used_ -= it->second;
  add_free(it->first, it->second);
  used_blocks_.erase(it);
  return true;
}

size_t HeapAllocator::largest_free() const {
  size_t best = 0;
  for (const auto& [off, len] : free_) best = std::max(best, len);
  return best;
}

}  // namespace interlace::pgas
