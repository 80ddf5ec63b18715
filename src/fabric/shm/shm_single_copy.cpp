// Single-copy reads with process_vm_readv (Linux cross-memory attach). It needs
// ptrace access to the peer, which containers (seccomp), Yama or differing
// credentials may refuse, so it is probed rather than assumed; when it does not
// work the engine copies through frames instead.
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fabric/shm/shm_fabric.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::shm {

namespace {
// One call moves at most MAX_RW_COUNT (just under 2 GiB); stay well below it.
constexpr size_t kChunk = size_t{1} << 30;

// Reads all `len` bytes or returns the errno of the failure (EFAULT for a short
// read that made no progress, e.g. an unmapped remote page).
int read_all(pid_t pid, uint64_t remote, void* local, size_t len) {
  auto* dst = static_cast<char*>(local);
  while (len > 0) {
    const size_t n = std::min(len, kChunk);
    iovec l{dst, n};
    iovec r{reinterpret_cast<void*>(remote), n};
    const ssize_t got = process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (got == 0) return EFAULT;
    dst += got;
    remote += static_cast<uint64_t>(got);
    len -= static_cast<size_t>(got);
  }
  return 0;
}
int write_all(pid_t pid, uint64_t remote, const void* local, size_t len) {
  auto* src = static_cast<const char*>(local);
  while (len > 0) {
    const size_t n = std::min(len, kChunk);
    iovec l{const_cast<char*>(src), n};
    iovec r{reinterpret_cast<void*>(remote), n};
    const ssize_t put = process_vm_writev(pid, &l, 1, &r, 1, 0);
    if (put < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (put == 0) return EFAULT;
    src += put;
    remote += static_cast<uint64_t>(put);
    len -= static_cast<size_t>(put);
  }
  return 0;
}
}  // namespace

Errc ShmFabric::remote_write(int peer, uint64_t remote_addr, const void* local, size_t len) {
  if (!cma_available(peer)) return Errc::unsupported;
  if (len == 0) return Errc::ok;
  Peer& p = peers_[peer];
  if (p.pid == pid_) {
    std::memmove(reinterpret_cast<void*>(remote_addr), local, len);
    return Errc::ok;
  }
  const int err = write_all(p.pid, remote_addr, local, len);
  if (err == 0) return Errc::ok;
  if (err == ESRCH) {
    p.dead = true;
    return Errc::lost_peer;
  }
  if (err == EPERM || err == ENOSYS) return Errc::unsupported;
  IL_LOG(error, "shm: process_vm_writev of " << len << " bytes at 0x" << std::hex << remote_addr
                                             << std::dec << " into rank " << peer << ": "
                                             << std::strerror(err));
  return Errc::invalid_argument;
}

bool ShmFabric::probe_own_single_copy() noexcept {
  const uint64_t src = 0x5349'4e47'4c45'4350ull;
  uint64_t dst = 0;
  if (read_all(getpid(), reinterpret_cast<uint64_t>(&src), &dst, sizeof dst) != 0 || dst != src) {
    IL_LOG(info, "shm: process_vm_readv unavailable (" << std::strerror(errno)
                                                       << "); single copy disabled");
    return false;
  }
  return true;
}

bool ShmFabric::remote_read_available(int peer) const noexcept {
  return single_copy_ && cma_available(peer);
}

bool ShmFabric::cma_available(int peer) const noexcept {
  if (!cma_ || static_cast<unsigned>(peer) >= static_cast<unsigned>(size_)) return false;
  const Peer& p = peers_[peer];
  if (p.single_copy != 0) return p.single_copy > 0;
  if (p.pid == 0) return false;  // no ring yet, nothing to probe with; ask again later
  if (p.pid == pid_) {
    p.single_copy = 1;
    return true;
  }
  // Read a word whose value and address the peer published (its segment magic).
  uint64_t v = 0;
  const int err = read_all(p.pid, p.probe, &v, sizeof v);
  p.single_copy = (err == 0 && v == p.probe_value) ? 1 : -1;
  if (p.single_copy < 0)
    IL_LOG(info, "shm: process_vm_readv from rank " << peer << " (pid " << p.pid
                                                    << ") fails: " << std::strerror(err ? err : EIO));
  return p.single_copy > 0;
}

Errc ShmFabric::remote_read(int peer, uint64_t remote_addr, void* local, size_t len) {
  if (!cma_available(peer)) return Errc::unsupported;
  if (len == 0) return Errc::ok;
  Peer& p = peers_[peer];
  if (p.pid == pid_) {  // threads as ranks: the same address space
    std::memcpy(local, reinterpret_cast<const void*>(remote_addr), len);
    return Errc::ok;
  }
  const int err = read_all(p.pid, remote_addr, local, len);
  if (err == 0) return Errc::ok;
  if (err == ESRCH) {
    p.dead = true;
    return Errc::lost_peer;
  }
  if (err == EPERM || err == ENOSYS) {
    p.single_copy = -1;
    return Errc::unsupported;
  }
  IL_LOG(error, "shm: process_vm_readv of " << len << " bytes at 0x" << std::hex << remote_addr
                                            << std::dec << " from rank " << peer << ": "
                                            << std::strerror(err));
  return Errc::invalid_argument;
}

}  // namespace interlace::fabric::shm
