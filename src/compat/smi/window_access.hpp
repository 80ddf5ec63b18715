// Internal: reads and moves the packet window of a channel, so the inline C fast path
// (SMI_Push/SMI_Pop in smi.h) can work on the same packet as the C++ channel.
// The channel classes befriend every Sender<T>/Receiver<T>; these specialisations use
// that to reach the window until the channel API offers a public accessor.
#pragma once
#include <cstddef>

#include "interlace/stream/channel.hpp"

namespace interlace::compat::smi { struct WindowAccess {}; }

namespace interlace::stream {

template <>
class Sender<compat::smi::WindowAccess> {
 public:
  static std::byte* cur(const SendChannel& c) noexcept { return c.cur_; }
  static std::byte* end(const SendChannel& c) noexcept { return c.end_; }
  static void set_cur(SendChannel& c, std::byte* p) noexcept { c.cur_ = p; }
};

template <>
class Receiver<compat::smi::WindowAccess> {
 public:
  static const std::byte* cur(const RecvChannel& c) noexcept { return c.cur_; }
  static const std::byte* end(const RecvChannel& c) noexcept { return c.end_; }
  static void set_cur(RecvChannel& c, const std::byte* p) noexcept { c.cur_ = p; }
};

}  // namespace interlace::stream
