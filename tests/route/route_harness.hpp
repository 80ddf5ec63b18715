// Route layers over real fabrics with ranks as threads, and an inner-fabric wrapper
// that counts the frames handed to each peer (a routed rank may only reach neighbours).
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "interlace/bootstrap/store.hpp"
#include "interlace/fabric/fabric.hpp"
#include "interlace/fabric/registry.hpp"
#include "interlace/fabric/route_table.hpp"
#include "interlace/route/route_layer.hpp"
#include "route_gen.hpp"

namespace route_test {

using interlace::Errc;
using interlace::fabric::Fabric;
using interlace::fabric::FrameHeader;
using interlace::fabric::FrameSink;

class Counting final : public Fabric {
 public:
  Counting(std::unique_ptr<Fabric> in, std::vector<uint64_t>& out) : in_(std::move(in)), sent(out) {
    sent.assign(static_cast<size_t>(in_->size()), 0);
  }
  const char* name() const noexcept override { return in_->name(); }
  int rank() const noexcept override { return in_->rank(); }
  int size() const noexcept override { return in_->size(); }
  size_t max_payload() const noexcept override { return in_->max_payload(); }
  Errc send(int peer, const FrameHeader& h, const void* p, size_t len) override {
    Errc rc = in_->send(peer, h, p, len);
    if (rc == Errc::ok) ++sent[static_cast<size_t>(peer)];
    return rc;
  }
  int progress(FrameSink& s) override { return in_->progress(s); }
  void wait(double t) override { in_->wait(t); }
  void wake() override { in_->wake(); }
  void check_peers(FrameSink& s) override {
    // A test's stand-in for a neighbour's death (threads share a pid, so shm cannot see it).
    const int k = kill ? kill->load() : -1;
    if (k >= 0 && k != rank() && !killed_reported) {
      killed_reported = true;
      s.on_peer_lost(k, "test: rank " + std::to_string(k) + " killed");
    }
    in_->check_peers(s);
  }
  const std::atomic<int>* kill = nullptr;  // set: this fabric reports that rank lost
  bool killed_reported = false;
  void watch_peer(int p) override { in_->watch_peer(p); }

  std::unique_ptr<Fabric> in_;
  std::vector<uint64_t>& sent;  // frames the inner fabric took, per peer (kept by the Job)
};

struct Job {
  std::vector<std::unique_ptr<Fabric>> fabrics;  // route layers
  std::vector<std::vector<uint64_t>> sent;  // per rank: frames its inner fabric took, per peer
  interlace::fabric::RouteTable table;
  std::shared_ptr<interlace::bootstrap::Store> store;  // outlives the fabrics
};

// n route layers over `fabric` (shm, tcp) using the tables in `dir`.
inline Job make_job(const std::string& fabric, const std::string& dir, int n, interlace::Config cfg,
                    const std::atomic<int>* kill = nullptr) {
  static int counter = 0;
  Job job;
  job.table = interlace::fabric::load_route_table(dir);
  job.fabrics.resize(static_cast<size_t>(n));
  job.sent.resize(static_cast<size_t>(n));
  cfg.routes_dir = dir;  // the inner fabrics accept transit frames
  job.store = interlace::bootstrap::shared_memory_store();
  interlace::bootstrap::Store* store = job.store.get();
  const std::string id = "rt" + std::to_string(getpid()) + "x" + std::to_string(++counter);
  std::vector<std::thread> th;
  std::vector<std::string> errors(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r)
    th.emplace_back([&, r] {
      try {
        interlace::fabric::FabricInit init;
        init.rank = r;
        init.size = n;
        init.job_id = id;
        init.secret = "route";
        init.store = store;
        init.config = cfg;
        auto c = std::make_unique<Counting>(interlace::fabric::make_fabric(fabric, init),
                                            job.sent[static_cast<size_t>(r)]);
        if (kill && job.table.linked(r, kill->load())) c->kill = kill;
        job.fabrics[static_cast<size_t>(r)] = interlace::route::make_route_layer(std::move(c), job.table, cfg);
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(r)] = e.what();
      }
    });
  for (auto& t : th) t.join();
  for (const std::string& e : errors)
    if (!e.empty()) throw std::runtime_error(e);
  return job;
}

}  // namespace route_test
