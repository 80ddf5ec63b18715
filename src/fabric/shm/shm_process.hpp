// Which process is a peer: a pid alone can be reused after the peer exits, so a
// peer is named by its pid and its start time (field 22 of /proc/<pid>/stat, clock
// ticks since boot), which together name one process for the machine's uptime.
#pragma once
#include <sys/types.h>

#include <cstdint>

namespace interlace::fabric::shm {

// 0 where /proc cannot tell (not mounted, or the process is gone).
uint64_t process_start_time(pid_t pid) noexcept;

// The process has exited (a zombie counts), or `pid` now names another process
// (its start time differs from `start`; a `start` of 0 skips that check).
bool process_gone(pid_t pid, uint64_t start) noexcept;

}  // namespace interlace::fabric::shm
