// Internal: allocation helpers for the task runtime's hot path. Both are used only
// under the owning Executor's mutex.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace interlace::task::detail {

// A vector of trivially copyable T with N elements in place: most fragments have one
// or two members, and a heap block per fragment was a third of the spawn cost.
template <class T, uint32_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SmallVec() = default;
  SmallVec(const SmallVec& o) { append(o); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) { size_ = 0; append(o); }
    return *this;
  }
  SmallVec(SmallVec&& o) noexcept { take(o); }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) { free_heap(); take(o); }
    return *this;
  }
  ~SmallVec() { free_heap(); }

  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  void clear() { size_ = 0; }
  void drop_front(uint32_t n) {  // n <= size()
    std::memmove(data(), data() + n, sizeof(T) * (size_ - n));
    size_ -= n;
  }
  void push_back(const T& v) {
    if (size_ == cap_) grow(cap_ * 2);
    data()[size_++] = v;
  }

 private:
  T* data() { return heap_ ? heap_ : inline_; }
  const T* data() const { return heap_ ? heap_ : inline_; }
  void grow(uint32_t cap) {
    T* h = static_cast<T*>(::operator new(sizeof(T) * cap));
    std::memcpy(h, data(), sizeof(T) * size_);
    free_heap();
    heap_ = h;
    cap_ = cap;
  }
  void append(const SmallVec& o) {
    if (o.size_ > cap_) grow(o.size_);
    std::memcpy(data(), o.data(), sizeof(T) * o.size_);
    size_ = o.size_;
  }
  void take(SmallVec& o) {
    size_ = o.size_;
    cap_ = o.cap_;
    heap_ = o.heap_;
    if (!heap_) std::memcpy(inline_, o.inline_, sizeof(T) * size_);
    o.heap_ = nullptr;
    o.size_ = 0;
    o.cap_ = N;
  }
  void free_heap() {
    ::operator delete(heap_);
    heap_ = nullptr;
    cap_ = N;
  }

  T inline_[N];
  T* heap_ = nullptr;
  uint32_t size_ = 0;
  uint32_t cap_ = N;
};

// Fixed-size blocks for std::map nodes, kept for reuse until the Executor ends.
class NodePool {
 public:
  void* get(size_t bytes) {
    bytes = round(bytes);
    if (size_ == 0) size_ = bytes;
    if (bytes != size_) return ::operator new(bytes);
    if (!free_) refill();
    void* p = free_;
    free_ = *static_cast<void**>(free_);
    return p;
  }
  void put(void* p, size_t bytes) {
    if (round(bytes) != size_) { ::operator delete(p); return; }
    *static_cast<void**>(p) = free_;
    free_ = p;
  }

 private:
  static size_t round(size_t b) { return (b + 15) & ~size_t{15}; }
  void refill() {
    constexpr size_t kPerBlock = 128;
    blocks_.emplace_back(new (std::align_val_t{16}) char[size_ * kPerBlock]);
    char* b = blocks_.back().get();
    for (size_t i = 0; i < kPerBlock; ++i) put(b + i * size_, size_);
  }
  struct Free {
    void operator()(char* p) const { ::operator delete[](p, std::align_val_t{16}); }
  };
  size_t size_ = 0;
  void* free_ = nullptr;
  std::vector<std::unique_ptr<char[], Free>> blocks_;
};

template <class T>
struct PoolAlloc {
  using value_type = T;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  NodePool* pool = nullptr;

  PoolAlloc() = default;
  explicit PoolAlloc(NodePool* p) : pool(p) {}
  template <class U> PoolAlloc(const PoolAlloc<U>& o) : pool(o.pool) {}
  T* allocate(size_t n) {
    if (pool && n == 1) return static_cast<T*>(pool->get(sizeof(T)));
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (pool && n == 1) pool->put(p, sizeof(T));
    else ::operator delete(p);
  }
  template <class U> bool operator==(const PoolAlloc<U>& o) const { return pool == o.pool; }
};

}  // namespace interlace::task::detail
