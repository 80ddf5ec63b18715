// Algorithm catalogue and selection. Rules map (collective, message bytes,
// communicator size) to an algorithm name; INTERLACE_COLL rules come before the
// built-in defaults, and the first rule that matches an existing algorithm wins.
//   INTERLACE_COLL = rule ('#' rule)*
//   rule           = collective ':' [lo '-' hi ':'] [nlo '-' nhi ':'] '@' algorithm
// lo/hi are byte sizes (k/m/g suffixes, hi may be "inf", hi exclusive); nlo-nhi is
// an inclusive communicator-size range.
#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "coll/algorithms/builtin.hpp"
#include "coll/registry.hpp"
#include "interlace/coll/coll.hpp"
#include "interlace/core/config.hpp"
#include "interlace/core/error.hpp"

namespace interlace::coll {

namespace {

constexpr size_t kInf = std::numeric_limits<size_t>::max();

struct Rule {
  Kind kind;
  size_t lo = 0, hi = kInf;
  int nlo = 1, nhi = std::numeric_limits<int>::max();
  std::string algorithm;
};

// Defaults: measured with bench/coll_bench --sweep on the development machine (2 vCPUs,
// shm) for 2 ranks (one per core) and 4 ranks (two per core); rules for larger
// communicators follow the usual latency/bandwidth trade-offs (docs/collectives.md).
constexpr int kMany = 1 << 30;
const Rule kDefaults[] = {
    {Kind::barrier, 0, kInf, 1, kMany, "dissemination"},
    {Kind::bcast, 0, kInf, 1, 4, "linear"},
    {Kind::bcast, 0, 256 * 1024, 5, kMany, "binomial"},
    {Kind::bcast, 256 * 1024, kInf, 5, kMany, "scatter_allgather"},
    {Kind::reduce, 0, 256 * 1024, 1, kMany, "binomial"},
    {Kind::reduce, 256 * 1024, kInf, 1, 4, "linear"},
    {Kind::reduce, 256 * 1024, kInf, 5, kMany, "ring"},
    {Kind::allreduce, 0, 16 * 1024, 1, kMany, "recursive_doubling"},
    {Kind::allreduce, 16 * 1024, kInf, 1, 2, "ring"},
    {Kind::allreduce, 16 * 1024, kInf, 3, kMany, "rabenseifner"},
    {Kind::gather, 0, 16 * 1024, 1, kMany, "binomial"},
    {Kind::gather, 16 * 1024, kInf, 1, kMany, "linear"},
    {Kind::scatter, 0, 16 * 1024, 1, kMany, "binomial"},
    {Kind::scatter, 16 * 1024, kInf, 1, kMany, "linear"},
    {Kind::gatherv, 0, kInf, 1, kMany, "linear"},
    {Kind::scatterv, 0, kInf, 1, kMany, "linear"},
    {Kind::allgather, 0, 32 * 1024, 1, 4, "ring"},
    {Kind::allgather, 32 * 1024, kInf, 1, 4, "recursive_doubling"},
    {Kind::allgather, 0, 4 * 1024, 5, kMany, "bruck"},
    {Kind::allgather, 4 * 1024, kInf, 5, kMany, "ring"},
    {Kind::allgatherv, 0, kInf, 1, kMany, "ring"},
    {Kind::alltoall, 0, kInf, 1, 8, "linear"},
    {Kind::alltoall, 0, 256, 9, kMany, "bruck"},
    {Kind::alltoall, 256, kInf, 9, kMany, "pairwise"},
    {Kind::alltoallv, 0, kInf, 1, kMany, "linear"},
    {Kind::reduce_scatter, 0, 64 * 1024, 1, kMany, "recursive_halving"},
    {Kind::reduce_scatter, 64 * 1024, kInf, 1, kMany, "ring"},
    {Kind::reduce_scatter_block, 0, 64 * 1024, 1, kMany, "recursive_halving"},
    {Kind::reduce_scatter_block, 64 * 1024, kInf, 1, kMany, "ring"},
    {Kind::scan, 0, kInf, 1, kMany, "linear"},
    {Kind::exscan, 0, kInf, 1, kMany, "linear"},
};

std::atomic<uint64_t> g_generation{1};

struct Registry {
  std::mutex m;
  std::vector<Algorithm> algos;
  std::vector<uint8_t> builtin;  // parallel to algos: 1 for the library's own builders
  std::string env_text;     // INTERLACE_COLL as last parsed
  std::vector<Rule> env_rules;
  Registry() {
    for (Algorithm& a : algo::builtin()) {
      // reduce_scatter_block is reduce_scatter with equal counts: same algorithms.
      if (a.kind == Kind::reduce_scatter) {
        Algorithm b = a;
        b.kind = Kind::reduce_scatter_block;
        algos.push_back(std::move(b));
      }
      algos.push_back(std::move(a));
    }
    builtin.assign(algos.size(), 1);
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

const Algorithm* find(Registry& r, Kind k, const std::string& name) {
  for (const Algorithm& a : r.algos)
    if (a.kind == k && a.name == name) return &a;
  return nullptr;
}

std::string names(Registry& r, Kind k) {
  std::string out;
  for (const Algorithm& a : r.algos)
    if (a.kind == k) out += (out.empty() ? "" : ", ") + a.name;
  return out;
}

size_t parse_bytes(const std::string& t, const std::string& rule) {
  if (t == "inf") return kInf;
  try {
    return parse_size(t, "INTERLACE_COLL size");
  } catch (const Error&) {
    throw_error(Errc::invalid_argument, "INTERLACE_COLL: bad size '" + t + "' in rule '" + rule + "'");
  }
}

std::vector<Rule> parse_rules(Registry& r, const std::string& text) {
  std::vector<Rule> out;
  std::stringstream all(text);
  std::string item;
  while (std::getline(all, item, '#')) {
    if (item.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(item);
    std::string part;
    while (std::getline(ss, part, ':')) f.push_back(part);
    auto bad = [&](const std::string& why) {
      throw_error(Errc::invalid_argument, "INTERLACE_COLL: rule '" + item + "': " + why +
                                              " (syntax: collective:lo-hi:[nlo-nhi:]@algorithm)");
    };
    if (f.size() < 2 || f.size() > 4) bad("expected 2 to 4 ':'-separated fields");
    auto k = kind_from_name(f[0]);
    if (!k) bad("unknown collective '" + f[0] + "'");
    Rule rule{*k};
    if (f.back().empty() || f.back()[0] != '@') bad("the last field must be @algorithm");
    rule.algorithm = f.back().substr(1);
    if (!find(r, *k, rule.algorithm))
      bad("unknown " + f[0] + " algorithm '" + rule.algorithm + "'; known: " + names(r, *k));
    for (size_t i = 1; i + 1 < f.size(); ++i) {
      const auto dash = f[i].find('-');
      if (dash == std::string::npos) bad("range '" + f[i] + "' lacks '-'");
      const std::string lo = f[i].substr(0, dash), hi = f[i].substr(dash + 1);
      if (i == 1) {
        rule.lo = parse_bytes(lo, item);
        rule.hi = parse_bytes(hi, item);
      } else {
        try {
          rule.nlo = std::stoi(lo);
          rule.nhi = hi == "inf" ? std::numeric_limits<int>::max() : std::stoi(hi);
        } catch (...) {
          bad("bad communicator-size range '" + f[i] + "'");
        }
      }
    }
    out.push_back(std::move(rule));
  }
  return out;
}

// Parsed once per distinct text (every rank of a job has the same).
const std::vector<Rule>& env_rules(Registry& r, const std::string& text) {
  if (text != r.env_text) {
    r.env_rules = parse_rules(r, text);
    r.env_text = text;
  }
  return r.env_rules;
}

bool matches(const Rule& rule, Kind k, size_t bytes, int n) {
  return rule.kind == k && bytes >= rule.lo && bytes < rule.hi && n >= rule.nlo && n <= rule.nhi;
}

const Algorithm* by_table(Registry& r, Kind k, size_t bytes, int n, const std::string& rules) {
  for (const Rule& rule : env_rules(r, rules))
    if (matches(rule, k, bytes, n))
      if (const Algorithm* a = find(r, k, rule.algorithm)) return a;
  for (const Rule& rule : kDefaults)
    if (matches(rule, k, bytes, n))
      if (const Algorithm* a = find(r, k, rule.algorithm)) return a;
  for (const Algorithm& a : r.algos)
    if (a.kind == k) return &a;
  return nullptr;
}

std::string range(size_t lo, size_t hi) {
  auto f = [](size_t v) -> std::string {
    if (v == kInf) return "inf";
    if (v && v % (1024 * 1024) == 0) return std::to_string(v >> 20) + "m";
    if (v && v % 1024 == 0) return std::to_string(v >> 10) + "k";
    return std::to_string(v);
  };
  return f(lo) + "-" + f(hi);
}

}  // namespace

void register_algorithm(Algorithm a) {
  if (static_cast<int>(a.kind) < 1 || static_cast<int>(a.kind) >= kKindCount)
    throw_error(Errc::invalid_argument, "register_algorithm: collective kind " +
                                            std::to_string(static_cast<int>(a.kind)) + " is invalid");
  if (a.name.empty() || !a.build)
    throw_error(Errc::invalid_argument, "register_algorithm: an algorithm needs a name and a builder");
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.m);
  g_generation.fetch_add(1, std::memory_order_relaxed);
  for (size_t i = 0; i < r.algos.size(); ++i)
    if (r.algos[i].kind == a.kind && r.algos[i].name == a.name) {
      r.algos[i] = std::move(a);
      r.builtin[i] = 0;
      return;
    }
  r.algos.push_back(std::move(a));
  r.builtin.push_back(0);
}

bool unregister_algorithm(Kind k, const std::string& name) {
  Registry& r = registry();
  Algorithm gone;  // destroyed after the lock is released (its builder may hold a Python object)
  {
    std::lock_guard<std::mutex> g(r.m);
    for (auto it = r.algos.begin(); it != r.algos.end(); ++it)
      if (it->kind == k && it->name == name) {
        g_generation.fetch_add(1, std::memory_order_relaxed);
        gone = std::move(*it);
        r.builtin.erase(r.builtin.begin() + (it - r.algos.begin()));
        r.algos.erase(it);
        return true;
      }
  }
  return false;
}

std::vector<std::string> algorithm_names(Kind k) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.m);
  std::vector<std::string> out;
  for (const Algorithm& a : r.algos)
    if (a.kind == k) out.push_back(a.name);
  return out;
}

uint64_t registry_generation() noexcept { return g_generation.load(std::memory_order_relaxed); }

Algorithm choose(Kind k, size_t bytes, int n, bool commutative, const std::string& requested) {
  return choose(k, bytes, n, commutative, requested, nullptr);
}

Algorithm choose(Kind k, size_t bytes, int n, bool commutative, const std::string& requested, bool* builtin) {
  return choose(k, bytes, n, commutative, requested, builtin, Config::from_env().coll_rules);
}

Algorithm choose(Kind k, size_t bytes, int n, bool commutative, const std::string& requested, bool* builtin,
                 const std::string& rules) {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.m);
  const Algorithm* a = nullptr;
  auto pick = [&](const Algorithm* p) {
    if (builtin) *builtin = r.builtin[static_cast<size_t>(p - r.algos.data())] != 0;
    return *p;
  };
  if (!requested.empty()) {
    a = find(r, k, requested);
    if (!a)
      throw_error(Errc::invalid_argument, "unknown " + std::string(kind_name(k)) + " algorithm '" +
                                              requested + "'; known: " + names(r, k));
    if (!commutative && !a->keeps_order)
      throw_error(Errc::invalid_argument, std::string(kind_name(k)) + " algorithm '" + requested +
                                              "' reorders operands; a non-commutative op needs one of the "
                                              "rank-ordered algorithms");
    return pick(a);
  }
  a = by_table(r, k, bytes, n, rules);
  if (a && !commutative && !a->keeps_order) {
    a = nullptr;
    for (const Algorithm& b : r.algos)
      if (b.kind == k && b.keeps_order) { a = &b; break; }
  }
  if (!a) throw_error(Errc::internal, "no algorithm for " + std::string(kind_name(k)));
  return pick(a);
}

std::string select(Kind k, size_t bytes, int n) { return choose(k, bytes, n, true, "").name; }

void check_rules(const std::string& rules) {
  check_coll_rules_syntax(rules);  // the same message a Context gives for bad syntax
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.m);
  parse_rules(r, rules);
}

std::string describe() {
  Registry& r = registry();
  std::lock_guard<std::mutex> g(r.m);
  std::ostringstream o;
  o << "collective algorithms (* keeps rank order: usable with non-commutative ops)\n";
  for (int i = 1; i < kKindCount; ++i) {
    const Kind k = static_cast<Kind>(i);
    o << "  " << kind_name(k) << ":\n";
    for (const Algorithm& a : r.algos)
      if (a.kind == k) o << "    " << a.name << (a.keeps_order ? " *" : "") << "  " << a.about << "\n";
  }
  o << "selection rules in effect (first match wins; sizes in bytes, hi exclusive)\n";
  try {
    for (const Rule& rule : env_rules(r, Config::from_env().coll_rules))
      o << "  INTERLACE_COLL  " << kind_name(rule.kind) << ":" << range(rule.lo, rule.hi) << ":" << rule.nlo
        << "-" << (rule.nhi == std::numeric_limits<int>::max() ? std::string("inf") : std::to_string(rule.nhi))
        << ":@" << rule.algorithm << "\n";
  } catch (const Error& err) {
    o << "  INTERLACE_COLL is invalid: " << err.what() << "\n";
  }
  for (const Rule& rule : kDefaults)
    o << "  default         " << kind_name(rule.kind) << ":" << range(rule.lo, rule.hi) << ":" << rule.nlo
      << "-" << (rule.nhi >= (1 << 30) ? std::string("inf") : std::to_string(rule.nhi)) << ":@"
      << rule.algorithm << "\n";
  o << "compression plugins (Options::compression, compression=):";
  for (const std::string& z : compressor_names()) o << " " << z;
  o << "\n";
  return o.str();
}

}  // namespace interlace::coll
