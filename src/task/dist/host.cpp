// The host's side of distributed tasks: spawn (a host task per distributed task) and
// the blocking nanos6-style copies. Every exchange holds the session lock, so commands
// of concurrent host tasks never interleave on the wire.
#include <cstdint>
#include <memory>

#include "interlace/core/blocking.hpp"
#include "task/dist/session_impl.hpp"

namespace interlace::task::dist {

DeviceFunction find_function(const std::string& name);

namespace {

const std::byte* at(const void* base, uint64_t off) {
  return static_cast<const std::byte*>(base) + off;
}

// Waiting for another host task's exchange is a wait like any other: announce it so
// the executor lends this worker's core.
std::unique_lock<std::mutex> take(std::mutex& m) {
  std::unique_lock<std::mutex> l(m, std::try_to_lock);
  if (!l.owns_lock()) {
    blocking::Scope wait;
    l.lock();
  }
  return l;
}

void check_clause(const Clause& c, size_t i, int ndev) {
  std::string where = "clause " + std::to_string(i) + " (" + clause_name(c.kind) + ")";
  if (static_cast<uint8_t>(c.kind) > static_cast<uint8_t>(ClauseKind::mapped))
    throw_error(Errc::invalid_argument,
                "clause " + std::to_string(i) + ": unknown kind " +
                    std::to_string(static_cast<int>(c.kind)));
  if (c.size > static_cast<uint64_t>(PTRDIFF_MAX))
    throw_error(Errc::invalid_argument,
                where + ": region of negative length (size " + std::to_string(c.size) +
                    ", as signed " + std::to_string(static_cast<int64_t>(c.size)) + ")");
  if (!c.address && c.size)
    throw_error(Errc::invalid_argument, where + ": null address with size " +
                                            std::to_string(c.size));
  if ((c.kind == ClauseKind::scatter || c.kind == ClauseKind::gather) &&
      c.size % static_cast<uint64_t>(ndev))
    throw_error(Errc::invalid_argument,
                where + ": size " + std::to_string(c.size) +
                    " bytes does not divide into equal chunks for " + std::to_string(ndev) +
                    " devices");
  if ((c.kind == ClauseKind::send || c.kind == ClauseKind::receive) &&
      (c.device < 0 || c.device >= ndev))
    throw_error(Errc::invalid_rank, where + ": device " + std::to_string(c.device) +
                                        " does not exist (" + std::to_string(ndev) +
                                        " devices: 0.." + std::to_string(ndev - 1) + ")");
}

Access access_of(ClauseKind k) {
  switch (k) {
    case ClauseKind::gather:
    case ClauseKind::receive: return Access::out;
    case ClauseKind::mapped: return Access::inout;
    default: return Access::in;
  }
}

}  // namespace

void Session::spawn(const std::string& name, std::span<const Clause> clauses,
                    std::span<const std::byte> args) {
  Impl& s = *impl_;
  s.check_host("spawn of distributed task '" + name + "'");
  if (s.ndev == 0)
    throw_error(Errc::invalid_argument, "spawn of '" + name +
                                            "': the job has no devices (world size 1)");
  find_function(name);  // registered on every rank: an unknown name fails here already
  std::vector<Clause> cl(clauses.begin(), clauses.end());
  std::vector<Dep> deps;
  for (size_t i = 0; i < cl.size(); ++i) {
    check_clause(cl[i], i, s.ndev);
    if (cl[i].kind == ClauseKind::mapped) {
      std::lock_guard g(s.lock);
      s.check_mapped(cl[i].address, 0, cl[i].size, "mapped clause");
    }
    if (cl[i].size) deps.push_back({cl[i].address, cl[i].size, access_of(cl[i].kind)});
  }
  Writer w;
  w.put(Op::run);
  w.put_bytes(name.data(), name.size());
  w.put<uint32_t>(static_cast<uint32_t>(cl.size()));
  for (const Clause& c : cl) {
    w.put(c.kind);
    w.put<uint64_t>(c.size);
    w.put<int32_t>(c.device);
    w.put<uint64_t>(reinterpret_cast<uint64_t>(c.address));
  }
  w.put_bytes(args.data(), args.size());
  auto cmd = std::make_shared<std::vector<std::byte>>(std::move(w.out));
  Impl* sp = &s;
  s.exec->spawn(deps, [sp, cmd, cl = std::move(cl), name] {
    Impl& s = *sp;
    auto guard = take(s.lock);
    // Every device is driven to the end of this exchange even when one fails, so the
    // streams of the others stay in step for the next command.
    struct Failure { Errc code = Errc::ok; std::string text; };
    std::vector<Failure> errors(s.ndev);
    for (int d = 0; d < s.ndev; ++d) {
      try {
        s.send_cmd(d, *cmd);
        for (const Clause& c : cl) {
          uint64_t n = local_size(c, s.ndev, d);
          if (c.kind == ClauseKind::broadcast && n) s.send_data(d, c.address, n);
          if (c.kind == ClauseKind::scatter && n) s.send_data(d, at(c.address, n * d), n);
          if (c.kind == ClauseKind::send && n) s.send_data(d, c.address, n);
        }
      } catch (const Error& e) {
        errors[d] = {e.code(), e.what()};
      }
    }
    for (int d = 0; d < s.ndev; ++d) {
      if (errors[d].code != Errc::ok) continue;
      try {
        std::string err = s.recv_status(d);
        if (!err.empty()) {
          // The device's own error kind is part of its text.
          errors[d] = {Errc::internal, "device " + std::to_string(d) + " (world rank " +
                                           std::to_string(s.world_of(d)) + ") failed in '" +
                                           name + "': " + err};
          continue;
        }
        for (const Clause& c : cl) {
          uint64_t n = local_size(c, s.ndev, d);
          auto* base = static_cast<std::byte*>(c.address);
          if (c.kind == ClauseKind::gather && n) s.recv_data(d, base + n * d, n);
          if (c.kind == ClauseKind::receive && n) s.recv_data(d, base, n);
        }
      } catch (const Error& e) {
        errors[d] = {e.code(), e.what()};
      }
    }
    int failed = 0;
    const Failure* first = nullptr;
    for (const Failure& f : errors)
      if (f.code != Errc::ok && !failed++) first = &f;
    if (failed)
      throw_error(first->code, "distributed task '" + name + "': " + first->text +
                                   (failed > 1 ? " (and " + std::to_string(failed - 1) +
                                                     " more devices failed)"
                                               : ""));
  }, SpawnOptions{0, "distributed task"});
}

void Session::map(const void* address, uint64_t size) {
  Impl& s = *impl_;
  s.check_host("nanos6_dist_map_address");
  if (!address)
    throw_error(Errc::invalid_argument, "nanos6_dist_map_address: null address");
  if (size > static_cast<uint64_t>(PTRDIFF_MAX))
    throw_error(Errc::invalid_argument, "nanos6_dist_map_address: size " +
                                            std::to_string(size) + " is negative as signed");
  auto g = take(s.lock);
  auto key = reinterpret_cast<uint64_t>(address);
  if (s.host_maps.count(key))
    throw_error(Errc::invalid_argument, "nanos6_dist_map_address: address " +
                                            hex(address) + " is already mapped");
  Writer w;
  w.put(Op::map);
  w.put<uint64_t>(key);
  w.put<uint64_t>(size);
  for (int d = 0; d < s.ndev; ++d) s.send_cmd(d, w.out);
  std::string first;
  for (int d = 0; d < s.ndev; ++d) {
    std::string e = s.recv_status(d);
    if (!e.empty() && first.empty()) first = "device " + std::to_string(d) + ": " + e;
  }
  if (!first.empty()) throw_error(Errc::system, "nanos6_dist_map_address: " + first);
  s.host_maps[key] = size;
}

void Session::unmap(const void* address) {
  Impl& s = *impl_;
  s.check_host("nanos6_dist_unmap_address");
  auto g = take(s.lock);
  s.check_mapped(address, 0, 0, "nanos6_dist_unmap_address");
  Writer w;
  w.put(Op::unmap);
  w.put<uint64_t>(reinterpret_cast<uint64_t>(address));
  for (int d = 0; d < s.ndev; ++d) s.send_cmd(d, w.out);
  for (int d = 0; d < s.ndev; ++d) s.recv_status(d);
  s.host_maps.erase(reinterpret_cast<uint64_t>(address));
}

// A copy command names the mapped buffer (by the host address), the device-side
// offset and the length; the data follows (copy_to) or comes back (copy_from).
static void send_copy_cmd(Session::Impl& s, Op op, int device, const void* address,
                          uint64_t device_offset, uint64_t size) {
  Writer w;
  w.put(op);
  w.put<uint64_t>(reinterpret_cast<uint64_t>(address));
  w.put<uint64_t>(device_offset);
  w.put<uint64_t>(size);
  s.send_cmd(device, w.out);
}

void Session::copy_to(int device, const void* address, uint64_t size, uint64_t src_offset,
                      uint64_t dst_offset) {
  Impl& s = *impl_;
  s.check_host("nanos6_dist_memcpy_to_device");
  s.check_device(device, "nanos6_dist_memcpy_to_device");
  auto g = take(s.lock);
  s.check_mapped(address, dst_offset, size, "nanos6_dist_memcpy_to_device");
  send_copy_cmd(s, Op::copy_to, device, address, dst_offset, size);
  s.send_data(device, at(address, src_offset), size);
  std::string e = s.recv_status(device);
  if (!e.empty()) throw_error(Errc::internal, "nanos6_dist_memcpy_to_device: " + e);
}

void Session::copy_to_all(const void* address, uint64_t size, uint64_t src_offset,
                          uint64_t dst_offset) {
  for (int d = 0; d < impl_->ndev; ++d) copy_to(d, address, size, src_offset, dst_offset);
}

void Session::copy_from(int device, void* address, uint64_t size, uint64_t src_offset,
                        uint64_t dst_offset) {
  Impl& s = *impl_;
  s.check_host("nanos6_dist_memcpy_from_device");
  s.check_device(device, "nanos6_dist_memcpy_from_device");
  auto g = take(s.lock);
  s.check_mapped(address, src_offset, size, "nanos6_dist_memcpy_from_device");
  send_copy_cmd(s, Op::copy_from, device, address, src_offset, size);
  std::string e = s.recv_status(device);
  if (!e.empty()) throw_error(Errc::internal, "nanos6_dist_memcpy_from_device: " + e);
  s.recv_data(device, static_cast<std::byte*>(address) + dst_offset, size);
}

}  // namespace interlace::task::dist
