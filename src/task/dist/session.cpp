// Distributed-task sessions: roles, the function registry, and the host's side of one
// command exchange (docs/ompif.md).
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "interlace/engine/context.hpp"
#include "task/dist/session_impl.hpp"

namespace interlace::task::dist {

namespace {

std::mutex g_registry_mu;
std::map<std::string, DeviceFunction>& registry() {
  static auto* r = new std::map<std::string, DeviceFunction>;
  return *r;
}

int host_from_env(int size) {
  const char* v = std::getenv("INTERLACE_TASK_HOST");
  if (!v || !*v) return 0;
  char* end = nullptr;
  long h = std::strtol(v, &end, 10);
  if (*end || h < 0 || h >= size)
    throw_error(Errc::invalid_argument, std::string("INTERLACE_TASK_HOST='") + v +
                                            "' is not a world rank (0.." +
                                            std::to_string(size - 1) + ")");
  return static_cast<int>(h);
}

}  // namespace

const char* clause_name(ClauseKind k) noexcept {
  switch (k) {
    case ClauseKind::broadcast: return "broadcast";
    case ClauseKind::scatter: return "scatter";
    case ClauseKind::gather: return "gather";
    case ClauseKind::send: return "send";
    case ClauseKind::receive: return "receive";
    case ClauseKind::mapped: return "mapped";
  }
  return "invalid";
}

void register_function(const std::string& name, DeviceFunction fn) {
  if (name.empty()) throw_error(Errc::invalid_argument, "a device function needs a name");
  if (!fn) throw_error(Errc::invalid_argument, "device function '" + name + "' is empty");
  std::lock_guard g(g_registry_mu);
  registry()[name] = std::move(fn);
}

DeviceFunction find_function(const std::string& name) {
  std::lock_guard g(g_registry_mu);
  auto it = registry().find(name);
  if (it == registry().end())
    throw_error(Errc::invalid_argument, "no device function named '" + name +
                                            "' is registered on this rank");
  return it->second;
}

uint64_t local_size(const Clause& c, int ndev, int dev) {
  switch (c.kind) {
    case ClauseKind::scatter:
    case ClauseKind::gather: return c.size / static_cast<uint64_t>(ndev);
    case ClauseKind::send:
    case ClauseKind::receive: return c.device == dev ? c.size : 0;
    default: return c.size;
  }
}

Session::Session(Runtime& rt, Executor* exec, int host_rank) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.rt = &rt;
  s.exec = exec ? exec : &process_executor();
  Communicator world = rt.world();
  // Task workers send and receive at the same time: the engine must be thread-safe.
  rt.context().start_progress_thread();
  s.me = world.rank();
  if (host_rank >= world.size())
    throw_error(Errc::invalid_rank, "host rank " + std::to_string(host_rank) +
                                        " is not a world rank (world size " +
                                        std::to_string(world.size()) + ")");
  s.host = host_rank >= 0 ? host_rank : host_from_env(world.size());
  s.ndev = world.size() - 1;
  s.dev = s.me == s.host ? -1 : (s.me < s.host ? s.me : s.me - 1);
  s.ctl = world.dup();
  s.devs = world.split(s.me == s.host ? UNDEFINED : 0, s.me);
}

Session::~Session() {
  if (!impl_ || !is_host()) return;
  try {
    finish();
  } catch (const std::exception&) {
    // A lost device cannot be released; the destructor must not throw.
  }
}

bool Session::is_host() const noexcept { return impl_->dev < 0; }
int Session::host_rank() const noexcept { return impl_->host; }
int Session::num_devices() const noexcept { return impl_->ndev; }
int Session::device_index() const noexcept { return impl_->dev; }
Communicator Session::devices() const { return impl_->devs; }
Executor& Session::executor() const noexcept { return *impl_->exec; }

int Session::device_world_rank(int device) const {
  impl_->check_device(device, "device_world_rank");
  return impl_->world_of(device);
}

void Session::Impl::check_device(int device, const char* what) const {
  if (device < 0 || device >= ndev)
    throw_error(Errc::invalid_rank, std::string(what) + ": device " + std::to_string(device) +
                                        " does not exist (" + std::to_string(ndev) +
                                        " devices: 0.." + std::to_string(ndev - 1) + ")");
}

void Session::Impl::check_host(const std::string& what) const {
  if (dev >= 0)
    throw_error(Errc::unsupported,
                what + " on a device: world rank " + std::to_string(me) + " is device " +
                    std::to_string(dev) +
                    "; distributed tasks and their copies are spawned from the host only "
                    "(world rank " + std::to_string(host) + ")");
  if (finished) throw_error(Errc::finalized, what + ": the session has finished");
}

uint64_t Session::Impl::check_mapped(const void* address, uint64_t offset, uint64_t size,
                                     const char* what) const {
  auto it = host_maps.find(reinterpret_cast<uint64_t>(address));
  if (it == host_maps.end())
    throw_error(Errc::invalid_argument, std::string(what) + ": address " + hex(address) +
                                            " is not mapped (nanos6_dist_map_address first)");
  if (offset > it->second || size > it->second - offset)
    throw_error(Errc::invalid_argument,
                std::string(what) + ": device range [" + std::to_string(offset) + ", " +
                    std::to_string(offset) + "+" + std::to_string(size) +
                    ") is outside the mapped " + std::to_string(it->second) + " bytes");
  return it->second;
}

namespace {
[[noreturn]] void rethrow_for_device(const Error& e, int device, int world) {
  // Keeps the code and its prefix; only the device is added.
  std::string msg = "device " + std::to_string(device) + " (world rank " +
                    std::to_string(world) + "): " + e.what();
  if (e.code() == Errc::lost_peer) throw LostPeerError(e.code(), msg);
  throw Error(e.code(), msg);
}
}  // namespace

void Session::Impl::send_cmd(int device, const std::vector<std::byte>& cmd) {
  try {
    ctl.send(cmd.data(), cmd.size(), Datatype::bytes, world_of(device), kCmd);
  } catch (const Error& e) {
    rethrow_for_device(e, device, world_of(device));
  }
}

void Session::Impl::send_data(int device, const void* p, uint64_t n) {
  try {
    ctl.send(p, n, Datatype::bytes, world_of(device), kData);
  } catch (const Error& e) {
    rethrow_for_device(e, device, world_of(device));
  }
}

std::string Session::Impl::recv_status(int device) {
  try {
    Status st = ctl.probe(world_of(device), kDone);
    std::vector<char> msg(st.bytes);
    ctl.recv(msg.data(), msg.size(), Datatype::bytes, world_of(device), kDone);
    if (msg.empty()) return "distributed-task protocol: empty status";
    if (msg[0] == 1) return "";
    return std::string(msg.begin() + 1, msg.end());
  } catch (const Error& e) {
    rethrow_for_device(e, device, world_of(device));
  }
}

void Session::Impl::recv_data(int device, void* p, uint64_t n) {
  try {
    ctl.recv(p, n, Datatype::bytes, world_of(device), kBack);
  } catch (const Error& e) {
    rethrow_for_device(e, device, world_of(device));
  }
}

void Session::finish() {
  Impl& s = *impl_;
  if (!is_host() || s.finished) return;
  s.exec->taskwait();
  std::lock_guard g(s.lock);
  s.finished = true;
  Writer w;
  w.put(Op::finish);
  std::string first;
  for (int d = 0; d < s.ndev; ++d) {
    try {
      s.send_cmd(d, w.out);
    } catch (const Error& e) {
      if (first.empty()) first = e.what();
    }
  }
  if (!first.empty()) throw_error(Errc::lost_peer, "finish: " + first);
}

}  // namespace interlace::task::dist
