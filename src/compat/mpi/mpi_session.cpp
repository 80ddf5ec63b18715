// MPI 4 sessions: MPI_Session_init / finalize, process sets ("mpi://WORLD",
// "mpi://SELF"), their groups and infos. Buffers, error handlers and handle conversion
// are in mpi_session_errh.cpp. A communicator is made from a pset's group with
// MPI_Comm_create_from_group (mpi_comm_ext.cpp), which needs no MPI_Init.
#include <strings.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "compat/mpi/mpi_info.hpp"
#include "compat/mpi/mpi_session.hpp"

namespace interlace::mpi {
namespace {

// Handles count up and are never reused, so a finalized session is told apart from an
// unknown number in messages.
std::mutex g_mu;
std::map<int, SessionObj> g_sessions;
int g_next = 1;

const char* const kPsets[] = {"mpi://WORLD", "mpi://SELF"};
constexpr int kNumPsets = 2;

const char* const kLevels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                               "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

// MPI names its thread levels in this order (MPI_THREAD_SINGLE 0 ... MULTIPLE 3).
int level_named(const std::string& v) {
  for (int i = 0; i < 4; ++i)
    if (strcasecmp(v.c_str(), kLevels[i]) == 0) return MPI_THREAD_SINGLE + i;
  raise(MPI_ERR_ARG, "info key \"thread_level\" has value \"" + v +
                         "\" (expected MPI_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE)");
}

// The world ranks of a pset; MPI_ERR_ARG naming an unknown one. The mpi:// names are
// matched without regard to case, as MPICH and Open MPI do.
std::vector<int> pset_members(const char* name) {
  need(name, "pset_name");
  const Communicator& w = comm_of(MPI_COMM_WORLD);
  if (strcasecmp(name, kPsets[0]) == 0) {
    std::vector<int> all(w.size());
    for (int i = 0; i < w.size(); ++i) all[i] = i;
    return all;
  }
  if (strcasecmp(name, kPsets[1]) == 0) return {w.rank()};
  raise(MPI_ERR_ARG, std::string("process set \"") + name +
                         "\" is not known (interlace has \"mpi://WORLD\" and \"mpi://SELF\")");
}

// The session call errors come from the errhandler given to MPI_Session_init when it
// is usable for sessions, else from the initial handler.
int init_failed(const char* call, MPI_Errhandler eh) {
  bool usable = true;
  try {
    errh_check_settable(ErrhKind::session, eh);
  } catch (const MpiError&) {
    usable = false;
  }
  if (!usable) return fail_current(call, MPI_COMM_NULL);
  auto [cls, what] = current_error(call);
  return dispatch_error(ErrhKind::session, MPI_SESSION_NULL, eh, call, cls, what);
}

}  // namespace

SessionObj& session_obj(MPI_Session s) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_sessions.find(s);
  if (it != g_sessions.end()) return it->second;
  if (s == MPI_SESSION_NULL) raise(MPI_ERR_SESSION, "session is MPI_SESSION_NULL");
  if (s > 0 && s < g_next) raise(MPI_ERR_SESSION, "session " + std::to_string(s) + " was finalized");
  raise(MPI_ERR_SESSION, "session " + std::to_string(s) + " is not a valid session");
}

int session_fail_current(const char* call, MPI_Session session) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  {
    std::lock_guard<std::mutex> g(g_mu);
    auto it = g_sessions.find(session);
    if (it != g_sessions.end()) eh = it->second.errhandler;
  }
  if (eh == MPI_ERRHANDLER_NULL) return fail_current(call, MPI_COMM_NULL);
  auto [cls, what] = current_error(call);
  return dispatch_error(ErrhKind::session, session, eh, call, cls, what);
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  const char* call = "MPI_Session_init";
  try {
    need(session, "session");
    errh_check_settable(ErrhKind::session, errhandler);
    SessionObj o;
    o.errhandler = errhandler;
    for (const auto& [key, value] : info_items(info))
      if (key == "thread_level") o.thread_level = level_named(value);
    runtime_acquire(+1);
    // The same levels as the world model (mpi_threads.cpp): MULTIPLE turns the
    // process-wide MPI lock on.
    o.thread_level = grant_thread_level(o.thread_level);
    std::lock_guard<std::mutex> g(g_mu);
    *session = g_next++;
    g_sessions.emplace(*session, o);
    return MPI_SUCCESS;
  } catch (...) {
    return init_failed(call, errhandler);
  }
}

// Sends still buffered in the session's buffer go out first; the session's handle is
// then dead, and the runtime ends when nothing else uses it.
int MPI_Session_finalize(MPI_Session* session) {
  const char* call = "MPI_Session_finalize";
  return session_guard(call, session ? *session : MPI_SESSION_NULL, [&] {
    need(session, "session");
    SessionObj& o = session_obj(*session);
    session_detach(o);
    {
      std::lock_guard<std::mutex> g(g_mu);
      g_sessions.erase(*session);
    }
    *session = MPI_SESSION_NULL;
    runtime_release(-1);
  });
}

int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  return session_guard("MPI_Session_get_num_psets", session, [&] {
    session_obj(session);
    info_items(info);  // no hints are understood, but the handle must be valid
    need(npset_names, "npset_names");
    *npset_names = kNumPsets;
  });
}

// MPI 4.1: with *pset_len 0 the call only stores the length the name needs (with its
// null); otherwise it copies at most *pset_len - 1 characters and a null.
int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len, char* pset_name) {
  return session_guard("MPI_Session_get_nth_pset", session, [&] {
    session_obj(session);
    info_items(info);
    need(pset_len, "pset_len");
    if (n < 0 || n >= kNumPsets)
      raise(MPI_ERR_ARG, "n " + std::to_string(n) + " is not between 0 and " + std::to_string(kNumPsets - 1) +
                             " (the session has " + std::to_string(kNumPsets) + " process sets)");
    if (*pset_len < 0) raise(MPI_ERR_ARG, "*pset_len " + std::to_string(*pset_len) + " is negative");
    const size_t len = std::strlen(kPsets[n]);
    if (*pset_len == 0) {
      *pset_len = static_cast<int>(len + 1);
      return;
    }
    need(pset_name, "pset_name");
    const size_t take = std::min(len, static_cast<size_t>(*pset_len) - 1);
    std::memcpy(pset_name, kPsets[n], take);
    pset_name[take] = '\0';
  });
}

int MPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  return session_guard("MPI_Session_get_info", session, [&] {
    const SessionObj& o = session_obj(session);
    need(info_used, "info_used");
    *info_used = info_new({{"mpi_thread_support_level", kLevels[o.thread_level - MPI_THREAD_SINGLE]}});
  });
}

int MPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  return session_guard("MPI_Session_get_pset_info", session, [&] {
    session_obj(session);
    need(info, "info");
    const std::vector<int> members = pset_members(pset_name);
    *info = info_new({{"mpi_size", std::to_string(members.size())}});
  });
}

int MPI_Group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup) {
  return session_guard("MPI_Group_from_session_pset", session, [&] {
    session_obj(session);
    need(newgroup, "newgroup");
    *newgroup = state().groups.add(GroupObj{pset_members(pset_name)});
  });
}

}  // extern "C"
