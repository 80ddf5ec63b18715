// Telling a departed peer from one that has not started yet.
//
// A missing control segment means either "not created yet" or "created and removed
// by a rank that finalized"; a segment whose owner is dead means either "a leftover
// of an earlier job with the same id" or "the peer crashed". Neither the segment name
// nor its content can tell these apart, so each rank also publishes a record in the
// job's store, "shm/<job>/<rank>" = "<pid> <start time>", right after it created its
// control segment. A record therefore says the segment existed in this job:
//   no record                       still starting: wait up to INTERLACE_CONNECT_TIMEOUT
//   record, process gone or reused  exited (finalized or crashed)
//   record, segment missing/closed  finalized, the process lives on
// The record is read only while something looks wrong, at most once per
// INTERLACE_PEER_CHECK per peer, so a healthy connection costs no store round.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "fabric/shm/shm_fabric.hpp"
#include "fabric/shm/shm_process.hpp"
#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/log.hpp"

namespace interlace::fabric::shm {

namespace {

struct ProcStat {
  bool found = false;
  char state = 0;
  uint64_t start = 0;
};

ProcStat read_proc_stat(pid_t pid) noexcept {
  ProcStat s;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return s;
  char buf[1024];
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return s;
  buf[n] = 0;
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const char* p = std::strrchr(buf, ')');
  if (!p || p[1] != ' ' || p[2] == 0) return s;
  s.found = true;
  s.state = p[2];
  const char* q = p + 2;
  for (int field = 3; field < 22 && *q; ++q)
    if (*q == ' ') ++field;
  if (*q) s.start = std::strtoull(q, nullptr, 10);
  return s;
}

std::string record_key(const std::string& job, int rank) {
  return "shm/" + job + "/" + std::to_string(rank);
}

}  // namespace

uint64_t process_start_time(pid_t pid) noexcept { return read_proc_stat(pid).start; }

bool process_gone(pid_t pid, uint64_t start) noexcept {
  const ProcStat s = read_proc_stat(pid);
  if (!s.found) return kill(pid, 0) != 0 && errno == ESRCH;  // no /proc: the pid is all we have
  if (s.state == 'Z' || s.state == 'X') return true;
  return start != 0 && s.start != 0 && s.start != start;
}

void ShmFabric::publish_record() {
  if (!store_ || size_ == 1) return;
  store_->set(record_key(job_, rank_),
              std::to_string(pid_) + " " + std::to_string(process_start_time(pid_)));
}

bool ShmFabric::read_record(int peer, pid_t* pid, uint64_t* start) {
  if (!store_) return false;
  const std::string key = record_key(job_, peer);
  std::string v;
  try {
    if (!store_->check(key)) return false;
    v = store_->get(key, cfg_.connect_timeout_s);
  } catch (const std::exception& e) {
    // A store that stopped answering leaves us where we were without records.
    IL_LOG(debug, "shm: cannot read " << key << " from the store: " << e.what());
    return false;
  }
  long long p = 0;
  unsigned long long s = 0;
  if (std::sscanf(v.c_str(), "%lld %llu", &p, &s) != 2 || p <= 0) {
    IL_LOG(error, "shm: store record " << key << " = '" << v << "' is not '<pid> <start time>'");
    return false;
  }
  *pid = static_cast<pid_t>(p);
  *start = s;
  return true;
}

bool ShmFabric::departed(int peer) {
  Peer& p = peers_[peer];
  if (p.dead) return true;
  const uint64_t now = now_ns();
  if (now < p.next_record_check_ns) return false;
  p.next_record_check_ns = now + peer_check_ns();
  pid_t pid = 0;
  uint64_t start = 0;
  if (!read_record(peer, &pid, &start)) return false;
  const bool gone = process_gone(pid, start);
  if (!gone) {
    // The record came after the segment, so a look now (not the one before reading
    // the record, which may predate both) tells whether it is still there.
    Mapping m;
    if (open_segment(ctl_name(job_, peer), ctl_segment_bytes(size_), &m) == OpenResult::ok) {
      const auto* c = reinterpret_cast<const CtlHeader*>(m.data());
      if (c->magic.load(std::memory_order_acquire) == kCtlMagic && c->pid == pid &&
          !c->closed.load(std::memory_order_acquire))
        return false;  // alive and open: the caller connects on its next look
    }
  }
  p.why = "rank " + std::to_string(peer) + " (pid " + std::to_string(pid) + ") " +
          (gone ? "exited" : "finalized (closed its shm fabric)");
  learn_pid(p, pid, 0, 0);
  p.dead = true;
  return true;
}

}  // namespace interlace::fabric::shm
