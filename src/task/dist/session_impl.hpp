// Private state of a distributed-task Session and the wire format of its commands.
// Control traffic runs on a dup of world (ctl): the host sends a command (kCmd, probed
// for its length) followed by its data (kData) in clause order; the device answers every
// command with a status (kDone: ok flag + message) followed, when ok, by the data it
// returns (kBack). Non-overtaking p2p keeps each stream in order.
#pragma once
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "interlace/core/error.hpp"
#include "interlace/task/distributed.hpp"

namespace interlace::task::dist {

inline constexpr int kCmd = 1, kData = 2, kDone = 3, kBack = 4;
enum class Op : uint8_t { run = 1, map, unmap, copy_to, copy_from, finish };

struct Session::Impl {
  Runtime* rt = nullptr;
  Executor* exec = nullptr;
  int host = 0, me = 0, ndev = 0, dev = -1;
  Communicator ctl;   // world dup: commands, data, statuses
  Communicator devs;  // devices only (null on the host)
  std::mutex lock;    // host: one command exchange at a time
  bool finished = false;
  std::map<uint64_t, uint64_t> host_maps;                 // host: address -> size
  std::map<uint64_t, std::vector<std::byte>> dev_maps;    // device: address -> buffer

  int world_of(int device) const { return device < host ? device : device + 1; }
  void check_device(int device, const char* what) const;
  void check_host(const std::string& what) const;
  uint64_t check_mapped(const void* address, uint64_t offset, uint64_t size,
                        const char* what) const;
  // Host side of one exchange with a device; lost peers are renamed to the device.
  void send_cmd(int device, const std::vector<std::byte>& cmd);
  void send_data(int device, const void* p, uint64_t n);
  // Returns the device's error message ("" when ok).
  std::string recv_status(int device);
  void recv_data(int device, void* p, uint64_t n);
};

// Appends / reads plain values (both ends are the same build, same endianness).
struct Writer {
  std::vector<std::byte> out;
  template <class T> void put(const T& v) { raw(&v, sizeof(T)); }
  void put_bytes(const void* p, size_t n) {
    put<uint64_t>(n);
    raw(p, n);
  }
  void raw(const void* p, size_t n) {
    size_t at = out.size();
    out.resize(at + n);
    if (n) std::memcpy(out.data() + at, p, n);
  }
};

struct Reader {
  const std::byte* p;
  const std::byte* end;
  template <class T> T get() {
    T v;
    need(sizeof(T));
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    return v;
  }
  std::span<const std::byte> get_bytes() {
    auto n = get<uint64_t>();
    need(n);
    std::span<const std::byte> s(p, n);
    p += n;
    return s;
  }
  void need(uint64_t n) const {
    if (static_cast<uint64_t>(end - p) < n)
      throw_error(Errc::protocol, "distributed-task command truncated");
  }
};

inline std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

// Device-local length of a clause (the host already checked divisibility).
uint64_t local_size(const Clause& c, int ndev, int dev);

}  // namespace interlace::task::dist
