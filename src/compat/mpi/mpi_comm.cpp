// MPI communicators over interlace's Communicator: dup, split, create (a split whose
// color and key come from the group), free, compare, group, names. New communicators
// inherit the parent's error handler. (Comm_rank/Comm_size are in mpi_env.cpp.)
// Intercommunicators take the same calls; their own code is in mpi_inter_comm.cpp.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_attr.hpp"
#include "mpi_inter.hpp"

using namespace interlace;
using namespace interlace::mpi;

namespace {

// The world ranks of a communicator's members, in communicator rank order.
std::vector<int> members_of(const Communicator& c) {
  std::vector<int> m(c.size());
  for (int r = 0; r < c.size(); ++r) m[r] = c.world_rank_of(r);
  return m;
}

// The local group (an intercommunicator's `comm` addresses the remote one).
std::vector<int> local_members(MPI_Comm h) {
  const CommObj& o = comm_obj(h);
  return o.inter ? o.inter->local() : members_of(o.comm);
}

MPI_Comm wrap(Communicator c, MPI_Errhandler inherit) {
  return c.is_null() ? MPI_COMM_NULL : new_comm(std::move(c), inherit);
}

// Frees a handle's communicator(s) and the handle (attributes already deleted).
void drop(MPI_Comm h) {
  CommObj& c = comm_obj(h);  // looked up again: the table may have grown under callbacks
  if (c.inter) {
    inter::release(h, c);
    return;
  }
  c.comm.free();
  state().comms.remove(h);
}

}  // namespace

namespace interlace::mpi {

// MPI_Comm_dup and its idup/with_info forms: the copy keeps the attributes that their
// copy callbacks keep; a failing callback leaves no new communicator behind.
MPI_Comm dup_comm(MPI_Comm comm) {
  CommObj& parent = comm_obj(comm);
  const MPI_Errhandler eh = parent.errhandler;  // read before the table may grow
  MPI_Comm dup = parent.inter ? inter::dup(parent) : wrap(parent.comm.dup(), eh);
  try {
    attr_copy_all(AttrKind::comm, comm, dup);
  } catch (...) {
    drop(dup);
    throw;
  }
  return dup;
}

}  // namespace interlace::mpi

extern "C" {

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return guard("MPI_Comm_dup", comm, [&] {
    require_initialized("MPI_Comm_dup");
    need(newcomm, "MPI_Comm_dup", "newcomm");
    *newcomm = dup_comm(comm);
  });
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return guard("MPI_Comm_split", comm, [&] {
    require_initialized("MPI_Comm_split");
    need(newcomm, "MPI_Comm_split", "newcomm");
    CommObj& parent = comm_obj(comm);
    if (color < 0 && color != MPI_UNDEFINED)
      raise(MPI_ERR_ARG, "MPI_Comm_split: color " + std::to_string(color) +
                             " is negative (only MPI_UNDEFINED may be)");
    const MPI_Errhandler eh = parent.errhandler;
    if (parent.inter) {
      *newcomm = inter::split(parent, color, key);
      return;
    }
    *newcomm = wrap(parent.comm.split(color == MPI_UNDEFINED ? UNDEFINED : color, key), eh);
  });
}

// Members of `group` form the new communicator in group order; MPI-3 lets disjoint
// groups be passed by different ranks, so the color is the group's lowest world rank
// (disjoint groups never share it) and the key is the rank in the group.
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return guard("MPI_Comm_create", comm, [&] {
    require_initialized("MPI_Comm_create");
    need(newcomm, "MPI_Comm_create", "newcomm");
    CommObj& parent = comm_obj(comm);
    const std::vector<int>& g = group_obj(group).members;
    if (parent.inter) {
      *newcomm = inter::create(parent, comm, g);
      return;
    }
    const std::vector<int> in_comm = members_of(parent.comm);
    for (int w : g)
      if (std::find(in_comm.begin(), in_comm.end(), w) == in_comm.end())
        raise(MPI_ERR_GROUP, "MPI_Comm_create: world rank " + std::to_string(w) +
                                 " of the group is not a member of communicator " + std::to_string(comm));
    const int me = parent.comm.world_rank_of(parent.comm.rank());
    auto pos = std::find(g.begin(), g.end(), me);
    int color = UNDEFINED, key = 0;
    if (pos != g.end()) {
      color = *std::min_element(g.begin(), g.end());
      key = static_cast<int>(pos - g.begin());
    }
    const MPI_Errhandler eh = parent.errhandler;
    *newcomm = wrap(parent.comm.split(color, key), eh);
  });
}

int MPI_Comm_free(MPI_Comm* comm) {
  return guard("MPI_Comm_free", comm ? *comm : MPI_COMM_NULL, [&] {
    require_initialized("MPI_Comm_free");
    need(comm, "MPI_Comm_free", "comm");
    CommObj& c = comm_obj(*comm);
    if (c.predefined)
      raise(MPI_ERR_COMM, "MPI_Comm_free: " + (c.name.empty() ? std::to_string(*comm) : c.name) +
                              " is predefined and cannot be freed");
    attr_delete_all(AttrKind::comm, *comm);  // callbacks still see a valid communicator
    drop(*comm);
    *comm = MPI_COMM_NULL;
  });
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  return guard("MPI_Comm_compare", comm1, [&] {
    require_initialized("MPI_Comm_compare");
    need(result, "MPI_Comm_compare", "result");
    const CommObj& a = comm_obj(comm1);
    const CommObj& b = comm_obj(comm2);
    if (comm1 == comm2) {
      *result = MPI_IDENT;
      return;
    }
    // Intercommunicators compare both groups (MPI 4.1 7.4.1); never equal to an intra.
    if (!a.inter != !b.inter) {
      *result = MPI_UNEQUAL;
      return;
    }
    std::vector<int> ma = local_members(comm1), mb = local_members(comm2);
    std::vector<int> ra = a.inter ? a.inter->remote : std::vector<int>{};
    std::vector<int> rb = b.inter ? b.inter->remote : std::vector<int>{};
    if (ma == mb && ra == rb) {
      *result = MPI_CONGRUENT;
      return;
    }
    std::sort(ma.begin(), ma.end());
    std::sort(mb.begin(), mb.end());
    std::sort(ra.begin(), ra.end());
    std::sort(rb.begin(), rb.end());
    *result = ma == mb && ra == rb ? MPI_SIMILAR : MPI_UNEQUAL;
  });
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return guard("MPI_Comm_group", comm, [&] {
    require_initialized("MPI_Comm_group");
    need(group, "MPI_Comm_group", "group");
    std::vector<int> m = local_members(comm);
    *group = state().groups.add(GroupObj{std::move(m)});
  });
}

int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  return guard("MPI_Comm_test_inter", comm, [&] {
    require_initialized("MPI_Comm_test_inter");
    need(flag, "MPI_Comm_test_inter", "flag");
    *flag = comm_obj(comm).inter ? 1 : 0;
  });
}

int MPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  return guard("MPI_Comm_set_name", comm, [&] {
    require_initialized("MPI_Comm_set_name");
    need(comm_name, "MPI_Comm_set_name", "comm_name");
    comm_obj(comm).name = std::string(comm_name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  });
}

int MPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  return guard("MPI_Comm_get_name", comm, [&] {
    require_initialized("MPI_Comm_get_name");
    need(comm_name, "MPI_Comm_get_name", "comm_name");
    need(resultlen, "MPI_Comm_get_name", "resultlen");
    const std::string& n = comm_obj(comm).name;  // "" for an unnamed communicator, as MPI says
    std::memcpy(comm_name, n.c_str(), n.size() + 1);
    *resultlen = static_cast<int>(n.size());
  });
}

}  // extern "C"
