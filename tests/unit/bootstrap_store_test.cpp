#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>
#include <vector>

#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/error.hpp"

using namespace interlace;
using namespace interlace::bootstrap;

namespace {

std::string temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "il-store-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp");
  return tmpl;
}

// Each kind supplies a factory: one Store per participant, all seeing the same data.
struct Kind {
  std::string name;
  std::function<std::unique_ptr<Store>()> open;
  std::shared_ptr<void> keep;  // server / directory lifetime
};

class StoreKinds : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string& k = GetParam();
    if (k == "memory") {
      auto shared = shared_memory_store();
      keep_ = shared;
      // Views of one shared store, so "several participants" share data.
      open_ = [shared] { return std::unique_ptr<Store>(new Forward(shared)); };
    } else if (k == "file") {
      dir_ = temp_dir();
      std::string d = dir_ + "/nested/dir";
      open_ = [d] { return make_file_store(d); };
    } else {
      auto server = std::make_shared<TcpStoreServer>("127.0.0.1", 0, "secret");
      keep_ = server;
      int port = server->port();
      open_ = [port] { return make_tcp_store_client("127.0.0.1", port, "secret", 5.0); };
    }
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  struct Forward : Store {
    explicit Forward(std::shared_ptr<Store> s) : s(std::move(s)) {}
    void set(const std::string& k, const std::string& v) override { s->set(k, v); }
    std::string get(const std::string& k, double t) override { return s->get(k, t); }
    bool check(const std::string& k) override { return s->check(k); }
    long long add(const std::string& k, long long d) override { return s->add(k, d); }
    std::shared_ptr<Store> s;
  };
  std::function<std::unique_ptr<Store>()> open_;
  std::shared_ptr<void> keep_;
  std::string dir_;
};

}  // namespace

TEST_P(StoreKinds, SetGetCheckOverwrite) {
  auto a = open_();
  auto b = open_();
  EXPECT_FALSE(a->check("k1"));
  a->set("k1", "v1");
  EXPECT_TRUE(b->check("k1"));
  EXPECT_EQ(b->get("k1", 1.0), "v1");
  b->set("k1", std::string("bin\0ary", 7));
  EXPECT_EQ(a->get("k1", 1.0), std::string("bin\0ary", 7));
  a->set("", "empty key");
  a->set("path/with spaces/.x", "");
  EXPECT_EQ(b->get("", 1.0), "empty key");
  EXPECT_EQ(b->get("path/with spaces/.x", 1.0), "");
  std::string big(1 << 20, 'z');
  big[12345] = 'q';
  a->set("big", big);
  EXPECT_EQ(b->get("big", 2.0), big);
}

TEST_P(StoreKinds, GetTimesOutNamingTheKey) {
  auto s = open_();
  uint64_t t0 = now_ns();
  try {
    s->get("never-set", 0.1);
    FAIL() << "get returned";
  } catch (const TimeoutError& e) {
    EXPECT_EQ(e.code(), Errc::timeout);
    EXPECT_NE(std::string(e.what()).find("never-set"), std::string::npos) << e.what();
  }
  double took = (now_ns() - t0) * 1e-9;
  EXPECT_GE(took, 0.09);
  EXPECT_LT(took, 2.0);
  s->set("after", "ok");  // the store still works after a timeout
  EXPECT_EQ(s->get("after", 1.0), "ok");
}

TEST_P(StoreKinds, GetBlocksUntilAnotherParticipantSets) {
  auto waiter = open_();
  std::thread setter([this] {
    auto s = open_();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    s->set("late", "arrived");
  });
  EXPECT_EQ(waiter->get("late", 5.0), "arrived");
  setter.join();
}

TEST_P(StoreKinds, AddIsAtomicAcrossThreads) {
  constexpr int kThreads = 6, kAdds = 50;
  std::vector<std::thread> ts;
  std::atomic<long long> max_seen{0};
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&] {
      auto s = open_();
      for (int i = 0; i < kAdds; ++i) {
        long long v = s->add("counter", 1);
        long long m = max_seen.load();
        while (v > m && !max_seen.compare_exchange_weak(m, v)) {}
      }
    });
  }
  for (auto& t : ts) t.join();
  auto s = open_();
  EXPECT_EQ(s->add("counter", 0), kThreads * kAdds);
  EXPECT_EQ(max_seen.load(), kThreads * kAdds);
  EXPECT_EQ(s->get("counter", 1.0), std::to_string(kThreads * kAdds));  // counters read as text
  EXPECT_EQ(s->add("counter", -10), kThreads * kAdds - 10);
  s->set("text", "hello");
  try {
    s->add("text", 1);
    FAIL() << "add on a non-integer value";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("text"), std::string::npos);
  }
  EXPECT_EQ(s->add("counter", 1), kThreads * kAdds - 9);  // still usable afterwards
}

TEST_P(StoreKinds, BarrierReleasesAllAndIsReusable) {
  constexpr int kN = 5;
  std::atomic<int> arrived{0};
  std::atomic<bool> early{false};
  std::vector<std::thread> ts;
  for (int t = 0; t < kN; ++t) {
    ts.emplace_back([&, t] {
      auto s = open_();
      for (int round = 0; round < 3; ++round) {
        std::this_thread::sleep_for(std::chrono::milliseconds(t * 3));
        arrived.fetch_add(1);
        store_barrier(*s, "b", kN, 5.0);
        // Nobody leaves a round before everyone has arrived in it.
        if (arrived.load() < (round + 1) * kN) early = true;
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_FALSE(early.load());
  EXPECT_EQ(arrived.load(), 3 * kN);
  auto s = open_();
  EXPECT_THROW(store_barrier(*s, "lonely", 2, 0.1), TimeoutError);
  EXPECT_THROW(store_barrier(*s, "zero", 0, 0.1), Error);
}

INSTANTIATE_TEST_SUITE_P(Bootstrap, StoreKinds, ::testing::Values("memory", "file", "tcp"),
                         [](const auto& info) { return info.param; });

TEST(BootstrapOpenStore, UrlsAndErrors) {
  std::string dir = temp_dir();
  auto f = open_store("file://" + dir + "/s", "", 1.0);
  f->set("a", "1");
  EXPECT_EQ(make_file_store(dir + "/s")->get("a", 1.0), "1");
  auto m = open_store("mem://", "", 1.0);
  m->set("x", "y");
  EXPECT_EQ(m->get("x", 1.0), "y");
  TcpStoreServer server("127.0.0.1", 0, "pw");
  auto t = open_store("tcp://127.0.0.1:" + std::to_string(server.port()), "pw", 2.0);
  t->set("q", "r");
  EXPECT_EQ(t->get("q", 1.0), "r");
  std::filesystem::remove_all(dir);

  for (const char* bad : {"", "http://x", "file://relative/dir", "tcp://host", "tcp://:80",
                          "tcp://host:0", "tcp://host:70000", "tcp://host:12ab", "tcp://[::1"}) {
    try {
      open_store(bad, "", 0.2);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument) << bad;
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(BootstrapFileStore, RejectsAFileAsDirectory) {
  std::string dir = temp_dir();
  std::string file = dir + "/plain";
  make_file_store(dir)->set("plain", "x");
  EXPECT_THROW(make_file_store(file), Error);
  std::filesystem::remove_all(dir);
}
