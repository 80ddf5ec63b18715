// Internal: an exact-address hash index over a parent's fragment map (deps.cpp). The
// interval map answers "which fragments overlap [a, b)" in O(log n) dependent cache
// misses; most accesses name a region that already has a fragment starting at its
// address, and this finds that fragment in one probe. The map stays the truth: the
// index only maps each fragment's start address to its node, and is updated wherever
// a fragment is inserted or erased. Linear probing, deletion by backward shift (no
// tombstones), at most half full.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace interlace::task::detail {

template <class V>
class AddrIndex {
  static_assert(std::is_trivially_copyable_v<V>);

 public:
  // The value for key k (nonzero), or null.
  V* find(uintptr_t k) {
    if (size_ == 0) return nullptr;
    for (size_t i = home(k);; i = (i + 1) & mask_) {
      if (slots_[i].key == k) return &slots_[i].val;
      if (slots_[i].key == 0) return nullptr;
    }
  }
  void insert(uintptr_t k, V v) {  // k is not present
    if ((size_ + 1) * 2 > cap()) grow();
    size_t i = home(k);
    while (slots_[i].key != 0) i = (i + 1) & mask_;
    slots_[i] = {k, v};
    ++size_;
  }
  void erase(uintptr_t k) {
    if (size_ == 0) return;
    size_t i = home(k);
    while (slots_[i].key != k) {
      if (slots_[i].key == 0) return;
      i = (i + 1) & mask_;
    }
    // Pull later entries of the probe run back into the hole when their home allows.
    for (size_t j = (i + 1) & mask_; slots_[j].key != 0; j = (j + 1) & mask_) {
      const size_t h = home(slots_[j].key);
      const bool stays = (i <= j) ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i].key = 0;
    --size_;
  }
  void clear() {
    if (size_ == 0) return;
    for (size_t i = 0; i < cap(); ++i) slots_[i].key = 0;
    size_ = 0;
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    uintptr_t key;  // 0: empty (a Dep with bytes has a non-null address)
    V val;
  };
  size_t cap() const { return slots_ ? mask_ + 1 : 0; }
  size_t home(uintptr_t k) const {
    return static_cast<size_t>((k * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
  }
  void grow() {
    const size_t old_cap = cap();
    const size_t new_cap = old_cap ? old_cap * 2 : 16;
    std::unique_ptr<Slot[]> old = std::move(slots_);
    slots_.reset(new Slot[new_cap]);
    for (size_t i = 0; i < new_cap; ++i) slots_[i].key = 0;
    mask_ = new_cap - 1;
    shift_ = 64;
    for (size_t c = new_cap; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (size_t i = 0; i < old_cap; ++i)
      if (old[i].key) insert(old[i].key, old[i].val);
  }

  std::unique_ptr<Slot[]> slots_;
  size_t mask_ = 0;
  unsigned shift_ = 64;
  size_t size_ = 0;
};

}  // namespace interlace::task::detail
