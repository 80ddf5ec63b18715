// udp fabric: strangers, corrupt headers and wrong secrets are dropped (and
// counted) while the job's traffic goes on; a taken port, bad settings and the
// static address table.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fabric/udp/udp_options.hpp"
#include "fabric/udp/udp_wire.hpp"
#include "interlace/fabric/registry.hpp"
#include "udp_test_util.hpp"

namespace conformance {
namespace {

using interlace::Error;
using udp_test::ScopedEnv;
namespace fu = interlace::fabric::udp;

sockaddr_in parse(const std::string& ep) {
  const size_t colon = ep.rfind(':');
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(std::stoi(ep.substr(colon + 1))));
  inet_pton(AF_INET, ep.substr(0, colon).c_str(), &sa.sin_addr);
  return sa;
}

void send_raw(int fd, const sockaddr_in& to, const void* p, size_t n) {
  ASSERT_EQ(sendto(fd, p, n, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to),
            static_cast<ssize_t>(n));
}

interlace::fabric::FabricInit init_for(int rank, int size, const std::string& job,
                                       const std::string& secret,
                                       interlace::bootstrap::Store* store) {
  interlace::fabric::FabricInit init;
  init.rank = rank;
  init.size = size;
  init.job_id = job;
  init.secret = secret;
  init.store = store;
  init.config = test_config();
  return init;
}

TEST(UdpSecurity, StrangersAndCorruptHeadersAreDroppedWhileTrafficContinues) {
  ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"}};
  Job job;
  ASSERT_TRUE(job.make("udp", 2));
  auto& target = udp_test::udp(*job.fabrics[1]);
  const sockaddr_in to = parse(target.endpoint());
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  const uint32_t token = fu::job_token(job.job_id, "test");
  std::vector<std::vector<std::byte>> junk;
  // A stranger that knows the token (say it sniffed it) but is not at rank 0's address.
  std::vector<std::byte> d(fu::kDgramHeader + 60, std::byte{0x41});
  fu::encode_header(fu::DgramHeader{fu::kData, 0, 0, token, 0}, d.data());
  junk.push_back(d);
  // Wrong token (does not know the secret).
  fu::encode_header(fu::DgramHeader{fu::kData, 0, 0, token ^ 1, 0}, d.data());
  junk.push_back(d);
  // Corrupt header: a valid one with a flipped byte.
  fu::encode_header(fu::DgramHeader{fu::kAck, 0, 0, token, 5}, d.data());
  d[9] ^= std::byte{0x10};
  junk.push_back(d);
  junk.push_back(std::vector<std::byte>(5, std::byte{1}));   // shorter than a header
  junk.push_back(std::vector<std::byte>(40, std::byte{0}));  // zeros
  constexpr uint32_t kCount = 300;
  job.run([&](int r, Recorder& rec) {
    Fabric& f = *job.fabrics[r];
    if (r == 0) {
      std::vector<std::byte> buf;
      for (uint32_t seq = 0; seq < kCount; ++seq) {
        if (seq % 10 == 0)
          for (const auto& j : junk) send_raw(fd, to, j.data(), j.size());
        fill_payload(buf, 2000, 0, 1, seq);
        send_retry(f, rec, 1, make_header(0, 1, seq, buf.data(), 2000), buf.data(), 2000);
      }
    } else {
      EXPECT_TRUE(pump_until(f, rec, [&] { return rec.frames.size() >= kCount; }, 30));
    }
  });
  ::close(fd);
  expect_stream(job.recorders[1], 1, {0}, kCount);
  EXPECT_EQ(target.rejected(), junk.size() * (kCount / 10));
  EXPECT_TRUE(job.recorders[1].lost.empty());
}

TEST(UdpSecurity, APeerWithTheWrongSecretIsNeverHeardAndEndsLost) {
  ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"}, {"INTERLACE_UDP_PEER_TIMEOUT", "1"}};
  auto store = interlace::bootstrap::shared_memory_store();
  const std::string job = unique_job_id("udp");
  auto f0 = interlace::fabric::make_fabric("udp", init_for(0, 2, job, "right", store.get()));
  auto f1 = interlace::fabric::make_fabric("udp", init_for(1, 2, job, "wrong", store.get()));
  Recorder rec0, rec1;
  uint64_t x = 42;
  ASSERT_EQ(f0->send(1, make_header(0, 1, 0, &x, 8), &x, 8), Errc::ok);
  ASSERT_EQ(f1->send(0, make_header(1, 0, 0, &x, 8), &x, 8), Errc::ok);
  const auto deadline = interlace::Deadline::after(15);
  while ((rec0.lost.empty() || rec1.lost.empty()) && !deadline.expired()) {
    f0->progress(rec0);
    f1->progress(rec1);
    f0->check_peers(rec0);
    f1->check_peers(rec1);
    f0->wait(0.005);
  }
  EXPECT_TRUE(rec0.frames.empty());
  EXPECT_TRUE(rec1.frames.empty());
  ASSERT_EQ(rec0.lost.size(), 1u);
  EXPECT_EQ(rec0.lost[0].first, 1);
  EXPECT_NE(rec0.lost[0].second.find("INTERLACE_UDP_PEER_TIMEOUT"), std::string::npos) << rec0.lost[0].second;
  EXPECT_GT(udp_test::udp(*f0).rejected(), 0u);
  EXPECT_EQ(f0->send(1, make_header(0, 1, 1, &x, 8), &x, 8), Errc::lost_peer);
}

TEST(UdpSecurity, APortInUseIsAClearErrorNamingAddressAndPort) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  socklen_t len = sizeof sa;
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  const std::string port = std::to_string(ntohs(sa.sin_port));
  ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"}, {"INTERLACE_UDP_PORT", port}};
  auto store = interlace::bootstrap::shared_memory_store();
  try {
    interlace::fabric::make_fabric("udp", init_for(0, 2, unique_job_id("udp"), "s", store.get()));
    ADD_FAILURE() << "bound a port that is in use";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("127.0.0.1:" + port), std::string::npos) << m;
    EXPECT_NE(m.find("INTERLACE_UDP_PORT"), std::string::npos) << m;
    EXPECT_NE(m.find("in use"), std::string::npos) << m;
  }
  ::close(fd);
}

TEST(UdpSecurity, BadSettingsAreErrorsNamingTheValue) {
  const std::vector<std::tuple<const char*, const char*, const char*>> cases = {
      {"INTERLACE_UDP_FAULTS", "drop=2", "drop"},
      {"INTERLACE_UDP_FAULTS", "loss=0.1", "unknown key 'loss'"},
      {"INTERLACE_UDP_FAULTS", "delay_ms", "delay_ms"},
      {"INTERLACE_UDP_FAULTS", "down=3", "down"},
      {"INTERLACE_UDP_MODE", "fast", "fast"},
      {"INTERLACE_UDP_WINDOW", "0", "INTERLACE_UDP_WINDOW"},
      {"INTERLACE_UDP_MTU", "100", "INTERLACE_UDP_MTU"},
      {"INTERLACE_UDP_PEER_TIMEOUT", "soon", "soon"},
      {"INTERLACE_UDP_PIGGYBACK", "yes", "INTERLACE_UDP_PIGGYBACK"},
      {"INTERLACE_UDP_PEERS", "127.0.0.1", "1 entries but the job has 2"},
      {"INTERLACE_UDP_PEERS", "127.0.0.1:99999,127.0.0.1", "bad port"},
      {"INTERLACE_ZRLMPI_RANKS", "7", "INTERLACE_ZRLMPI_RANKS"},
      {"INTERLACE_ZRLMPI_RANKS", "1", "needs INTERLACE_UDP_PEERS"},
  };
  auto store = interlace::bootstrap::shared_memory_store();
  for (const auto& [var, value, expect] : cases) {
    ScopedEnv env{{"INTERLACE_UDP_ADDR", "127.0.0.1"}, {var, value}};
    try {
      interlace::fabric::make_fabric("udp", init_for(0, 2, unique_job_id("udp"), "s", store.get()));
      ADD_FAILURE() << var << "=" << value << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  }
}

TEST(UdpAddressing, StaticTableFollowsZrlmpisPortConvention) {
  const auto peers = fu::parse_peers("a,b,a,a:9000,b,a", 2718);
  ASSERT_EQ(peers.size(), 6u);
  const std::vector<uint16_t> ports = {2718, 2718, 2719, 9000, 2719, 2721};
  for (size_t i = 0; i < peers.size(); ++i) EXPECT_EQ(peers[i].port, ports[i]) << "entry " << i;
  EXPECT_EQ(peers[3].host, "a");
}

TEST(UdpAddressing, StaticTableNeedsNoStore) {
  // Three ranks on one host: base, base+1, base+2, found by a free base port.
  int base = 0;
  for (int tries = 0; tries < 20 && base == 0; ++tries) {
    int fds[3];
    const int candidate = 20000 + (getpid() * 7 + tries * 97) % 30000;
    bool ok = true;
    for (int i = 0; i < 3; ++i) {
      fds[i] = socket(AF_INET, SOCK_DGRAM, 0);
      sockaddr_in sa{};
      sa.sin_family = AF_INET;
      sa.sin_port = htons(static_cast<uint16_t>(candidate + i));
      inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
      ok = ok && bind(fds[i], reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
    }
    for (int fd : fds) ::close(fd);
    if (ok) base = candidate;
  }
  ASSERT_NE(base, 0);
  ScopedEnv env{{"INTERLACE_UDP_PEERS", "127.0.0.1,127.0.0.1,127.0.0.1"},
                {"INTERLACE_UDP_PORT", std::to_string(base)}};
  const std::string job = unique_job_id("udp");
  std::vector<std::unique_ptr<Fabric>> f;
  for (int r = 0; r < 3; ++r)
    f.push_back(interlace::fabric::make_fabric("udp", init_for(r, 3, job, "s", nullptr)));
  for (int r = 0; r < 3; ++r)
    EXPECT_EQ(udp_test::udp(*f[r]).endpoint(), "127.0.0.1:" + std::to_string(base + r));
  std::vector<Recorder> rec(3);
  std::vector<std::byte> buf;
  for (uint32_t seq = 0; seq < 50; ++seq)
    for (int s = 0; s < 3; ++s)
      for (int d = 0; d < 3; ++d) {
        fill_payload(buf, 100, s, d, seq);
        send_retry(*f[s], rec[s], d, make_header(s, d, seq, buf.data(), 100), buf.data(), 100);
      }
  const auto deadline = interlace::Deadline::after(20);
  while (!deadline.expired() &&
         (rec[0].frames.size() < 150 || rec[1].frames.size() < 150 || rec[2].frames.size() < 150))
    for (int r = 0; r < 3; ++r) f[r]->progress(rec[r]);
  for (int r = 0; r < 3; ++r) expect_stream(rec[r], r, {0, 1, 2}, 50);
}

}  // namespace
}  // namespace conformance
