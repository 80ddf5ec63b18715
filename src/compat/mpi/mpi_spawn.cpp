// MPI_Comm_spawn through interlace's own means (docs/mpi.md, "Dynamic processes").
// The spawn root starts the children itself (posix_spawnp, on this host) as a job of
// their own, so their MPI_COMM_WORLD holds them alone. Parents and children then meet in
// a second runtime, the connection: a job of P + C ranks (the parents 0..P-1 in the order
// of the spawning communicator, the children after them) whose job id the root makes up
// and hands to the children in INTERLACE_PARENT. The intercommunicator of both sides
// lives on that runtime; the world runtimes of the two jobs never meet.
#include "mpi_spawn.hpp"

#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include "interlace/bootstrap/environment.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/core/host_cpus.hpp"
#include "interlace/core/log.hpp"
#include "interlace/engine/context.hpp"
#include "interlace/groups/comm_state.hpp"
#include "mpi_inter.hpp"

extern char** environ;

namespace interlace::mpi::spawn {
namespace {

constexpr const char* kParentVar = "INTERLACE_PARENT";  // "<connection id>,<parents>"
constexpr int kMaxChildren = 4096;

// The connections of this process by intercommunicator handle. Never destroyed: a
// connection still open at exit must not be torn down by static destructors after the
// MPI state it belongs to.
std::mutex g_mu;
std::map<MPI_Comm, Runtime>& connections() {
  static auto* m = new std::map<MPI_Comm, Runtime>;
  return *m;
}
MPI_Comm g_parent = MPI_COMM_NULL;

std::string str(long long v) { return std::to_string(v); }

std::string new_connection_id() {
  static std::atomic<int> counter{0};
  std::random_device rd;
  return "spawn-" + str(getpid()) + "-" + str(++counter) + "-" + str(rd() % 1000000);
}

// The environment of a child: this process's, less what describes this process's own job
// (its ranks, store, peer tables, routes), plus the child's job (rank j of `total`) and
// the connection.
std::vector<std::string> child_env(int j, int total, const std::string& conn, int parents) {
  static const char* own[] = {"INTERLACE_RANK=",  "INTERLACE_SIZE=",  "INTERLACE_LOCAL_RANK=",
                              "INTERLACE_LOCAL_SIZE=", "INTERLACE_JOB_ID=", "INTERLACE_SECRET=",
                              "INTERLACE_STORE=", "INTERLACE_ZRLMPI_RANKS=", "INTERLACE_UDP_PEERS=",
                              "INTERLACE_UDP_PORT=", "INTERLACE_ROUTES=", "INTERLACE_PARENT=",
                              "INTERLACE_BIND_TO=", "INTERLACE_BIND_CPUS="};
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    bool drop = false;
    for (const char* p : own) drop = drop || std::strncmp(*e, p, std::strlen(p)) == 0;
    if (!drop) env.emplace_back(*e);
  }
  env.push_back("INTERLACE_RANK=" + str(j));
  env.push_back("INTERLACE_SIZE=" + str(total));
  env.push_back("INTERLACE_LOCAL_RANK=" + str(j));
  env.push_back("INTERLACE_LOCAL_SIZE=" + str(total));
  env.push_back("INTERLACE_JOB_ID=" + conn + ".c");
  env.push_back(std::string(kParentVar) + "=" + conn + "," + str(parents));
  if (std::getenv("INTERLACE_BIND_TO")) {  // started by `interlace run`: say how they run
    env.push_back("INTERLACE_BIND_TO=none");
    env.push_back("INTERLACE_BIND_CPUS=");
  }
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::atomic<int> g_live_children{0};

// At exit of a process that spawned: its connections close (children blocked on it see
// it gone), then it waits, within INTERLACE_CONNECT_TIMEOUT, for children still running,
// as mpirun waits for the jobs it spawned: `interlace run` ends what remains of a rank's
// process group once every rank exited.
void at_exit() {
  double limit = 30;
  {
    std::lock_guard<std::mutex> g(g_mu);
    for (auto& [h, rt] : connections()) {
      try {
        limit = rt.context().config().connect_timeout_s;
        rt.finalize();
      } catch (...) {  // exiting anyway: nothing left to report it to
      }
    }
  }
  const Deadline until = Deadline::after(limit);
  while (g_live_children.load() > 0 && !until.expired()) usleep(20 * 1000);
}

// Waits for the children in the background, so that they leave no zombies.
void reap(std::vector<pid_t> pids) {
  static std::once_flag once;
  std::call_once(once, [] { std::atexit(at_exit); });
  g_live_children += static_cast<int>(pids.size());
  std::thread([pids = std::move(pids)] {
    for (pid_t p : pids) {
      int st = 0;
      while (waitpid(p, &st, 0) < 0 && errno == EINTR) {
      }
      --g_live_children;
    }
  }).detach();
}

// Children inherit the spawning thread's CPU mask; under `interlace run`'s
// default binding that is this rank's one core, which every child would then
// share. While it lives, the calling thread runs on the job's CPUs
// (INTERLACE_HOST_CPUS), so the children start unbound over them.
class UnboundChildren {
 public:
  UnboundChildren() {
    const std::vector<int> cpus = host_cpus_from_env();
    if (cpus.empty() || sched_getaffinity(0, sizeof old_, &old_) != 0) return;
    cpu_set_t wide;
    CPU_ZERO(&wide);
    for (int c : cpus) CPU_SET(c, &wide);
    widened_ = sched_setaffinity(0, sizeof wide, &wide) == 0;
  }
  ~UnboundChildren() {
    if (widened_) sched_setaffinity(0, sizeof old_, &old_);
  }
  UnboundChildren(const UnboundChildren&) = delete;
  UnboundChildren& operator=(const UnboundChildren&) = delete;

 private:
  cpu_set_t old_{};
  bool widened_ = false;
};

// At the root: starts every child; on a failure stops those already started and
// returns why (empty on success).
std::string launch(const std::vector<Command>& cmds, int total, const std::string& conn, int parents) {
  std::vector<pid_t> pids;
  UnboundChildren unbound;
  int j = 0;
  for (const Command& c : cmds) {
    for (int k = 0; k < c.count; ++k, ++j) {
      std::vector<std::string> argv{c.program};
      argv.insert(argv.end(), c.args.begin(), c.args.end());
      std::vector<std::string> env = child_env(j, total, conn, parents);
      std::vector<char*> av = c_strings(argv), ev = c_strings(env);
      pid_t pid = 0;
      const int rc = posix_spawnp(&pid, c.program.c_str(), nullptr, nullptr, av.data(), ev.data());
      if (rc != 0) {
        for (pid_t p : pids) kill(p, SIGKILL);
        reap(std::move(pids));
        return "cannot start command '" + c.program + "': " + std::strerror(rc);
      }
      pids.push_back(pid);
    }
  }
  reap(std::move(pids));
  return {};
}

// Joins the connection job as `rank` of `size`: all its ranks are on this host.
Runtime open_connection(const std::string& id, int rank, int size) {
  const engine::Context& mine = state().rt.context();
  engine::ContextOptions o;
  o.config = mine.config();
  o.config.zrlmpi_ranks.clear();  // those name ranks of this process's own job
  o.config.routes_dir.clear();
  o.env.rank = rank;
  o.env.size = size;
  o.env.local_rank = rank;
  o.env.local_size = size;
  o.env.job_id = id;
  o.env.secret = "job:" + id;
  o.env.store_url = bootstrap::private_file_store_url(id);
  o.env.host = mine.environment().host;
  o.env.source = "spawn";
  const int world_rank = mine.rank();
  Runtime rt(o);
  log::set_rank(world_rank);  // the connection's context took the log prefix over
  if (g_thread_multiple.load(std::memory_order_acquire)) rt.context().lock().enable();
  return rt;
}

// The intercommunicator on a connection of `parents` + `children` ranks. Every member
// derives the same ids, none of which a rank of the connection can make by itself
// (created ids are (rank + 1) << 32 | n, and no rank is `size`).
MPI_Comm intercomm(Runtime& rt, int parents, int children, bool parent_side, MPI_Errhandler eh) {
  std::vector<int> ps(parents), cs(children);
  std::iota(ps.begin(), ps.end(), 0);
  std::iota(cs.begin(), cs.end(), parents);
  const uint64_t base = static_cast<uint64_t>(parents + children + 1) << 32;
  const inter::Ids ids{base | 1, base | 2, base | (parent_side ? 3u : 4u)};
  const auto w = rt.world().group_state();
  const MPI_Comm h = parent_side ? inter::make_on(w, ps, cs, ids, eh)
                                 : inter::make_on(w, cs, ps, ids, eh);
  std::lock_guard<std::mutex> g(g_mu);
  connections()[h] = rt;
  return h;
}

// What the root tells the other parents: an error class (0: started) and the number of
// children, then the connection id or the error message.
struct Verdict {
  int cls = 0;
  int total = 0;
  char text[1024] = {};
};

void set_text(Verdict& v, const std::string& s) {
  std::strncpy(v.text, s.c_str(), sizeof v.text - 1);
}

}  // namespace

MPI_Comm spawn(const char* call, const std::vector<Command>& cmds, int root, MPI_Comm comm, int* errcodes) {
  if (is_inter(comm)) raise(MPI_ERR_COMM, std::string(call) + ": communicator " + str(comm) +
                                              " is an intercommunicator; spawning needs an intracommunicator");
  const Communicator& c = comm_of(comm);
  const int me = c.rank(), parents = c.size();
  if (root < 0 || root >= parents)
    raise(MPI_ERR_ROOT, std::string(call) + ": root " + str(root) + " is not a rank of communicator " +
                            str(comm) + " (size " + str(parents) + ")");
  Verdict v;
  if (me == root) {
    for (const Command& cmd : cmds) {
      if (cmd.count < 1 || cmd.count > kMaxChildren) {
        v.cls = MPI_ERR_ARG;
        set_text(v, "maxprocs " + str(cmd.count) + " for command '" + cmd.program + "' is outside [1, " +
                        str(kMaxChildren) + "]");
      }
      v.total += v.cls ? 0 : cmd.count;
    }
    if (!v.cls && v.total > kMaxChildren) {
      v.cls = MPI_ERR_ARG;
      set_text(v, "the commands ask for " + str(v.total) + " processes, more than " + str(kMaxChildren));
    }
    if (!v.cls) {
      const std::string conn = new_connection_id();
      const std::string why = launch(cmds, v.total, conn, parents);
      v.cls = why.empty() ? 0 : MPI_ERR_SPAWN;
      set_text(v, why.empty() ? conn : why);
    }
  }
  if (parents > 1) {
    const int rc = MPI_Bcast(&v, static_cast<int>(sizeof v), MPI_BYTE, root, comm);
    if (rc != MPI_SUCCESS) raise(MPI_ERR_SPAWN, std::string(call) + ": the root's verdict did not arrive");
  }
  if (v.cls) {
    if (errcodes)
      for (int i = 0; i < v.total; ++i) errcodes[i] = MPI_ERR_SPAWN;
    raise(v.cls, std::string(call) + ": " + v.text + (me == root ? "" : " (at the root, rank " + str(root) + ")"));
  }
  Runtime rt;
  try {
    rt = open_connection(v.text, me, parents + v.total);
  } catch (const Error& e) {
    if (errcodes)
      for (int i = 0; i < v.total; ++i) errcodes[i] = MPI_ERR_SPAWN;
    raise(MPI_ERR_SPAWN, std::string(call) + ": the children did not connect (did they call MPI_Init, "
                             "or did they exit?): " + e.what());
  }
  if (errcodes)
    for (int i = 0; i < v.total; ++i) errcodes[i] = MPI_SUCCESS;
  return intercomm(rt, parents, v.total, true, comm_obj(comm).errhandler);
}

void connect_to_parent() {
  const char* p = std::getenv(kParentVar);
  if (!p || !*p) return;
  const std::string text = p;
  const auto comma = text.rfind(',');
  char* end = nullptr;
  const long parents = comma == std::string::npos ? -1 : std::strtol(text.c_str() + comma + 1, &end, 10);
  if (parents < 1 || parents > kMaxChildren || !end || *end)
    raise(MPI_ERR_SPAWN, std::string(kParentVar) + "='" + text + "' is not '<connection>,<parents>'");
  const engine::Context& mine = state().rt.context();
  const int me = mine.rank(), children = mine.size();
  Runtime rt = open_connection(text.substr(0, comma), static_cast<int>(parents) + me,
                               static_cast<int>(parents) + children);
  g_parent = intercomm(rt, static_cast<int>(parents), children, false, comm_obj(MPI_COMM_WORLD).errhandler);
}

MPI_Comm parent() {
  if (g_parent == MPI_COMM_NULL) return g_parent;
  // After MPI_Comm_free of the parent intercommunicator its handle may name another
  // communicator by now: only one still on the connection is the parent.
  const CommObj* o = state().comms.get(g_parent);
  std::lock_guard<std::mutex> g(g_mu);
  auto it = connections().find(g_parent);
  if (!o || !o->inter || it == connections().end() || &context_of(g_parent) != &it->second.context())
    g_parent = MPI_COMM_NULL;
  return g_parent;
}

bool disconnect(MPI_Comm comm) {
  Runtime rt;
  {
    std::lock_guard<std::mutex> g(g_mu);
    auto it = connections().find(comm);
    if (it == connections().end()) return false;
    rt = it->second;
  }
  // Both sides are done with the connection once both reached here.
  int rc = MPI_Barrier(comm);
  if (rc != MPI_SUCCESS) raise(rc, "MPI_Comm_disconnect: the other side did not reach the disconnect");
  MPI_Comm h = comm;
  rc = MPI_Comm_free(&h);
  if (rc != MPI_SUCCESS) raise(rc, "MPI_Comm_disconnect: freeing communicator " + str(comm) + " failed");
  {
    std::lock_guard<std::mutex> g(g_mu);
    connections().erase(comm);
  }
  if (g_parent == comm) g_parent = MPI_COMM_NULL;
  rt.finalize();
  return true;
}

engine::Context& context_of(MPI_Comm comm) {
  const CommObj* o = state().comms.get(comm);
  if (o && o->comm.group_state()) return *o->comm.group_state()->rt->ctx;
  return state().rt.context();
}

}  // namespace interlace::mpi::spawn
