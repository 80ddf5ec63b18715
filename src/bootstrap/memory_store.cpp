// In-process store for threads-as-ranks: a map guarded by one mutex, with a
// condition variable so get() sleeps instead of polling.
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "bootstrap/store_util.hpp"
#include "interlace/bootstrap/store.hpp"

namespace interlace::bootstrap {
namespace {

class MemoryStore final : public Store {
 public:
  void set(const std::string& key, const std::string& value) override {
    {
      std::lock_guard<std::mutex> g(mu_);
      map_[key] = value;
    }
    cv_.notify_all();
  }

  std::string get(const std::string& key, double timeout_s) override {
    std::unique_lock<std::mutex> g(mu_);
    auto ready = [&] { return map_.count(key) != 0; };
    if (timeout_s > 0) {
      auto limit = std::chrono::duration<double>(timeout_s);
      if (!cv_.wait_for(g, limit, ready))
        throw_error(Errc::timeout, detail::timeout_text(key, timeout_s, "memory store"));
    } else {
      cv_.wait(g, ready);
    }
    return map_[key];
  }

  bool check(const std::string& key) override {
    std::lock_guard<std::mutex> g(mu_);
    return map_.count(key) != 0;
  }

  long long add(const std::string& key, long long delta) override {
    long long v;
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = map_.find(key);
      v = (it == map_.end() ? 0 : detail::parse_counter(key, it->second)) + delta;
      map_[key] = std::to_string(v);
    }
    cv_.notify_all();
    return v;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> map_;
};

}  // namespace

std::unique_ptr<Store> make_memory_store() { return std::make_unique<MemoryStore>(); }
std::shared_ptr<Store> shared_memory_store() { return std::make_shared<MemoryStore>(); }

}  // namespace interlace::bootstrap
