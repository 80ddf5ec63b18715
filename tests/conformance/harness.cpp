#include "harness.hpp"

#include <unistd.h>

#include <chrono>
#include <map>
#include <mutex>

#include "interlace/fabric/registry.hpp"

namespace conformance {

std::string unique_job_id(const std::string& fabric) {
  static std::atomic<int> counter{0};
  const auto* info = testing::UnitTest::GetInstance()->current_test_info();
  std::string test = info ? std::string(info->name()) : "none";
  for (char& c : test)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return "t" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" + fabric + "-" +
         test.substr(0, 40);
}

interlace::Config test_config() {
  interlace::Config c;
  c.connect_timeout_s = 10;
  c.peer_check_s = 0.05;
  c.shm_single_copy = true;  // exercise remote_read whatever the default is
  return c;
}

uint64_t checksum(const void* data, size_t len) {
  // FNV-1a: cheap and order sensitive, enough to catch torn or shuffled bytes.
  uint64_t h = 1469598103934665603ull;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < len; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

void fill_payload(std::vector<std::byte>& buf, size_t len, int src, int dst, uint32_t seq) {
  buf.resize(len);
  uint32_t x = (static_cast<uint32_t>(src) * 2654435761u) ^ (static_cast<uint32_t>(dst) << 16) ^ seq;
  for (size_t i = 0; i < len; ++i) {
    x = x * 1664525u + 1013904223u;
    buf[i] = static_cast<std::byte>(x >> 24);
  }
}

FrameHeader make_header(int src, int dst, uint32_t seq, const void* payload, size_t len) {
  FrameHeader h;
  h.kind = interlace::fabric::kKindP2pEager;
  h.src = static_cast<uint32_t>(src);
  h.dst = static_cast<uint32_t>(dst);
  h.seq = seq;
  h.tag = 7;
  h.len = len;
  h.aux = checksum(payload, len);
  return h;
}

bool Job::make(const std::string& name, int n, interlace::Config cfg) {
  fabric_name = name;
  // A backend built only where its library exists (ucx) is simply not registered.
  if (name != "shm+tcp" && !interlace::fabric::registry().find(name)) {  // shm+tcp: two registered tiers
    skip_reason = name + " fabric not built here (known: " + interlace::fabric::registry().names() + ")";
    return false;
  }
  // These tests drive ranks from threads that also block outside the fabric (joins,
  // sleeps): on sim such a rank keeps the baton until INTERLACE_SIM_STALL passes.
  if (name == "sim") setenv("INTERLACE_SIM_STALL", "0.05", 0);
  // UCX picks its shared-memory transports between threads of one process by default;
  // those are not yet proven 10 in 10 (docs/ucx.md, limits): test over its tcp one.
  if (name == "ucx") setenv("UCX_TLS", "tcp", 0);
  store = interlace::bootstrap::shared_memory_store();
  fabrics.resize(n);
  recorders.resize(n);
  job_id = unique_job_id(name);
  const std::string job = job_id;
  std::vector<std::string> errors(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      interlace::fabric::FabricInit init;
      init.rank = r;
      init.size = n;
      init.job_id = job;
      init.secret = "test";
      init.store = store.get();
      init.config = cfg;
      try {
        fabrics[r] = name == "shm+tcp" ? make_split_tiers(init) : interlace::fabric::make_fabric(name, init);
      } catch (const interlace::Error& e) {
        errors[r] = (e.code() == Errc::unsupported ? "unsupported: " : "") + std::string(e.what());
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < n; ++r) {
    if (errors[r].empty()) continue;
    if (errors[r].rfind("unsupported: ", 0) == 0) {
      skip_reason = name + " fabric not available: " + errors[r];
      return false;
    }
    ADD_FAILURE() << "rank " << r << " of " << name << ": " << errors[r];
    return false;
  }
  return true;
}

void Job::run(const std::function<void(int, Recorder&)>& body) {
  const int n = static_cast<int>(fabrics.size());
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      body(r, recorders[r]);
      done.fetch_add(1);
      // Until every rank is done (it returns at once then): a rank's own frames may still
      // wait in its window, and on udp nobody else retransmits them. The cap is the
      // longest any test body waits (90 s), so a slow peer is not starved halfway.
      pump_until(*fabrics[r], recorders[r], [&] { return done.load() == n; }, 120);
    });
  }
  for (auto& t : threads) t.join();
}

size_t send_retry(Fabric& f, Recorder& rec, int peer, const FrameHeader& h, const void* payload,
                  size_t len, double timeout_s) {
  const auto deadline = interlace::Deadline::after(timeout_s);
  size_t blocked = 0;
  for (;;) {
    const Errc e = f.send(peer, h, payload, len);
    if (e == Errc::ok) return blocked;
    if (e != Errc::would_block) {
      ADD_FAILURE() << "send to rank " << peer << " of " << len << " bytes: " << interlace::errc_name(e);
      return blocked;
    }
    ++blocked;
    if (deadline.expired()) {
      ADD_FAILURE() << "send to rank " << peer << " stayed would_block for " << timeout_s << " s";
      return blocked;
    }
    if (f.progress(rec) == 0) std::this_thread::yield();
  }
}

bool pump_until(Fabric& f, Recorder& rec, const std::function<bool()>& pred, double timeout_s) {
  const auto deadline = interlace::Deadline::after(timeout_s);
  int idle = 0;
  while (!pred()) {
    if (deadline.expired()) return false;
    if (f.progress(rec) > 0) {
      idle = 0;
    } else if (++idle > 64) {
      f.wait(0.002);  // short: pred() may depend on other threads, not only frames
    }
  }
  return true;
}

void expect_stream(const Recorder& rec, int self, const std::vector<int>& srcs, uint32_t count) {
  std::map<int, uint32_t> next;
  for (int s : srcs) next[s] = 0;
  size_t bad_src = 0, reordered = 0, corrupt = 0, lost = 0, duplicated = 0;
  for (const auto& g : rec.frames) {
    auto it = next.find(static_cast<int>(g.h.src));
    if (it == next.end()) { ++bad_src; continue; }
    if (g.h.seq < it->second) ++duplicated;
    else if (g.h.seq > it->second) ++reordered;
    it->second = g.h.seq + 1;
    if (g.h.dst != static_cast<uint32_t>(self) || g.h.len != g.payload.size() ||
        checksum(g.payload.data(), g.payload.size()) != g.h.aux)
      ++corrupt;
  }
  for (auto& [s, n] : next)
    if (n != count) lost += count > n ? count - n : 0;
  EXPECT_EQ(bad_src, 0u) << "frames from unexpected sources at rank " << self;
  EXPECT_EQ(reordered, 0u) << "reordered frames at rank " << self;
  EXPECT_EQ(duplicated, 0u) << "duplicated frames at rank " << self;
  EXPECT_EQ(corrupt, 0u) << "corrupt frames at rank " << self;
  EXPECT_EQ(lost, 0u) << "lost frames at rank " << self;
  EXPECT_EQ(rec.frames.size(), srcs.size() * count) << "at rank " << self;
}

std::string fabric_param_name(const testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n)
    if (c == '+') c = '_';  // "shm+tcp": gtest names allow letters, digits and _
  return n;
}

}  // namespace conformance
