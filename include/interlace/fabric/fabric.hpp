// Contract: a Fabric moves frames (header + payload) between the ranks of one job.
//  - Frames from one rank to another arrive in the order they were sent.
//  - send() takes the whole frame or nothing: Errc::ok, Errc::would_block (no room now:
//    the caller progresses and retries; never partially sent), Errc::lost_peer.
//    The payload buffer may be reused as soon as send() returns ok.
//  - progress() delivers arrived frames to the sink, in order per source. The payload
//    pointer is valid only during on_frame. progress() never blocks. A sink callback
//    must not call progress() again (the engine guarantees this) but may call send().
//  - wait() blocks until a frame may have arrived, wake() was called, or timeout passes.
//    It may return early (spurious); callers re-check.
//  - check_peers() reports peers found dead (process gone, connection closed) through
//    sink.on_peer_lost after delivering every frame they sent before dying.
//  - A fabric is used by one thread at a time (the engine serialises), except wake()
//    and, on fabrics whose sleeps_concurrently() is true, sleep_armed() (below).
// Backends: shm (one host), tcp (any hosts), udp (any hosts, reliable datagrams,
// docs/udp.md), ucx (UCP, where libucx is built in: docs/ucx.md) and sim (a simulated
// network, docs/sim.md); the tier fabric (tiers.hpp) joins a host and a network
// backend per peer. tests/conformance runs one suite on all of them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "interlace/core/config.hpp"
#include "interlace/core/error.hpp"
#include "interlace/fabric/frame.hpp"

namespace interlace::bootstrap { class Store; }

namespace interlace::fabric {

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual void on_frame(const FrameHeader& h, const std::byte* payload) = 0;
  virtual void on_peer_lost(int peer, const std::string& why) = 0;
};

struct FabricInit {
  int rank = 0;
  int size = 1;
  std::string job_id;             // namespaces shm segment names and store keys
  std::string secret;             // tcp: peers must present it
  bootstrap::Store* store = nullptr;  // for exchanging addresses; outlives the fabric
  Config config;
};

class Fabric {
 public:
  virtual ~Fabric() = default;
  virtual const char* name() const noexcept = 0;
  virtual int rank() const noexcept = 0;
  virtual int size() const noexcept = 0;

  // True for a fabric that models a routed network by itself (sim): the engine then
  // does not put the route layer (INTERLACE_ROUTES) in front of it.
  virtual bool routes_itself() const noexcept { return false; }

  // True for a fabric on which polling and yielding only cost time (sim: one rank runs
  // at a time and wait() jumps to the next arrival): the engine then blocks in wait()
  // after one idle poll unless INTERLACE_SPIN / INTERLACE_YIELD say otherwise.
  virtual bool prefers_blocking() const noexcept { return false; }

  // Largest payload one frame may carry on this fabric (shm: bounded by the ring).
  virtual size_t max_payload() const noexcept = 0;
  // Largest payload one frame to `peer` may carry, at least max_payload(): more where
  // the peer is reached over another fabric (two tiers: tcp's 64 MiB to remote ranks
  // while shm's ring bounds max_payload()).
  virtual size_t max_payload_to(int /*peer*/) const noexcept { return max_payload(); }

  virtual Errc send(int peer, const FrameHeader& h, const void* payload, size_t len) = 0;
  virtual int progress(FrameSink& sink) = 0;  // returns frames delivered
  virtual void wait(double timeout_s) = 0;
  virtual void wake() = 0;
  virtual void check_peers(FrameSink& sink) = 0;
  // Asks check_peers to watch `peer` even before any frame was exchanged with it (a
  // receive waits for it). Backends that cannot see a silent peer ignore it.
  virtual void watch_peer(int /*peer*/) {}

  // Sleeping beside other threads (the progress thread, docs/progress.md). On a fabric
  // whose sleeps_concurrently() is true:
  //  - arm_sleep() runs exclusively, like progress(). false: do not sleep now (a frame,
  //    a wake() or work that needs polling is there). true: the fabric has recorded
  //    what "nothing new" looks like and announced the sleeper to its peers.
  //  - sleep_armed(timeout_s) then runs while other threads hold the fabric for any call
  //    but wait()/wait_unless()/arm_sleep(). It returns when a frame may have arrived
  //    since arm_sleep(), wake() was called (before it began, too), a send made meanwhile
  //    needs progress() to move it, or timeout_s passes; spurious returns are allowed.
  //    It touches only state safe to share (futex words, epoll and event fds).
  //  - disarm_sleep() runs exclusively again before the next progress().
  // One thread at a time sleeps this way. Elsewhere the caller polls with a back-off.
  virtual bool sleeps_concurrently() const noexcept { return false; }
  virtual bool arm_sleep() { return false; }
  virtual void sleep_armed(double timeout_s) { (void)timeout_s; }
  virtual void disarm_sleep() {}

  // Like wait(), but returns without sleeping if ready() holds once the fabric has
  // armed its wake-up. With notify() this makes waits on memory that peers write
  // directly (PGAS) race-free: either the writer sees the sleeper or ready() sees the
  // write. The default checks ready() first (enough where every event is a frame).
  // `memory`: the wait is for stores by peers (not frames): only such sleepers are
  // woken by notify().
  virtual void wait_unless(double timeout_s, const std::function<bool()>& ready,
                           bool memory = false) {
    (void)memory;
    if (!ready()) wait(timeout_s);
  }

  // One-sided memory (docs/pgas.md). Every rank exposes a region under the same id
  // and size. A fabric whose ranks share memory creates it shared (not pre-faulted)
  // so peers can map it; others return nullptr and the caller allocates privately.
  virtual void* expose_region(uint32_t /*id*/, size_t /*len*/) { return nullptr; }
  // `peer`'s region mapped here, or nullptr (not on this host: use active messages).
  // Waits for the peer to expose it (connect timeout).
  virtual void* map_region(int /*peer*/, uint32_t /*id*/, size_t /*len*/) { return nullptr; }
  // Called after storing into a region of `peer` through map_region (after a seq_cst
  // fence): wakes the peer if it sleeps in wait_unless(..., memory = true).
  virtual void notify(int /*peer*/) {}
  // Native remote memory operations of RDMA-capable fabrics, on a region's offset;
  // unsupported here means the PGAS layer uses mapped memory or active messages.
  virtual Errc rma_put(int /*peer*/, uint32_t /*id*/, uint64_t /*off*/, const void* /*src*/,
                       size_t /*len*/) { return Errc::unsupported; }
  virtual Errc rma_get(int /*peer*/, uint32_t /*id*/, uint64_t /*off*/, void* /*dst*/,
                       size_t /*len*/) { return Errc::unsupported; }
  virtual Errc rma_flush(int /*peer*/) { return Errc::unsupported; }

  // Single-copy write (cross-memory attach) into `peer`'s address space, wherever the
  // system allows it (see remote_read below); unsupported elsewhere.
  virtual Errc remote_write(int /*peer*/, uint64_t /*remote_addr*/, const void* /*local*/,
                            size_t /*len*/) { return Errc::unsupported; }

  // Single-copy path: read `len` bytes at `remote_addr` in `peer`'s address space.
  // remote_read_available(peer) says whether p2p rendezvous should use it (a policy:
  // INTERLACE_SHM_SINGLE_COPY); remote_read/remote_write work wherever the system
  // allows cross-memory attach and return unsupported elsewhere.
  virtual bool remote_read_available(int /*peer*/) const noexcept { return false; }
  virtual Errc remote_read(int /*peer*/, uint64_t /*remote_addr*/, void* /*local*/,
                           size_t /*len*/) { return Errc::unsupported; }

  // A file descriptor that polls readable (POLLIN) while progress() may find work:
  // level-triggered, cleared by progress(), not by wait(). -1 if the fabric has none
  // (shm sleeps on a futex). A fabric that combines several (the two-tier fabric,
  // docs/fabrics.md) sleeps in one of them and watches the others' descriptors.
  virtual int wait_fd() const noexcept { return -1; }
  // The name of the fabric that carries frames to `peer`: name() except in a fabric
  // that combines several (shm to ranks on this host, tcp to the others).
  virtual const char* fabric_of(int /*peer*/) const noexcept { return name(); }
};

// Factories. Throw interlace::Error on setup failure.
std::unique_ptr<Fabric> make_shm_fabric(const FabricInit& init);
std::unique_ptr<Fabric> make_tcp_fabric(const FabricInit& init);
std::unique_ptr<Fabric> make_udp_fabric(const FabricInit& init);
// "shm", "tcp"
const char* const* builtin_fabrics();  // nullptr-terminated list

}  // namespace interlace::fabric
