// Rank discovery. A PMIx or PMI-2 launcher is asked through its client library
// (launcher_client.cpp); other launchers announce ranks through environment
// variables, which we try in a fixed order (see environment.hpp) so that a job
// started by our own launcher inside a Slurm allocation still uses our variables.
#include "interlace/bootstrap/environment.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "bootstrap/launcher_client.hpp"
#include "interlace/core/error.hpp"

namespace interlace::bootstrap {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

int parse_int(const char* var, const char* text) {
  errno = 0;
  char* end = nullptr;
  long x = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE || x < std::numeric_limits<int>::min() ||
      x > std::numeric_limits<int>::max())
    throw_error(Errc::invalid_argument,
                std::string(var) + "='" + text + "' is not an integer");
  return static_cast<int>(x);
}

// Job ids become file and shared-memory names, so only a safe alphabet passes.
bool safe_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '-' || c == '_' || c == '.';
}
std::string sanitize(std::string s) {
  for (char& c : s)
    if (!safe_id_char(c)) c = '_';
  return s;
}

// The parent process (mpirun's daemon, Hydra's proxy) is shared by the ranks on
// one host. Its start time makes the id unique even when pids are recycled, so
// a stale store directory of an earlier job is never mistaken for ours.
std::string parent_based_id(const char* prefix) {
  pid_t ppid = getppid();
  std::string start = "0";
  std::ifstream stat("/proc/" + std::to_string(ppid) + "/stat");
  std::string line;
  if (std::getline(stat, line)) {
    // Field 22 is starttime; fields after the ")" closing comm are space-separated.
    auto close = line.rfind(')');
    if (close != std::string::npos) {
      std::istringstream rest(line.substr(close + 2));
      std::string field;
      for (int i = 3; i <= 22 && rest >> field; ++i)
        if (i == 22) start = field;
    }
  }
  return std::string(prefix) + "-" + std::to_string(ppid) + "-" + start;
}

std::string slurm_job_id() {
  const char* job = env("SLURM_JOB_ID");
  if (!job) job = env("SLURM_JOBID");
  if (!job) return {};
  const char* step = env("SLURM_STEP_ID");
  if (!step) step = env("SLURM_STEPID");
  return std::string("slurm-") + job + (step ? std::string(".") + step : std::string());
}

}  // namespace

Environment Environment::detect() {
  Environment e;
  const char* rank_var = nullptr;
  const char* size_var = nullptr;
  const char* local_var = nullptr;
  const char* local_size_var = nullptr;

  const bool interlace_vars = env("INTERLACE_RANK") || env("INTERLACE_SIZE");
  if (const detail::LauncherClient* c = detail::start_launcher_client(interlace_vars)) {
    const detail::LauncherInfo& i = c->info();
    e.source = c->name();
    e.rank = i.rank;
    e.size = i.size;
    // PMI-2 without a process mapping does not say; Slurm's variable does.
    const char* l = env("SLURM_LOCALID");
    e.local_rank = i.local_rank >= 0 ? i.local_rank : l ? parse_int("SLURM_LOCALID", l) : e.rank;
    e.local_size = i.local_size;
    e.node_id = i.node_id;
    e.job_id = e.source + "-" + sanitize(i.job_id);
  } else if (interlace_vars) {
    e.source = "interlace";
    rank_var = "INTERLACE_RANK";
    size_var = "INTERLACE_SIZE";
    local_var = "INTERLACE_LOCAL_RANK";
    local_size_var = "INTERLACE_LOCAL_SIZE";
  } else if (env("OMPI_COMM_WORLD_RANK")) {
    e.source = "openmpi";
    rank_var = "OMPI_COMM_WORLD_RANK";
    size_var = "OMPI_COMM_WORLD_SIZE";
    local_var = "OMPI_COMM_WORLD_LOCAL_RANK";
    local_size_var = "OMPI_COMM_WORLD_LOCAL_SIZE";
    const char* jid = env("OMPI_MCA_ess_base_jobid");
    e.job_id = jid ? "ompi-" + sanitize(jid) : parent_based_id("ompi");
  } else if (env("PMI_RANK")) {
    e.source = "pmi";
    rank_var = "PMI_RANK";
    size_var = "PMI_SIZE";
    // Hydra exports the node-local rank as MPI_LOCALRANKID; Slurm's PMI as SLURM_LOCALID.
    local_var = env("MPI_LOCALRANKID") ? "MPI_LOCALRANKID" : "SLURM_LOCALID";
    local_size_var = "MPI_LOCALNRANKS";
    e.job_id = slurm_job_id();
    if (e.job_id.empty()) e.job_id = parent_based_id("pmi");
  } else if (env("SLURM_PROCID")) {
    e.source = "slurm";
    rank_var = "SLURM_PROCID";
    // Inside an srun step the step's task count is the job size; SLURM_NTASKS
    // is the allocation's, which may be larger.
    size_var = env("SLURM_STEP_NUM_TASKS") ? "SLURM_STEP_NUM_TASKS" : "SLURM_NTASKS";
    local_var = "SLURM_LOCALID";
    e.job_id = sanitize(slurm_job_id());
    if (const char* n = env("SLURM_NODEID")) e.node_id = parse_int("SLURM_NODEID", n);
  } else {
    e.source = "singleton";
    e.job_id = "single-" + std::to_string(getpid());
  }

  if (rank_var) {
    const char* r = env(rank_var);
    const char* s = env(size_var);
    if (!r) throw_error(Errc::invalid_argument, std::string(size_var) + " is set but " + rank_var + " is not");
    if (!s) throw_error(Errc::invalid_argument, std::string(rank_var) + " is set but " + size_var + " is not");
    e.rank = parse_int(rank_var, r);
    e.size = parse_int(size_var, s);
    if (e.size < 1)
      throw_error(Errc::invalid_argument, std::string(size_var) + "=" + s + " must be at least 1");
    if (e.rank < 0 || e.rank >= e.size)
      throw_error(Errc::invalid_argument, std::string(rank_var) + "=" + r + " is outside [0, " +
                                              size_var + "=" + s + ")");
    // Without a local rank we assume one host, where the global rank is local.
    const char* l = env(local_var);
    e.local_rank = l ? parse_int(local_var, l) : e.rank;
    if (e.local_rank < 0 || e.local_rank >= e.size)
      throw_error(Errc::invalid_argument, std::string(local_var) + "=" + l + " is outside [0, " +
                                              size_var + "=" + s + ")");
    if (const char* ls = local_size_var ? env(local_size_var) : nullptr) {
      e.local_size = parse_int(local_size_var, ls);
      if (e.local_size < 1 || e.local_size > e.size)
        throw_error(Errc::invalid_argument, std::string(local_size_var) + "=" + ls +
                                                " is outside [1, " + size_var + "=" + s + "]");
    }
  }

  // These override every source so a user can steer an mpirun/Slurm job too.
  if (const char* j = env("INTERLACE_JOB_ID")) {
    for (const char* p = j; *p; ++p)
      if (!safe_id_char(*p))
        throw_error(Errc::invalid_argument,
                    std::string("INTERLACE_JOB_ID='") + j +
                        "' may only contain letters, digits, '-', '_' and '.'");
    e.job_id = j;
  } else if (e.source == "interlace") {
    e.job_id = parent_based_id("il");
  }
  if (const char* sec = env("INTERLACE_SECRET")) e.secret = sec;
  else if (e.source != "singleton") e.secret = "job:" + e.job_id;  // guards against mixing jobs, not attackers

  const detail::LauncherClient* launcher = detail::launcher_client();
  if (const char* h = env("INTERLACE_HOST")) {
    e.host = h;
  } else if (launcher && !launcher->info().host.empty() && e.source == launcher->name()) {
    e.host = launcher->info().host;
  } else {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) throw_system_error("gethostname");
    e.host = buf;
  }

  if (const char* st = env("INTERLACE_STORE")) {
    e.store_url = st;
  } else if (launcher && e.source == launcher->name()) {
    e.store_url = e.source + "://";  // rank 0's TCP store, found through the launcher
  } else if (e.source == "singleton") {
    e.store_url = "mem://";  // nobody to meet; avoid leaving files behind
  } else {
    // Job ids under mpirun and Slurm are predictable, so the directory they
    // name lives inside a parent only this user can enter (created 0700 and
    // checked by the file store): another user can neither plant it in
    // advance nor look inside. The last rank to leave removes it.
    e.store_url = private_file_store_url(e.job_id);
  }
  return e;
}

std::string private_file_store_url(const std::string& job_id) {
  const char* tmp = env("TMPDIR");
  std::string dir = (tmp && tmp[0] == '/') ? tmp : "/tmp";
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir == "/") dir.clear();
  return "file://" + dir + "/interlace-" + std::to_string(geteuid()) + "/" + job_id;
}

}  // namespace interlace::bootstrap
