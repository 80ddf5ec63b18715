// INTERLACE_* environment parsing. Every bad value is an invalid_argument error
// that names the variable and repeats the value, so a typo in a job script is
// obvious from the message alone.
#include "interlace/core/config.hpp"
#include "interlace/core/host_cpus.hpp"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <vector>

#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"

namespace interlace {
namespace {

// Unset and empty are the same: `INTERLACE_X= prog` must not be an error.
const char* env_value(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

[[noreturn]] void bad(const char* var, const std::string& value, const std::string& expected) {
  throw_error(Errc::invalid_argument,
              std::string(var) + "='" + value + "' is invalid: expected " + expected);
}

bool parse_bool(const char* var, const std::string& v) {
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  bad(var, v, "one of 1, 0, true, false, yes, no, on, off");
}

int parse_nonneg_int(const char* var, const std::string& v) {
  errno = 0;
  char* end = nullptr;
  long x = std::strtol(v.c_str(), &end, 10);
  if (end == v.c_str() || *end != '\0' || errno == ERANGE || x < 0 ||
      x > std::numeric_limits<int>::max())
    bad(var, v, "a non-negative integer");
  return static_cast<int>(x);
}

// Seconds, fractional allowed. allow_zero distinguishes "0 = forever" settings.
double parse_seconds(const char* var, const std::string& v, bool allow_zero) {
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0' || !std::isfinite(x) || x < 0 || (!allow_zero && x == 0))
    bad(var, v, allow_zero ? "a number of seconds >= 0" : "a number of seconds > 0");
  return x;
}

std::string fmt_double(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

void check_rule(const std::string& rule) {
  auto bad_rule = [&](const std::string& why) {
    throw_error(Errc::invalid_argument, "INTERLACE_COLL: rule '" + rule + "': " + why +
                                            " (syntax: collective:[lo-hi:][nlo-nhi:]@algorithm)");
  };
  std::vector<std::string> f;
  size_t start = 0;
  for (size_t i = 0; i <= rule.size(); ++i)
    if (i == rule.size() || rule[i] == ':') {
      f.push_back(rule.substr(start, i - start));
      start = i + 1;
    }
  if (f.size() < 2 || f.size() > 4) bad_rule("expected 2 to 4 ':'-separated fields");
  auto is_name = [](const std::string& s) {
    if (s.empty()) return false;
    for (char ch : s)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' && ch != '.') return false;
    return true;
  };
  if (!is_name(f[0])) bad_rule("'" + f[0] + "' is not a collective name");
  if (f.back().size() < 2 || f.back()[0] != '@' || !is_name(f.back().substr(1)))
    bad_rule("the last field must be @algorithm");
  for (size_t i = 1; i + 1 < f.size(); ++i) {
    const auto dash = f[i].find('-');
    if (dash == std::string::npos) bad_rule("range '" + f[i] + "' lacks '-'");
    const std::string lo = f[i].substr(0, dash), hi = f[i].substr(dash + 1);
    if (i == 1) {  // byte range; hi may be "inf"
      try {
        parse_size(lo, "INTERLACE_COLL size");
        if (hi != "inf") parse_size(hi, "INTERLACE_COLL size");
      } catch (const Error&) {
        bad_rule("bad size range '" + f[i] + "'");
      }
      continue;
    }
    // The communicator-size range: integers, hi may be "inf".
    auto is_int = [](const std::string& s) {
      if (s.empty() || s.size() > 9) return false;
      for (char ch : s)
        if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
      return true;
    };
    if (!is_int(lo) || (hi != "inf" && !is_int(hi))) bad_rule("bad communicator-size range '" + f[i] + "'");
  }
}

}  // namespace

void check_coll_rules_syntax(const std::string& text) {
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '#') {
      if (i > start) check_rule(text.substr(start, i - start));
      start = i + 1;
    }
}

size_t parse_size(const std::string& text, const char* what) {
  auto fail = [&]() -> size_t {
    throw_error(Errc::invalid_argument,
                std::string(what) + "='" + text +
                    "' is not a size: expected digits with an optional k, m or g suffix "
                    "(powers of 1024), e.g. 64k");
  };
  size_t i = 0;
  unsigned long long value = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    unsigned digit = static_cast<unsigned>(text[i] - '0');
    if (value > (std::numeric_limits<unsigned long long>::max() - digit) / 10) return fail();
    value = value * 10 + digit;
    ++i;
  }
  if (i == 0) return fail();
  std::string suffix = text.substr(i);
  for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  unsigned shift = 0;
  // "k", "kb" and "kib" all mean 1024: users type all three.
  if (suffix.empty() || suffix == "b") shift = 0;
  else if (suffix == "k" || suffix == "kb" || suffix == "kib") shift = 10;
  else if (suffix == "m" || suffix == "mb" || suffix == "mib") shift = 20;
  else if (suffix == "g" || suffix == "gb" || suffix == "gib") shift = 30;
  else return fail();
  if (shift && value > (std::numeric_limits<size_t>::max() >> shift)) return fail();
  if (value > std::numeric_limits<size_t>::max()) return fail();
  return static_cast<size_t>(value) << shift;
}

int task_workers_from_env() {
  const char* v = env_value("INTERLACE_TASK_WORKERS");
  if (!v) return 0;
  const int n = parse_nonneg_int("INTERLACE_TASK_WORKERS", v);
  if (n < 1 || n > kMaxTaskWorkers)
    bad("INTERLACE_TASK_WORKERS", v, "an integer from 1 to " + std::to_string(kMaxTaskWorkers));
  return n;
}

int usable_cpus() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return 1;
}

std::string log_level_from_env() {
  const char* v = env_value("INTERLACE_LOG");
  if (!v) return "";
  log::Level l;
  if (!log::parse_level(v, &l)) bad("INTERLACE_LOG", v, "error, warn, info, debug or trace");
  return v;
}

// "3,5,7": distinct non-negative ranks; empty means none.
std::vector<int> parse_rank_list(const char* var, const std::string& v) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= v.size() && !v.empty()) {
    size_t comma = v.find(',', pos);
    std::string item = v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const bool digits = !item.empty() && item.size() <= 9 &&
                        item.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) bad(var, v, "comma-separated non-negative ranks ('" + item + "' is not one)");
    const int r = std::stoi(item);
    if (std::find(out.begin(), out.end(), r) != out.end())
      bad(var, v, "distinct ranks (" + item + " is listed twice)");
    out.push_back(r);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

Config Config::from_env() {
  Config c;
  if (const char* v = env_value("INTERLACE_FABRIC")) {
    std::string s = v;
    // The names live in the fabric registry, above core: here only their form is
    // checked; the engine (and `interlace info`) check the name itself.
    // HOST+NET names two tiers (docs/fabrics.md): one '+' between two names.
    const size_t plus = s.find('+');
    const bool word = !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_+") == std::string::npos &&
                      (plus == std::string::npos ||
                       (plus > 0 && plus + 1 < s.size() && s.find('+', plus + 1) == std::string::npos));
    if (!word)
      bad("INTERLACE_FABRIC", s, "auto, a fabric name (lower-case letters, digits, _) or HOST+NET such as shm+tcp");
    c.fabric = s;
  }
  if (const char* v = env_value("INTERLACE_EAGER_LIMIT"))
    c.eager_limit = parse_size(v, "INTERLACE_EAGER_LIMIT");
  if (const char* v = env_value("INTERLACE_EAGER_CREDIT")) {
    c.eager_credit = parse_size(v, "INTERLACE_EAGER_CREDIT");
    // The 64-bit credit counters (and the wire's aux field) must not overflow.
    if (c.eager_credit > (size_t{1} << 48)) bad("INTERLACE_EAGER_CREDIT", v, "a size of at most 2^48 bytes");
  }
  if (const char* v = env_value("INTERLACE_SHM_RING_BYTES")) {
    c.shm_ring_bytes = parse_size(v, "INTERLACE_SHM_RING_BYTES");
    // A ring smaller than a page cannot hold a frame header plus a useful payload.
    if (c.shm_ring_bytes < 4096) bad("INTERLACE_SHM_RING_BYTES", v, "a size of at least 4k");
  }
  if (const char* v = env_value("INTERLACE_SHM_SINGLE_COPY"))
    c.shm_single_copy = parse_bool("INTERLACE_SHM_SINGLE_COPY", v);
  if (const char* v = env_value("INTERLACE_SPIN"))
    c.spin_before_block = parse_nonneg_int("INTERLACE_SPIN", v);
  if (const char* v = env_value("INTERLACE_YIELD"))
    c.yield_before_block = parse_nonneg_int("INTERLACE_YIELD", v);
  if (const char* v = env_value("INTERLACE_PROGRESS")) {
    std::string s = v;
    if (s == "auto") c.progress = ProgressMode::auto_;
    else if (s == "inline") c.progress = ProgressMode::inline_only;
    else if (s == "thread") c.progress = ProgressMode::thread;
    else bad("INTERLACE_PROGRESS", s, "auto, inline or thread");
  }
  if (const char* v = env_value("INTERLACE_PEER_CHECK"))
    c.peer_check_s = parse_seconds("INTERLACE_PEER_CHECK", v, false);
  if (const char* v = env_value("INTERLACE_CONNECT_TIMEOUT"))
    c.connect_timeout_s = parse_seconds("INTERLACE_CONNECT_TIMEOUT", v, false);
  if (const char* v = env_value("INTERLACE_TIMEOUT"))
    c.op_timeout_s = parse_seconds("INTERLACE_TIMEOUT", v, true);
  if (const char* v = env_value("INTERLACE_TCP_ADDR")) c.tcp_interface = v;
  if (std::string v = log_level_from_env(); !v.empty()) c.log_level = v;
  if (const char* v = env_value("INTERLACE_COLL")) {
    check_coll_rules_syntax(v);
    c.coll_rules = v;
  }
  if (const char* v = env_value("INTERLACE_COLL_SEGMENT")) {
    c.coll_segment = parse_size(v, "INTERLACE_COLL_SEGMENT");
    if (c.coll_segment < kMinCollSegment) bad("INTERLACE_COLL_SEGMENT", v, "a size of at least 1k");
  }
  if (const char* v = env_value("INTERLACE_COLL_CHECK")) c.coll_check = parse_bool("INTERLACE_COLL_CHECK", v);
  c.task_workers = task_workers_from_env();
  if (const char* v = env_value("INTERLACE_ZRLMPI_RANKS")) c.zrlmpi_ranks = parse_rank_list("INTERLACE_ZRLMPI_RANKS", v);
  if (const char* v = env_value("INTERLACE_ROUTES")) c.routes_dir = v;
  if (const char* v = env_value("INTERLACE_ROUTE_CREDITS")) {
    c.route_credits = parse_nonneg_int("INTERLACE_ROUTE_CREDITS", v);
    if (c.route_credits < 1 || c.route_credits > 65536)
      bad("INTERLACE_ROUTE_CREDITS", v, "an integer from 1 to 65536");
  }
  if (const char* v = env_value("INTERLACE_ROUTE_WATCHDOG"))
    c.route_watchdog_s = parse_seconds("INTERLACE_ROUTE_WATCHDOG", v, false);
  return c;
}

std::map<std::string, std::string> Config::describe() const {
  std::string zrl;
  for (int r : zrlmpi_ranks) zrl += (zrl.empty() ? "" : ",") + std::to_string(r);
  return {
      {"INTERLACE_FABRIC", fabric},
      {"INTERLACE_EAGER_LIMIT", std::to_string(eager_limit)},
      {"INTERLACE_EAGER_CREDIT", std::to_string(eager_credit)},
      {"INTERLACE_SHM_RING_BYTES", std::to_string(shm_ring_bytes)},
      {"INTERLACE_SHM_SINGLE_COPY", shm_single_copy ? "1" : "0"},
      {"INTERLACE_SPIN", spin_before_block < 0 ? "auto" : std::to_string(spin_before_block)},
      {"INTERLACE_YIELD", yield_before_block < 0 ? "auto" : std::to_string(yield_before_block)},
      {"INTERLACE_PROGRESS", progress == ProgressMode::thread ? "thread"
                             : progress == ProgressMode::inline_only ? "inline" : "auto"},
      {"INTERLACE_PEER_CHECK", fmt_double(peer_check_s)},
      {"INTERLACE_CONNECT_TIMEOUT", fmt_double(connect_timeout_s)},
      {"INTERLACE_TIMEOUT", fmt_double(op_timeout_s)},
      {"INTERLACE_TCP_ADDR", tcp_interface.empty() ? "(hostname's address)" : tcp_interface},
      {"INTERLACE_LOG", log_level},
      {"INTERLACE_COLL", coll_rules.empty() ? "(built-in rules)" : coll_rules},
      {"INTERLACE_COLL_SEGMENT", std::to_string(coll_segment)},
      {"INTERLACE_COLL_CHECK", coll_check ? "1" : "0"},
      {"INTERLACE_TASK_WORKERS", task_workers > 0 ? std::to_string(task_workers)
                                 : "auto (" + std::to_string(usable_cpus()) + ")"},
      {"INTERLACE_ZRLMPI_RANKS", zrl.empty() ? "(none)" : zrl},
      {"INTERLACE_ROUTES", routes_dir.empty() ? "(not routed)" : routes_dir},
      {"INTERLACE_ROUTE_CREDITS", std::to_string(route_credits)},
      {"INTERLACE_ROUTE_WATCHDOG", fmt_double(route_watchdog_s)},
  };
}

const std::map<std::string, std::string>& Config::launcher_variables() {
  // Kept in step with bootstrap::Environment::detect and docs/configuration.md.
  static const std::map<std::string, std::string> vars = {
      {"INTERLACE_RANK", "this process's rank"},
      {"INTERLACE_SIZE", "number of ranks"},
      {"INTERLACE_LOCAL_RANK", "rank among the ranks of this host"},
      {"INTERLACE_LOCAL_SIZE", "number of ranks on this host"},
      {"INTERLACE_JOB_ID", "job id (names files and shm segments)"},
      {"INTERLACE_SECRET",
       "job secret: random per job from interlace run; unset: job:<job id> (keeps jobs apart, "
       "not a secret), empty for a singleton"},
      {"INTERLACE_STORE", "rendezvous store URL"},
      {"INTERLACE_HOST", "name of this rank's host group"},
      {"INTERLACE_BOOTSTRAP",
       "auto (default), pmix, pmi2 or env: which launcher interface gives rank, size and "
       "locality (docs/bootstrap.md)"},
      {"INTERLACE_TASK_HOST",
       "world rank of the distributed-task host; the other ranks are devices (default 0)"},
      {"INTERLACE_PARENT",
       "set by MPI_Comm_spawn for its children: <connection id>,<number of parents>"},
      {"INTERLACE_MPI_WIN_DIRECT",
       "0: MPI_Win_allocate windows use active messages even on one host (default 1)"},
      {"INTERLACE_BIND_TO", "what interlace run bound this rank to: none, hwthread, core, socket or numa"},
      {"INTERLACE_BIND_CPUS", "the CPUs interlace run bound this rank to (e.g. 0-1,4); empty: not bound"},
      {"INTERLACE_HOST_CPUS",
       "the CPUs (e.g. 0-3) the job's ranks share on this host; the wait policy judges "
       "crowding by their number (default: this rank's affinity mask)"},
  };
  return vars;
}

std::vector<int> host_cpus_from_env() {
  const char* v = std::getenv("INTERLACE_HOST_CPUS");
  std::vector<int> cpus;
  if (!v || !*v) return cpus;
  auto bad = [v] {
    throw_error(Errc::invalid_argument, std::string("INTERLACE_HOST_CPUS=") + v +
                                            ": want a list of CPUs like 0-3,8");
  };
  auto number = [&](const char*& p) {
    if (*p < '0' || *p > '9') bad();
    long n = 0;
    while (*p >= '0' && *p <= '9' && n < CPU_SETSIZE) n = n * 10 + (*p++ - '0');
    if (n >= CPU_SETSIZE) bad();  // sched_setaffinity could not take it
    return static_cast<int>(n);
  };
  for (const char* p = v;;) {
    const int lo = number(p);
    const int hi = *p == '-' ? number(++p) : lo;
    if (hi < lo) bad();
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    if (*p == '\0') break;
    if (*p++ != ',') bad();
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

}  // namespace interlace
