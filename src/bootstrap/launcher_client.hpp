// A client of the launcher's own process-management interface (PMIx, PMI-2): who
// this process is, where it runs, and a job-wide key exchange made visible by a
// collective fence. Started once per process by Environment::detect() when the job
// was started by such a launcher; finalized at process exit (docs/bootstrap.md).
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace interlace::bootstrap::detail {

struct LauncherInfo {
  int rank = 0;
  int size = 1;
  int local_rank = -1;  // -1: the launcher did not say
  int local_size = 0;   // 0: the launcher did not say
  int node_id = -1;
  std::string job_id;   // the launcher's (PMIx namespace, PMI-2 job id), unsanitized
  std::string host;     // empty: the launcher did not say
};

class LauncherClient {
 public:
  virtual ~LauncherClient() = default;
  virtual const char* name() const = 0;  // "pmix" or "pmi2"
  virtual const LauncherInfo& info() const = 0;
  // put() values become visible to get() of other ranks after the next fence().
  virtual void put(const std::string& key, const std::string& value) = 0;
  virtual void fence(double timeout_s) = 0;  // every rank of the job takes part
  virtual std::string get(int rank, const std::string& key) = 0;
  virtual void finalize() noexcept = 0;
};

// Null when that client is not built in; throws Error(system) when the launcher
// cannot be reached.
std::unique_ptr<LauncherClient> make_pmix_client();
std::unique_ptr<LauncherClient> make_pmi2_client();
bool pmix_built() noexcept;
bool pmi2_built() noexcept;

// The process's client: started by the first call that finds a PMIx or PMI-2
// launcher (INTERLACE_BOOTSTRAP steers the choice), null when the job's variables
// are to be read instead. `interlace_vars` says the job has INTERLACE_RANK/SIZE.
LauncherClient* start_launcher_client(bool interlace_vars);
LauncherClient* launcher_client() noexcept;  // the one started, or null

// PMI-2's PMI_process_mapping, "(vector,(first node,node count,ranks per node),...)":
// fills node_of[r] for ranks 0..size-1. False when the text is not such a vector.
bool parse_process_mapping(const std::string& text, int size, std::vector<int>* node_of);

}  // namespace interlace::bootstrap::detail
