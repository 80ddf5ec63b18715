// The shared-memory fabric: one SPSC ring per ordered pair that talks, created
// lazily by the sender, plus one control segment per rank (pid, futex doorbell,
// list of senders). See shm_layout.hpp for the bytes and docs/wire.md for names.
//
// Wakeup protocol (no syscall while the receiver polls):
//   receiver: read doorbell; sleeping = 1; fence(seq_cst); re-check rings;
//             futex_wait(doorbell, value read) ; sleeping = 0
//   producer: publish frame; fence(seq_cst); if sleeping: sleeping = 0, bump
//             doorbell, futex_wake
// The two fences make it impossible for the receiver to miss the frame and the
// producer to miss the flag at the same time.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <string>
#include <vector>

#include "fabric/shm/shm_ring.hpp"
#include "interlace/fabric/fabric.hpp"

namespace interlace::fabric::shm {

class ShmFabric final : public Fabric {
 public:
  explicit ShmFabric(const FabricInit& init);
  ~ShmFabric() override;

  const char* name() const noexcept override { return "shm"; }
  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return size_; }
  size_t max_payload() const noexcept override { return max_payload_; }

  Errc send(int peer, const FrameHeader& h, const void* payload, size_t len) override;
  int progress(FrameSink& sink) override;
  void wait(double timeout_s) override;
  void wake() override;
  void check_peers(FrameSink& sink) override;
  void watch_peer(int peer) override;

  void wait_unless(double timeout_s, const std::function<bool()>& ready, bool memory) override;
  bool sleeps_concurrently() const noexcept override { return true; }
  bool arm_sleep() override;
  void sleep_armed(double timeout_s) override;
  void disarm_sleep() override;
  void* expose_region(uint32_t id, size_t len) override;
  void* map_region(int peer, uint32_t id, size_t len) override;
  void notify(int peer) override;
  Errc remote_write(int peer, uint64_t remote_addr, const void* local, size_t len) override;

  bool remote_read_available(int peer) const noexcept override;
  Errc remote_read(int peer, uint64_t remote_addr, void* local, size_t len) override;

 private:
  struct Peer {
    SendRing out;
    RecvRing in;
    Mapping ctl_map;                // the peer's control segment (not for self)
    CtlHeader* ctl = nullptr;       // peer's control header (own one for self)
    CtlDoorbell* bell = nullptr;    // where to ring after publishing to `out`
    pid_t pid = 0;                  // 0 until a ring exists in either direction or its
                                    // store record showed it departed
    int pidfd = -1;                 // exits become visible even while a zombie
    uint64_t probe = 0;             // address holding a known magic in the peer
    uint64_t probe_value = 0;
    uint64_t next_live_check_ns = 0;
    uint64_t next_record_check_ns = 0;
    bool dead = false;              // process known gone, or its fabric closed
    std::string why;                // for on_peer_lost, when more is known than "exited"
    bool reported = false;          // on_peer_lost delivered
    mutable int8_t single_copy = 0; // 0 unknown, 1 works, -1 does not
  };

  bool try_open_peer_ctl(int peer);  // one attempt, no waiting
  std::vector<int> watched_;          // silent peers a receive waits for

  // shm_connect.cpp
  void create_own_ctl();
  Errc open_send_ring(int peer);
  Errc open_peer_ctl(int peer);  // throws Errc::timeout after connect_timeout_s
  void scan_announcements();
  void map_recv_ring(int src);
  void learn_pid(Peer& p, pid_t pid, uint64_t probe, uint64_t probe_value);
  void close_all() noexcept;

  // shm_departed.cpp
  void publish_record();
  bool read_record(int peer, pid_t* pid, uint64_t* start);
  bool departed(int peer);  // the store shows it started and left since; marks it dead

  // shm_wait.cpp
  bool peer_alive(Peer& p) noexcept;
  Errc lose(Peer& p);  // a send found the peer gone or closed
  uint64_t peer_check_ns() const noexcept;
  bool anything_ready();
  void ring_doorbell(CtlDoorbell* bell) noexcept;
  Errc send_blocked(int peer);

  // shm_fabric.cpp
  int drain(int src, FrameSink& sink, int budget);

  // shm_single_copy.cpp
  static bool probe_own_single_copy() noexcept;
  bool cma_available(int peer) const noexcept;  // per-peer probe, whatever the config

  int rank_ = 0;
  int size_ = 1;
  std::string job_;
  Config cfg_;
  bootstrap::Store* store_ = nullptr;  // holds the records that tell departed peers apart
  uint32_t nslots_ = 0;
  size_t max_payload_ = 0;
  pid_t pid_ = 0;
  bool single_copy_ = false;  // rendezvous may read with CMA (config and probe)
  bool cma_ = false;          // process_vm_readv/writev work here (PGAS static data)

  Mapping ctl_map_;
  CtlHeader* ctl_ = nullptr;
  CtlDoorbell* bell_ = nullptr;
  CtlAnnounce* announce_ = nullptr;
  std::atomic<uint32_t>* announce_list_ = nullptr;
  uint32_t first_unseen_ = 0;         // announcement entries below are all mapped
  std::vector<uint8_t> entry_seen_;   // a sender that died mid-announce leaves a hole

  // shm_region.cpp: own exposed regions (unlinked at close) and peers' mapped ones.
  struct Region { uint32_t id; int peer; Mapping map; std::string name; };
  std::vector<Region> regions_;
  void release_regions() noexcept;

  std::vector<Peer> peers_;
  std::vector<int> active_;           // peers with a receive ring, in poll order
  std::vector<int> connected_;        // peers with a ring in either direction
  size_t next_active_ = 0;            // round-robin start, so no sender starves
  std::atomic<uint32_t> wake_pending_{0};
  uint32_t armed_seq_ = 0;  // doorbell value arm_sleep() saw; read by the same thread
};

}  // namespace interlace::fabric::shm
