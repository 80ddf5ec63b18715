// The store of a job started by a PMIx or PMI-2 launcher (URL pmix:// or pmi2://):
// rank 0 serves a TCP store and the launcher's key exchange (put, fence, get) tells
// every rank where it is and its secret; the store itself is the ordinary TCP one.
// Why not a store on PMIx_Put/Get alone: see docs/bootstrap.md.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <unistd.h>

#include <atomic>
#include <exception>
#include <sstream>

#include "bootstrap/launcher_client.hpp"
#include "bootstrap/launcher_store.hpp"
#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"

namespace interlace::bootstrap::detail {
namespace {

std::string random_hex(size_t bytes) {
  std::string raw(bytes, '\0');
  size_t got = 0;
  while (got < bytes) {
    ssize_t n = getrandom(raw.data() + got, bytes - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_system_error("getrandom");
    }
    got += static_cast<size_t>(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) { out += hex[c >> 4]; out += hex[c & 15]; }
  return out;
}

bool loopback(const in_addr& a) { return (ntohl(a.s_addr) >> 24) == 127; }

// An IPv4 address of this host that other hosts can reach: the host name's, else the
// first non-loopback interface's.
std::string reachable_address() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) {
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_INET;
    if (getaddrinfo(name, nullptr, &hints, &res) == 0) {
      std::string out;
      for (addrinfo* p = res; p && out.empty(); p = p->ai_next) {
        auto* a = reinterpret_cast<sockaddr_in*>(p->ai_addr);
        char buf[INET_ADDRSTRLEN] = {};
        if (!loopback(a->sin_addr) && inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf)) out = buf;
      }
      freeaddrinfo(res);
      if (!out.empty()) return out;
    }
  }
  ifaddrs* ifs = nullptr;
  std::string out;
  if (getifaddrs(&ifs) == 0) {
    for (ifaddrs* p = ifs; p && out.empty(); p = p->ifa_next) {
      if (!p->ifa_addr || p->ifa_addr->sa_family != AF_INET) continue;
      auto* a = reinterpret_cast<sockaddr_in*>(p->ifa_addr);
      char buf[INET_ADDRSTRLEN] = {};
      if (!loopback(a->sin_addr) && inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf)) out = buf;
    }
    freeifaddrs(ifs);
  }
  if (out.empty())
    throw_error(Errc::system, "bootstrap: this host has no IPv4 address other hosts could reach for "
                              "the store; set INTERLACE_STORE=tcp://host:port");
  return out;
}

class LauncherStore final : public Store {
 public:
  LauncherStore(std::unique_ptr<TcpStoreServer> server, std::unique_ptr<Store> client, int rank,
                int size, double timeout_s)
      : server_(std::move(server)), client_(std::move(client)), rank_(rank), size_(size),
        timeout_s_(timeout_s) {}

  // Rank 0's server must outlive every other rank's use of it (a tcp fabric looks up
  // addresses lazily, shm leaves departure records at the end): the others check
  // out, and rank 0 waits for all of them, bounded by the connect timeout.
  ~LauncherStore() override {
    try {
      const long long left = client_->add("bootstrap/left", 1);
      if (left == size_) client_->set("bootstrap/all-left", "1");
      if (rank_ == 0) client_->get("bootstrap/all-left", timeout_s_);
    } catch (const std::exception& e) {
      IL_LOG(warn, "bootstrap: leaving the launcher's store: " << e.what());
    }
  }

  void set(const std::string& key, const std::string& value) override { client_->set(key, value); }
  std::string get(const std::string& key, double timeout_s) override { return client_->get(key, timeout_s); }
  bool check(const std::string& key) override { return client_->check(key); }
  long long add(const std::string& key, long long delta) override { return client_->add(key, delta); }

 private:
  std::unique_ptr<TcpStoreServer> server_;  // rank 0 only; destroyed after client_
  std::unique_ptr<Store> client_;
  int rank_, size_;
  double timeout_s_;
};

}  // namespace

std::unique_ptr<Store> open_launcher_store(const std::string& url, const std::string& secret,
                                           double timeout_s) {
  LauncherClient* c = launcher_client();
  const std::string scheme = url.substr(0, url.find(':'));
  if (!c || scheme != c->name())
    throw_error(Errc::invalid_argument, "store URL '" + url + "' needs a job started by a " +
                                            (scheme == "pmix" ? "PMIx" : "PMI-2") +
                                            " launcher and interlace built with it (docs/bootstrap.md)");
  const LauncherInfo& me = c->info();
  if (me.size == 1) return make_memory_store();
  // Each opening is a new exchange (a restarted runtime opens again); every rank opens
  // in the same order, so a process-wide count names it.
  static std::atomic<int> opened{0};
  const std::string key = "interlace.store." + std::to_string(opened.fetch_add(1));
  const bool one_host = me.local_size == me.size;
  std::string published;
  std::unique_ptr<TcpStoreServer> server;
  std::exception_ptr failed;
  if (me.rank == 0) {
    try {
      // The store's own secret is random and travels only through the launcher, so
      // nobody outside the job can read or write it even knowing the job id.
      const std::string store_secret = secret + ":" + random_hex(16);
      const std::string host = one_host ? "127.0.0.1" : reachable_address();
      server = std::make_unique<TcpStoreServer>(one_host ? "127.0.0.1" : "0.0.0.0", 0, store_secret);
      published = host + " " + std::to_string(server->port()) + " " + store_secret;
    } catch (const std::exception& e) {
      // The others wait in the fence (PMI-2's has no timeout): tell them why.
      failed = std::current_exception();
      published = std::string("error ") + e.what();
    }
    c->put(key, failed ? published.substr(0, 900) : published);  // PMI-2 values: < 1 KiB
  }
  c->fence(timeout_s);
  if (failed) std::rethrow_exception(failed);
  if (me.rank != 0) published = c->get(0, key);
  if (published.rfind("error ", 0) == 0)
    throw_error(Errc::system, "bootstrap: rank 0 could not serve the store: " + published.substr(6));
  std::istringstream in(published);
  std::string host, store_secret;
  int port = 0;
  if (!(in >> host >> port >> store_secret) || port < 1 || port > 65535)
    throw_error(Errc::protocol, "bootstrap: rank 0's store address from " + std::string(c->name()) +
                                    " is malformed (" + std::to_string(published.size()) + " bytes)");
  IL_LOG(debug, "bootstrap: store of rank 0 at " << host << ":" << port << " (via " << c->name() << ")");
  auto client = make_tcp_store_client(host, port, store_secret, timeout_s);
  return std::make_unique<LauncherStore>(std::move(server), std::move(client), me.rank, me.size, timeout_s);
}

}  // namespace interlace::bootstrap::detail
