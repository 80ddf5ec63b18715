// Which launcher interface this process speaks (INTERLACE_BOOTSTRAP, else what the
// launcher's variables announce), the one process-wide client, and PMI-2's process
// mapping. The client lives until process exit: a runtime that MPI sessions restart
// needs it again, and PMI-2 cannot be initialised twice in one process.
#include "bootstrap/launcher_client.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"

namespace interlace::bootstrap::detail {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

std::mutex g_mu;
std::unique_ptr<LauncherClient> g_client;
bool g_fell_back = false;  // auto found a launcher but no usable client

// Runs at exit, after main and before static destructors of objects made before the
// client: a PMIx launcher (mpirun) counts a process that exits without PMIx_Finalize
// as failed.
void finalize_at_exit() {
  std::lock_guard<std::mutex> g(g_mu);
  if (g_client) g_client->finalize();
}

bool started_by_pmix() { return env("PMIX_NAMESPACE") && env("PMIX_RANK"); }
// Slurm's pmi2 plugin hands the task PMI_FD and says which plugin it is. MPICH's
// Hydra also sets PMI_FD but speaks PMI-1 there, so PMI_FD alone is not enough.
bool started_by_pmi2() {
  const char* type = env("SLURM_MPI_TYPE");
  return env("PMI_FD") && type && std::strncmp(type, "pmi2", 4) == 0;
}

std::unique_ptr<LauncherClient> start(const std::string& mode, bool interlace_vars) {
  if (mode == "env") return nullptr;
  if (mode == "pmix" || mode == "pmi2") {
    const bool pmix = mode == "pmix";
    if (!(pmix ? started_by_pmix() : env("PMI_FD") != nullptr))
      throw_error(Errc::invalid_argument,
                  "INTERLACE_BOOTSTRAP=" + mode + " but the job was not started by a " +
                      (pmix ? "PMIx launcher (PMIX_NAMESPACE and PMIX_RANK are not set)"
                            : "PMI-2 launcher (PMI_FD is not set)"));
    auto c = pmix ? make_pmix_client() : make_pmi2_client();
    if (!c)
      throw_error(Errc::unsupported, "INTERLACE_BOOTSTRAP=" + mode + ": interlace was built without " +
                                         (pmix ? "PMIx (libpmix-dev)" : "PMI-2 (libpmi2-0-dev)"));
    return c;
  }
  if (mode != "auto")
    throw_error(Errc::invalid_argument,
                "INTERLACE_BOOTSTRAP='" + mode + "' is not auto, pmix, pmi2 or env");
  // interlace run's variables win: its jobs may run inside an allocation of a launcher.
  if (interlace_vars) return nullptr;
  const bool pmix = started_by_pmix();
  if (!pmix && !started_by_pmi2()) return nullptr;
  const char* what = pmix ? "PMIx" : "PMI-2";
  if (!(pmix ? pmix_built() : pmi2_built())) {
    IL_LOG(info, "bootstrap: started by a " << what << " launcher but interlace was built without "
                                            << what << "; reading the launcher's variables instead");
    return nullptr;
  }
  try {
    return pmix ? make_pmix_client() : make_pmi2_client();
  } catch (const Error& e) {
    IL_LOG(warn, "bootstrap: " << e.what() << "; reading the launcher's variables instead "
                               << "(INTERLACE_BOOTSTRAP=env silences this)");
    return nullptr;
  }
}

}  // namespace

LauncherClient* start_launcher_client(bool interlace_vars) {
  std::lock_guard<std::mutex> g(g_mu);
  const char* m = env("INTERLACE_BOOTSTRAP");
  const std::string mode = m ? m : "auto";
  // The value is checked on every call, the client started once: later start-ups of
  // the process (a restarted runtime) reuse it.
  if (g_client) {
    if (mode == "env" || (mode == "auto" && interlace_vars)) return nullptr;
    if (mode == "auto" || mode == g_client->name()) return g_client.get();
    if (mode == "pmix" || mode == "pmi2")
      throw_error(Errc::invalid_argument, "INTERLACE_BOOTSTRAP=" + mode + " but this process already uses " +
                                              g_client->name());
  } else if (g_fell_back && mode == "auto") {
    return nullptr;  // said once why; not retried at every start-up
  }
  std::unique_ptr<LauncherClient> c = start(mode, interlace_vars);  // checks the value
  if (!c) {
    g_fell_back = mode == "auto" && (started_by_pmix() || started_by_pmi2()) && !interlace_vars;
    return nullptr;
  }
  g_client = std::move(c);
  std::atexit(finalize_at_exit);
  const LauncherInfo& i = g_client->info();
  IL_LOG(debug, "bootstrap: " << g_client->name() << " rank " << i.rank << "/" << i.size << " local "
                              << i.local_rank << "/" << i.local_size << " node " << i.node_id
                              << " host '" << i.host << "' job '" << i.job_id << "'");
  return g_client.get();
}

LauncherClient* launcher_client() noexcept {
  std::lock_guard<std::mutex> g(g_mu);
  return g_client.get();
}

bool parse_process_mapping(const std::string& text, int size, std::vector<int>* node_of) {
  std::string s;
  for (char c : text)
    if (c != ' ' && c != '\t' && c != '\n') s += c;
  const std::string head = "(vector";
  if (size < 1 || s.compare(0, head.size(), head) != 0 || s.back() != ')') return false;
  struct Block { long first, nodes, per_node; };
  std::vector<Block> blocks;
  size_t i = head.size();
  while (i < s.size() - 1) {
    if (s[i] != ',' || i + 1 >= s.size() || s[i + 1] != '(') return false;
    i += 2;
    long v[3];
    for (int k = 0; k < 3; ++k) {
      char* end = nullptr;
      v[k] = std::strtol(s.c_str() + i, &end, 10);
      if (end == s.c_str() + i || v[k] < 0 || v[k] > (1L << 24)) return false;
      i = static_cast<size_t>(end - s.c_str());
      if (s[i] != (k < 2 ? ',' : ')')) return false;
      ++i;
    }
    blocks.push_back({v[0], v[1], v[2]});
  }
  if (i != s.size() - 1) return false;  // the last tuple's ')' was taken for the vector's
  long per_pass = 0;
  for (const Block& b : blocks) per_pass += b.nodes * b.per_node;
  if (blocks.empty() || per_pass == 0) return false;
  // The vector repeats until every rank is placed (Slurm's cyclic distribution).
  node_of->assign(static_cast<size_t>(size), -1);
  int r = 0;
  while (r < size)
    for (const Block& b : blocks)
      for (long n = 0; n < b.nodes; ++n)
        for (long k = 0; k < b.per_node && r < size; ++k) (*node_of)[static_cast<size_t>(r++)] = static_cast<int>(b.first + n);
  return true;
}

}  // namespace interlace::bootstrap::detail
