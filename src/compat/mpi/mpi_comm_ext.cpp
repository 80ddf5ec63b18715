// Communicator creation beyond dup/split/create: MPI_Comm_create_group (collective over
// the group only) and MPI 4's MPI_Comm_create_from_group, MPI_Comm_idup, MPI_Comm_dup_with_info, MPI_Comm_idup_with_info and
// MPI_Comm_split_type. The non-blocking duplications complete at the start: the new
// communicator is usable at once and the request is already complete.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/groups/comm_state.hpp"
#include "interlace/p2p/transport.hpp"
#include "mpi_inter.hpp"
#include "mpi_p2p.hpp"

// From the Info calls (mpi_info.cpp, helper attr), when they are linked in; without them
// no info value is known, so a guided split finds no resource type and gives
// MPI_COMM_NULL, and a new communicator carries no hints.
extern "C" int MPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag)
    __attribute__((weak));
extern "C" int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) __attribute__((weak));

using namespace interlace;
using namespace interlace::mpi;

namespace {

std::string str(long long v) { return std::to_string(v); }

CommObj& intra_obj(MPI_Comm c, const char* call) {
  CommObj& o = comm_obj(c);
  if (o.inter) raise(MPI_ERR_COMM, std::string(call) + ": communicator " + str(c) + " is an intercommunicator");
  return o;
}

// The value of info key `key`, or "" when absent (or the Info calls are not linked in).
std::string info_value(MPI_Info info, const char* key) {
  if (info == MPI_INFO_NULL || !MPI_Info_get_string) return "";
  char buf[256] = {};
  int len = sizeof buf, flag = 0;
  if (MPI_Info_get_string(info, key, &len, buf, &flag) != MPI_SUCCESS || !flag) return "";
  return buf;
}

// The hints of a new communicator are `info` (dup_with_info; a guided split's resource
// type, which MPI says the new communicator reports).
void set_hints(MPI_Comm c, MPI_Info info) {
  if (c == MPI_COMM_NULL || info == MPI_INFO_NULL || !MPI_Comm_set_info) return;
  const int rc = MPI_Comm_set_info(c, info);
  if (rc != MPI_SUCCESS) raise(MPI_ERR_INFO, "info " + std::to_string(info) + " could not be set on communicator " +
                                                 std::to_string(c) + " (error " + std::to_string(rc) + ")");
}

// The communicator of group g (world ranks, holding this rank) made over parent state
// ps: group rank 0 makes the id and hands it to the others.
MPI_Comm create_over(const std::shared_ptr<groups::CommState>& ps, const std::vector<int>& g, int itag,
                     MPI_Errhandler eh) {
  const int me = ps->rt->ctx->rank();
  int64_t id = 0;
  if (g[0] == me) {
    id = static_cast<int64_t>(ps->new_child_id());
    std::vector<Request> sends;
    for (size_t i = 1; i < g.size(); ++i)
      sends.push_back(p2p::internal_isend(ps, &id, 1, Datatype::int64, ps->rank_of_world[g[i]], itag));
    for (Request& r : sends) r.wait();
  } else {
    p2p::internal_irecv(ps, &id, 1, Datatype::int64, ps->rank_of_world[g[0]], itag).wait();
  }
  return new_comm(Communicator::from_group_state(groups::CommState::make(ps->rt, static_cast<uint64_t>(id), g)), eh);
}

}  // namespace

extern "C" {

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create_group";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(newcomm, call, "newcomm");
    CommObj& parent = intra_obj(comm, call);
    const std::vector<int> g = group_obj(group).members;
    if (tag < 0) raise(MPI_ERR_TAG, std::string(call) + ": tag " + str(tag) + " is negative");
    const auto& ps = parent.comm.group_state();
    for (int w : g)
      if (w < 0 || w >= static_cast<int>(ps->rank_of_world.size()) || ps->rank_of_world[w] < 0)
        raise(MPI_ERR_GROUP, std::string(call) + ": world rank " + str(w) +
                                 " of the group is not a member of communicator " + str(comm));
    const int me = parent.comm.world_rank_of(parent.comm.rank());
    auto pos = std::find(g.begin(), g.end(), me);
    if (pos == g.end()) {  // MPI: a local call that gives MPI_COMM_NULL
      *newcomm = MPI_COMM_NULL;
      return;
    }
    const MPI_Errhandler eh = parent.errhandler;
    *newcomm = create_over(ps, g, inter::creation_tag(5, static_cast<uint64_t>(tag)), eh);
  });
}

// MPI 4 (sessions chapter): as MPI_Comm_create_group over MPI_COMM_WORLD, with a string tag.
int MPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info, MPI_Errhandler errhandler,
                               MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create_from_group";
  (void)info;  // no hints are understood
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    need(newcomm, call, "newcomm");
    need(stringtag, call, "stringtag");
    const std::vector<int> g = group_obj(group).members;
    const auto& ws = comm_of(MPI_COMM_WORLD).group_state();
    const int me = ws->rt->ctx->rank();
    if (std::find(g.begin(), g.end(), me) == g.end())
      raise(MPI_ERR_GROUP, std::string(call) + ": this process (world rank " + str(me) + ") is not in group " +
                               str(group));
    const MPI_Errhandler eh = errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler;
    *newcomm = create_over(ws, g, inter::creation_tag(6, inter::hash64(stringtag)), eh);
  });
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  const char* call = "MPI_Comm_idup";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(newcomm, call, "newcomm");
    need(request, call, "request");
    *newcomm = dup_comm(comm);
    *request = new_request(done_request(comm));
  });
}

// The info hints are kept on the new communicator (MPI_Comm_get_info returns them); none
// of them changes what interlace does.
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_dup_with_info";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(newcomm, call, "newcomm");
    *newcomm = dup_comm(comm);
    set_hints(*newcomm, info);
  });
}

int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  const char* call = "MPI_Comm_idup_with_info";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(newcomm, call, "newcomm");
    need(request, call, "request");
    *newcomm = dup_comm(comm);
    set_hints(*newcomm, info);
    *request = new_request(done_request(comm));
  });
}

// Every rank takes part in the exchange of host names, whatever its split type, since
// the call is collective; the split itself is MPI_Comm_split's.
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_split_type";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(newcomm, call, "newcomm");
    CommObj& parent = comm_obj(comm);
    bool by_host = false;
    switch (split_type) {
      case MPI_UNDEFINED: break;
      case MPI_COMM_TYPE_SHARED: by_host = true; break;
      case MPI_COMM_TYPE_HW_GUIDED:
      case MPI_COMM_TYPE_RESOURCE_GUIDED:
        by_host = info_value(info, "mpi_hw_resource_type") == "mpi_shared_memory";
        break;
      case MPI_COMM_TYPE_HW_UNGUIDED: break;  // no level below the host is known
      default:
        raise(MPI_ERR_ARG, std::string(call) + ": split_type " + str(split_type) +
                               " is not MPI_UNDEFINED or an MPI_COMM_TYPE_* value");
    }
    const Communicator& c = parent.comm;
    const int64_t mine = static_cast<int64_t>(inter::hash64(c.context().environment().host) >> 1);
    if (parent.inter) {  // both groups split by host; equal hosts pair up (colour: the host's hash)
      *newcomm = inter::split(parent, by_host ? static_cast<int>(mine & 0x7fffffff) : MPI_UNDEFINED, key);
      if (split_type == MPI_COMM_TYPE_HW_GUIDED || split_type == MPI_COMM_TYPE_RESOURCE_GUIDED)
        set_hints(*newcomm, info);
      return;
    }
    std::vector<int64_t> hosts(static_cast<size_t>(c.size()));
    coll::iallgather(c, &mine, hosts.data(), 1, Datatype::int64).wait();
    int color = UNDEFINED;
    if (by_host)  // the lowest rank on this host names its group
      color = static_cast<int>(std::find(hosts.begin(), hosts.end(), mine) - hosts.begin());
    const MPI_Errhandler eh = parent.errhandler;
    Communicator sub = c.split(color, key);
    *newcomm = sub.is_null() ? MPI_COMM_NULL : new_comm(std::move(sub), eh);
    if (split_type == MPI_COMM_TYPE_HW_GUIDED || split_type == MPI_COMM_TYPE_RESOURCE_GUIDED)
      set_hints(*newcomm, info);
  });
}

}  // extern "C"
