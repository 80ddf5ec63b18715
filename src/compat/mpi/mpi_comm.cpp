// MPI communicators over interlace's Communicator: dup, split, create (a split whose
// color and key come from the group), free, compare, group, names. New communicators
// inherit the parent's error handler. (Comm_rank/Comm_size are in mpi_env.cpp.)
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_attr.hpp"
#include "mpi_impl.hpp"

using namespace interlace;
using namespace interlace::mpi;

namespace {

void need(const void* p, const char* call, const char* what) {
  if (!p) raise(MPI_ERR_ARG, std::string(call) + ": " + what + " is null");
}

// The world ranks of a communicator's members, in communicator rank order.
std::vector<int> members_of(const Communicator& c) {
  std::vector<int> m(c.size());
  for (int r = 0; r < c.size(); ++r) m[r] = c.world_rank_of(r);
  return m;
}

MPI_Comm wrap(Communicator c, MPI_Errhandler inherit) {
  return c.is_null() ? MPI_COMM_NULL : new_comm(std::move(c), inherit);
}

}  // namespace

extern "C" {

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return guard("MPI_Comm_dup", comm, [&] {
    require_initialized("MPI_Comm_dup");
    need(newcomm, "MPI_Comm_dup", "newcomm");
    CommObj& parent = comm_obj(comm);
    const MPI_Errhandler eh = parent.errhandler;  // read before the table may grow
    MPI_Comm dup = wrap(parent.comm.dup(), eh);
    try {
      attr_copy_all(AttrKind::comm, comm, dup);
    } catch (...) {
      comm_obj(dup).comm.free();
      state().comms.remove(dup);
      throw;
    }
    *newcomm = dup;
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
    comm_obj(*comm).comm.free();  // the table may have grown under the callbacks
    state().comms.remove(*comm);
    *comm = MPI_COMM_NULL;
  });
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  return guard("MPI_Comm_compare", comm1, [&] {
    require_initialized("MPI_Comm_compare");
    need(result, "MPI_Comm_compare", "result");
    const Communicator& a = comm_of(comm1);
    const Communicator& b = comm_of(comm2);
    if (comm1 == comm2) {
      *result = MPI_IDENT;
      return;
    }
    std::vector<int> ma = members_of(a), mb = members_of(b);
    if (ma == mb) {
      *result = MPI_CONGRUENT;
      return;
    }
    std::sort(ma.begin(), ma.end());
    std::sort(mb.begin(), mb.end());
    *result = ma == mb ? MPI_SIMILAR : MPI_UNEQUAL;
  });
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return guard("MPI_Comm_group", comm, [&] {
    require_initialized("MPI_Comm_group");
    need(group, "MPI_Comm_group", "group");
    std::vector<int> m = members_of(comm_of(comm));
    *group = state().groups.add(GroupObj{std::move(m)});
  });
}

int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  return guard("MPI_Comm_test_inter", comm, [&] {
    require_initialized("MPI_Comm_test_inter");
    need(flag, "MPI_Comm_test_inter", "flag");
    comm_obj(comm);
    *flag = 0;  // intercommunicators are not supported; every communicator is intra
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
