// Contract: all tunables come from INTERLACE_* environment variables, read once
// per Context. Unknown values are errors naming the variable and the value.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace interlace {

// auto_: inline, except that PGAS over a fabric without shared memory starts the
// progress thread, so one-sided operations complete while their target computes.
enum class ProgressMode { auto_, inline_only, thread };

struct Config {
  std::string fabric = "auto";        // INTERLACE_FABRIC: auto|shm|tcp
  size_t eager_limit = 64 * 1024;     // INTERLACE_EAGER_LIMIT (bytes; k/m suffixes)
  // INTERLACE_EAGER_CREDIT: eager bytes (plus a per-message charge) one sender may have
  // in flight to one receiver before that receiver matches them; beyond it sends go by
  // rendezvous, so a sender that outpaces its receiver cannot grow memory without bound.
  // 8 MiB: a window of 64 eager 64 KiB isends (the usual bandwidth test) fits even when
  // a quarter of the credit is still on its way back.
  size_t eager_credit = 8 * 1024 * 1024;
  size_t shm_ring_bytes = 256 * 1024; // INTERLACE_SHM_RING_BYTES per ordered pair
  // INTERLACE_SHM_SINGLE_COPY=1 lets rendezvous use process_vm_readv. Off by default:
  // on the measured machine the pipelined two-copy path through the ring was 2-3x faster
  // from 256 KiB to 64 MiB (docs/benchmarks.md).
  bool shm_single_copy = false;
  // INTERLACE_SPIN: polls before a waiting thread yields or blocks; INTERLACE_YIELD:
  // sched_yield rounds after that, before it blocks. -1 = auto (engine::Context): 2000
  // and 0 when every rank has a core, 0 and 1000 when the host's ranks outnumber its
  // cores, where spinning steals the core a peer needs and a futex wake-up costs more
  // than handing the core over (docs/configuration.md has the measurement).
  int spin_before_block = -1;
  int yield_before_block = -1;
  ProgressMode progress = ProgressMode::auto_;  // INTERLACE_PROGRESS=auto|inline|thread
  double peer_check_s = 0.2;          // INTERLACE_PEER_CHECK: liveness check period while blocked
  double connect_timeout_s = 30.0;    // INTERLACE_CONNECT_TIMEOUT
  double op_timeout_s = 0.0;          // INTERLACE_TIMEOUT: 0 = wait forever (lost peers still detected)
  std::string tcp_interface;          // INTERLACE_TCP_ADDR: address to listen on (default: hostname's)
  std::string log_level = "warn";     // INTERLACE_LOG: error|warn|info|debug|trace
  // Collectives (docs/collectives.md). INTERLACE_COLL: selection rules, syntax checked
  // here, collective and algorithm names checked by coll when a rank starts using it
  // (only coll knows them; coll::check_rules). INTERLACE_COLL_SEGMENT: pipelining unit,
  // at least 1 KiB (smaller segments made a 1 MiB bcast take minutes).
  std::string coll_rules;             // INTERLACE_COLL
  size_t coll_segment = 64 * 1024;    // INTERLACE_COLL_SEGMENT
  bool coll_check = false;            // INTERLACE_COLL_CHECK: ranks agree on each call first
  // INTERLACE_TASK_WORKERS: task executor workers (docs/tasks.md); 0 = the CPUs this
  // process may use (sched_getaffinity).
  int task_workers = 0;
  // INTERLACE_ZRLMPI_RANKS: world ranks that are ZRLMPI nodes started outside interlace
  // (docs/zrlmpi.md): start-up waits for none of them, only point-to-point messages of
  // 4-byte elements reach them. Syntax checked here; the engine checks rank < size.
  std::vector<int> zrlmpi_ranks;
  // Routed jobs (docs/routing.md). INTERLACE_ROUTES: a routes directory (routes.txt from
  // `interlace routes gen`); set, the engine puts the route layer between itself and a
  // fabric that does not route by itself. INTERLACE_ROUTE_CREDITS: frames each rank
  // buffers per incoming link and virtual channel (the finite buffers that make routing
  // deadlocks possible, and memory bounded). INTERLACE_ROUTE_WATCHDOG: seconds a frame
  // may wait for a channel before the routing-deadlock report.
  std::string routes_dir;
  int route_credits = 8;
  double route_watchdog_s = 10.0;

  // Reads the process environment; throws Error(invalid_argument) on bad values.
  static Config from_env();
  // Every INTERLACE_* variable with its effective value, for `interlace info`.
  std::map<std::string, std::string> describe() const;
  // Variables the launcher sets for each rank (read by bootstrap::Environment, not
  // tunables): name -> meaning, for `interlace info` and the documentation check.
  static const std::map<std::string, std::string>& launcher_variables();
};

// INTERLACE_LOG alone, for logging before any Context has read its Config: the
// value ("" when unset); throws Error(invalid_argument) like from_env when invalid.
std::string log_level_from_env();

// INTERLACE_TASK_WORKERS alone (0 when unset), for the task executor; throws
// Error(invalid_argument) naming the value unless it is an integer in 1..kMaxTaskWorkers.
int task_workers_from_env();
inline constexpr int kMaxTaskWorkers = 1024;
// CPUs this process may run on (sched_getaffinity; at least 1).
int usable_cpus() noexcept;

// Smallest INTERLACE_COLL_SEGMENT accepted.
inline constexpr size_t kMinCollSegment = 1024;

// Checks the syntax of INTERLACE_COLL rules (rule ('#' rule)*, rule =
// collective ':' [lo '-' hi ':'] [nlo '-' nhi ':'] '@' algorithm); throws
// Error(invalid_argument) naming the rule. Names are coll's to check.
void check_coll_rules_syntax(const std::string& text);

// Parses "64k", "4M", "1g", "123" into bytes; throws naming `what` on failure.
size_t parse_size(const std::string& text, const char* what);

}  // namespace interlace
