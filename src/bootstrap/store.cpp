// Store-level helpers: the barrier built on add(), and URL dispatch.
#include "interlace/bootstrap/store.hpp"

#include <cerrno>
#include <cstdlib>

#include "bootstrap/launcher_store.hpp"
#include "interlace/core/error.hpp"

namespace interlace::bootstrap {

void store_barrier(Store& s, const std::string& name, int n, double timeout_s) {
  if (n < 1)
    throw_error(Errc::invalid_argument,
                "store_barrier '" + name + "': participant count " + std::to_string(n) + " < 1");
  // Arrival k (1-based) belongs to generation (k-1)/n, so the same name can be
  // reused by the same n participants: the last arrival of each generation
  // releases exactly that generation.
  long long k = s.add("barrier/" + name + "/count", 1);
  long long gen = (k - 1) / n;
  std::string done = "barrier/" + name + "/done/" + std::to_string(gen);
  if (k % n == 0) {
    s.set(done, "1");
    return;
  }
  s.get(done, timeout_s);
}

std::unique_ptr<Store> open_store(const std::string& url, const std::string& secret,
                                  double timeout_s) {
  auto bad = [&](const std::string& why) -> std::unique_ptr<Store> {
    throw_error(Errc::invalid_argument, "store URL '" + url + "' is invalid: " + why +
                                            " (expected file:///dir, tcp://host:port, mem://, pmix:// or pmi2://)");
  };
  if (url.rfind("file://", 0) == 0) {
    std::string path = url.substr(7);
    if (path.empty() || path[0] != '/') return bad("the file path must be absolute");
    return make_file_store(path);
  }
  if (url.rfind("tcp://", 0) == 0) {
    std::string rest = url.substr(6);
    while (!rest.empty() && rest.back() == '/') rest.pop_back();
    std::string host, port_text;
    if (!rest.empty() && rest[0] == '[') {  // [ipv6]:port
      auto close = rest.find(']');
      if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':')
        return bad("an IPv6 host must be written [addr]:port");
      host = rest.substr(1, close - 1);
      port_text = rest.substr(close + 2);
    } else {
      auto colon = rest.rfind(':');
      if (colon == std::string::npos) return bad("missing ':port'");
      host = rest.substr(0, colon);
      port_text = rest.substr(colon + 1);
    }
    if (host.empty()) return bad("missing host");
    char* end = nullptr;
    errno = 0;
    long port = std::strtol(port_text.c_str(), &end, 10);
    if (port_text.empty() || *end != '\0' || errno == ERANGE || port < 1 || port > 65535)
      return bad("port '" + port_text + "' is not in 1..65535");
    return make_tcp_store_client(host, static_cast<int>(port), secret, timeout_s);
  }
  if (url == "mem://" || url == "mem:") return make_memory_store();
  if (url == "pmix://" || url == "pmi2://") return detail::open_launcher_store(url, secret, timeout_s);
  if (url.empty()) return bad("it is empty");
  return bad("unknown scheme");
}

}  // namespace interlace::bootstrap
