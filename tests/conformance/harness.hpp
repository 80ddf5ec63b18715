// Threads-as-ranks harness for the fabric conformance suite: N ranks as N threads
// of this process, each with its own Fabric, sharing an in-process store.
#pragma once
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/config.hpp"
#include "interlace/core/error.hpp"
#include "interlace/fabric/fabric.hpp"

namespace conformance {

using interlace::Errc;
using interlace::fabric::Fabric;
using interlace::fabric::FrameHeader;
using interlace::fabric::FrameSink;

// A job id no other test (or concurrently running test binary) uses.
std::string unique_job_id(const std::string& fabric);

// Test configuration: short timeouts so that a broken fabric fails fast.
interlace::Config test_config();

// Records everything a rank receives.
struct Recorder final : FrameSink {
  struct Got {
    FrameHeader h;
    std::vector<std::byte> payload;
  };
  std::vector<Got> frames;
  std::vector<std::pair<int, std::string>> lost;
  // Frames counted when lost arrived, to check "every frame before the loss".
  size_t frames_at_loss = 0;

  void on_frame(const FrameHeader& h, const std::byte* payload) override {
    frames.push_back({h, std::vector<std::byte>(payload, payload + h.len)});
  }
  void on_peer_lost(int peer, const std::string& why) override {
    if (lost.empty()) frames_at_loss = frames.size();
    lost.emplace_back(peer, why);
  }
};

uint64_t checksum(const void* data, size_t len);
// Deterministic bytes for frame (src, dst, seq).
void fill_payload(std::vector<std::byte>& buf, size_t len, int src, int dst, uint32_t seq);
// A header for a test frame from src to dst; aux carries the payload checksum.
FrameHeader make_header(int src, int dst, uint32_t seq, const void* payload, size_t len);

// The ranks of one test. make() builds the fabrics concurrently (a tcp fabric may
// need all ranks present to connect); it returns false with `skip_reason` set when
// the backend is not built (Errc::unsupported).
struct Job {
  std::string fabric_name;
  std::string job_id;
  std::shared_ptr<interlace::bootstrap::Store> store;
  std::vector<std::unique_ptr<Fabric>> fabrics;
  std::string skip_reason;

  bool make(const std::string& name, int n, interlace::Config cfg = test_config());

  // Runs body(rank) on one thread per rank. After its body, each rank keeps
  // progressing (into its own recorder) until every rank is done, so that a
  // backend that needs the sender's progress to flush still delivers everything.
  void run(const std::function<void(int rank, Recorder& rec)>& body);
  std::vector<Recorder> recorders;
};

// Sends one frame, progressing `rec` on would_block until `deadline` (then fails).
// Returns the number of would_block answers it saw.
size_t send_retry(Fabric& f, Recorder& rec, int peer, const FrameHeader& h, const void* payload,
                  size_t len, double timeout_s = 20);

// Progresses until pred() or the timeout; blocks in wait() when idle so that many
// ranks on few cores still make progress. Returns pred().
bool pump_until(Fabric& f, Recorder& rec, const std::function<bool()>& pred, double timeout_s = 20);

// Checks that rec holds, from each src in `srcs`, exactly `count` frames with
// seq 0..count-1 in order and intact payloads (lost/duplicated/reordered = 0).
void expect_stream(const Recorder& rec, int self, const std::vector<int>& srcs, uint32_t count);

// The fabric "shm+tcp" of the suite: the two-tier fabric (shm+tcp) over two fake hosts,
// the first half of the ranks and the second (tier_fabric_test.cpp).
std::unique_ptr<Fabric> make_split_tiers(const interlace::fabric::FabricInit& init);

// Name for parameterised instantiation.
std::string fabric_param_name(const testing::TestParamInfo<std::string>& info);

}  // namespace conformance
