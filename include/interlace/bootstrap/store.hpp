// Contract: a job-wide key-value store used only during setup (exchanging
// addresses). Keys are short ASCII strings, values are bytes. set() overwrites;
// get() blocks until the key exists or the timeout passes (Errc::timeout).
// Implementations: FileStore (one host, a directory; atomic rename) and
// TcpStore (several hosts; one server, clients authenticate with the job secret).
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace interlace::bootstrap {

class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  virtual std::string get(const std::string& key, double timeout_s) = 0;
  virtual bool check(const std::string& key) = 0;  // exists now?
  // Atomic counter: adds delta, returns the new value (used for barriers).
  virtual long long add(const std::string& key, long long delta) = 0;
};

// Blocks until `n` participants have called barrier with the same name.
void store_barrier(Store& s, const std::string& name, int n, double timeout_s);

std::unique_ptr<Store> make_file_store(const std::string& dir);
// Connects to a TcpStore server at host:port, authenticating with secret.
std::unique_ptr<Store> make_tcp_store_client(const std::string& host, int port,
                                             const std::string& secret, double timeout_s);
// In-process store for the threads-as-ranks harness.
std::unique_ptr<Store> make_memory_store();
std::shared_ptr<Store> shared_memory_store();  // new one, shareable across threads

// Opens the store named by a URL: file:///dir, tcp://host:port, mem:// (not shared),
// pmix:// or pmi2:// (rank 0 serves a TCP store whose address the launcher's key
// exchange hands out; collective, docs/bootstrap.md).
std::unique_ptr<Store> open_store(const std::string& url, const std::string& secret,
                                  double timeout_s);

// The TCP store server: serves until destroyed. port 0 picks a free port.
class TcpStoreServer {
 public:
  TcpStoreServer(const std::string& bind_host, int port, const std::string& secret);
  ~TcpStoreServer();
  int port() const;
  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;
 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace interlace::bootstrap
