// Contract: distributed tasks (OmpSs@cloudFPGA section III-B2; docs/ompif.md).
//  - A Session is created collectively over a Runtime's world. The host is world rank
//    INTERLACE_TASK_HOST (default 0); every other rank is a device, numbered 0..P-1 in
//    world order. devices() is a communicator of the devices only (OMPIF_COMM_WORLD);
//    null on the host.
//  - Device functions are registered by name on every rank (register_function). A call
//    gets one pointer per clause (the device-local region, null where a send/receive
//    clause names another device) and a copy of the host's argument bytes.
//  - Host: spawn() is asynchronous: it spawns a host task on the session's Executor
//    whose Deps follow the clauses (in: broadcast, scatter, send; out: gather,
//    receive; inout: mapped). That task ships the data and the run command to every
//    device and waits for each device's completion and its gather/receive data.
//    Executor::taskwait synchronises and rethrows a device's failure (naming the device
//    and its world rank) or a lost device (LostPeerError naming the rank, within about
//    INTERLACE_PEER_CHECK seconds). Everything a session sends is serialised by one
//    lock per session: distributed tasks and copies of one session run one at a time.
//  - Device: serve() runs the host's commands in order until the host finishes; a
//    distributed task runs as a task on the device's Executor (it may spawn local tasks,
//    taskwait and communicate on devices()).
//  - Bad input (spawn on a device, a scatter/gather size that does not divide by the
//    device count, a region longer than PTRDIFF_MAX: a negative length converted, a
//    device index out of range, an unknown function, an unmapped address or an offset
//    out of range) raises interlace::Error naming the values.
//  - The session starts the engine's progress thread: task workers send concurrently.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "interlace/p2p/communicator.hpp"
#include "interlace/task/task.hpp"

namespace interlace::task::dist {

enum class ClauseKind : uint8_t { broadcast = 0, scatter, gather, send, receive, mapped };
const char* clause_name(ClauseKind k) noexcept;

// One data clause: `size` bytes at `address` on the host (for scatter and gather the
// whole buffer: device i owns bytes [i*size/P, (i+1)*size/P)). `device` only for send
// and receive.
struct Clause {
  ClauseKind kind = ClauseKind::broadcast;
  void* address = nullptr;
  uint64_t size = 0;
  int device = -1;
};

inline Clause broadcast(const void* p, uint64_t n) {
  return {ClauseKind::broadcast, const_cast<void*>(p), n, -1};
}
inline Clause scatter(const void* p, uint64_t n) {
  return {ClauseKind::scatter, const_cast<void*>(p), n, -1};
}
inline Clause gather(void* p, uint64_t n) { return {ClauseKind::gather, p, n, -1}; }
inline Clause send_to(int device, const void* p, uint64_t n) {
  return {ClauseKind::send, const_cast<void*>(p), n, device};
}
inline Clause receive_from(int device, void* p, uint64_t n) {
  return {ClauseKind::receive, p, n, device};
}
// A region mapped with Session::map: the device works on its mapped buffer in place.
inline Clause mapped(void* p, uint64_t n) { return {ClauseKind::mapped, p, n, -1}; }

class Session;

// What a device function sees.
struct DeviceCall {
  std::span<void* const> regions;        // one per clause, device-local
  std::span<const uint64_t> sizes;       // their lengths in bytes (0 where null)
  std::span<const std::byte> args;       // copy of the host's argument bytes
  int device = 0;                        // this device's index
  int num_devices = 0;
  Session* session = nullptr;
};
using DeviceFunction = std::function<void(const DeviceCall&)>;

// Process-wide registry (every rank registers the same names before the host spawns).
void register_function(const std::string& name, DeviceFunction fn);

class Session {
 public:
  // Collective over rt.world(). exec: the Executor tasks run on (null: the process's).
  // host_rank < 0 takes INTERLACE_TASK_HOST (default 0).
  explicit Session(Runtime& rt, Executor* exec = nullptr, int host_rank = -1);
  // Host: finish() if not done yet (waits for its distributed tasks first).
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  bool is_host() const noexcept;
  int host_rank() const noexcept;
  int num_devices() const noexcept;
  int device_index() const noexcept;   // -1 on the host
  int device_world_rank(int device) const;
  Communicator devices() const;        // null on the host
  Executor& executor() const noexcept;

  // Host only.
  void spawn(const std::string& name, std::span<const Clause> clauses,
             std::span<const std::byte> args = {});
  void spawn(const std::string& name, std::initializer_list<Clause> clauses,
             std::span<const std::byte> args = {}) {
    spawn(name, std::span<const Clause>(clauses.begin(), clauses.size()), args);
  }
  // Releases the devices (their serve() returns). Idempotent.
  void finish();

  // Blocking host calls in the spirit of nanos6's distributed API (offsets in bytes).
  void map(const void* address, uint64_t size);
  void unmap(const void* address);
  void copy_to(int device, const void* address, uint64_t size, uint64_t src_offset,
               uint64_t dst_offset);
  void copy_to_all(const void* address, uint64_t size, uint64_t src_offset,
                   uint64_t dst_offset);
  void copy_from(int device, void* address, uint64_t size, uint64_t src_offset,
                 uint64_t dst_offset);

  // Device only: runs the host's commands until finish(); rethrows nothing a
  // distributed task throws (that goes to the host), only a lost host.
  void serve();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace interlace::task::dist
