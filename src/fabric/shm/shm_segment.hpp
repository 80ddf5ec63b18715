// Thin RAII over shm_open + mmap. Creation and opening are separate because the
// creator owns initialisation while openers must tolerate a segment that does not
// exist yet or is not yet sized (they retry until a deadline).
#pragma once
#include <cstddef>
#include <string>

namespace interlace::fabric::shm {

class Mapping {
 public:
  Mapping() = default;
  Mapping(void* addr, size_t bytes) : addr_(addr), bytes_(bytes) {}
  ~Mapping() { reset(); }
  Mapping(Mapping&& o) noexcept : addr_(o.addr_), bytes_(o.bytes_) { o.addr_ = nullptr; o.bytes_ = 0; }
  Mapping& operator=(Mapping&& o) noexcept;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;

  void reset() noexcept;
  explicit operator bool() const noexcept { return addr_ != nullptr; }
  std::byte* data() const noexcept { return static_cast<std::byte*>(addr_); }
  size_t bytes() const noexcept { return bytes_; }

 private:
  void* addr_ = nullptr;
  size_t bytes_ = 0;
};

// Creates (replacing a stale leftover of the same name) a zero-filled segment of
// `bytes`, mapped read-write and pre-faulted. Throws Errc::system naming the segment.
Mapping create_segment(const std::string& name, size_t bytes);

enum class OpenResult { ok, missing, too_small };
// Opens an existing segment read-write if it is at least `min_bytes` long; maps its
// full length. Throws Errc::system for errors other than "not there yet".
OpenResult open_segment(const std::string& name, size_t min_bytes, Mapping* out);

// Removes the name; a missing name is not an error (the other side may have won).
void unlink_segment(const std::string& name) noexcept;

}  // namespace interlace::fabric::shm
