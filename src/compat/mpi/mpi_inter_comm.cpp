// MPI_Comm_dup, _split, _create and _free of an intercommunicator (mpi_comm.cpp calls
// these). Each new intercommunicator needs ids both groups agree on: the leaders swap
// what their group chose (swap_leaders) and every rank then derives the same result
// from the two lists, so no further round is needed.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/groups/comm_state.hpp"
#include "mpi_inter.hpp"

using namespace interlace;
using namespace interlace::mpi;

namespace interlace::mpi::inter {
namespace {

// (color, key) of every rank of one group -> the world ranks of `color`'s members,
// ordered by key, then by rank in the group (as MPI_Comm_split orders them).
std::vector<int> members_with(const std::vector<int64_t>& ck, const std::vector<int>& world, int64_t color) {
  std::vector<int> idx;
  for (size_t r = 0; r < world.size(); ++r)
    if (ck[2 * r] == color) idx.push_back(static_cast<int>(r));
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return ck[2 * a + 1] < ck[2 * b + 1]; });
  std::vector<int> out;
  for (int r : idx) out.push_back(world[r]);
  return out;
}

// An id triple per color, in a message: n, then (color, p2p, coll, local) n times.
Ids ids_for(const std::vector<int64_t>& v, size_t at, int64_t color) {
  const size_t n = static_cast<size_t>(v.at(at));
  for (size_t i = 0; i < n; ++i)
    if (v.at(at + 1 + 4 * i) == color) return ids_at(v, at + 2 + 4 * i);
  raise(MPI_ERR_INTERN, "MPI_Comm_split: no ids for color " + std::to_string(color));
}

// New communicators live on the intercommunicator's runtime (a spawn's is not the world's).
const std::shared_ptr<groups::CommState>& runtime_of(const CommObj& o) { return o.inter->local_comm.group_state(); }

}  // namespace

MPI_Comm dup(CommObj& o) {
  std::vector<int64_t> mine;
  if (o.comm.rank() == 0) mine = to_vec(fresh_ids(runtime_of(o)));
  const Swapped s = swap_leaders(o, mine);
  const InterState& is = *o.inter;
  const Ids use = agreed(is.local()[0], is.remote[0], ids_at(s.mine, 0), ids_at(s.theirs, 0));
  return make_on(runtime_of(o), is.local(), is.remote, use, o.errhandler);
}

MPI_Comm split(CommObj& o, int color, int key) {
  const InterState& is = *o.inter;
  const int n = static_cast<int>(is.local().size());
  std::vector<int64_t> ck(2 * static_cast<size_t>(n));
  const int64_t mine_ck[2] = {color, key};
  coll::iallgather(is.local_comm, mine_ck, ck.data(), 2, Datatype::int64).wait();
  std::vector<int64_t> msg = ck;  // the group's (color, key) pairs, then its ids per color
  if (o.comm.rank() == 0) {
    std::vector<int64_t> colors;
    for (int r = 0; r < n; ++r)
      if (ck[2 * r] != MPI_UNDEFINED && std::find(colors.begin(), colors.end(), ck[2 * r]) == colors.end())
        colors.push_back(ck[2 * r]);
    msg.push_back(static_cast<int64_t>(colors.size()));
    for (int64_t c : colors) {
      msg.push_back(c);
      const std::vector<int64_t> ids = to_vec(fresh_ids(runtime_of(o)));
      msg.insert(msg.end(), ids.begin(), ids.end());
    }
  }
  const Swapped s = swap_leaders(o, msg);
  if (color == MPI_UNDEFINED) return MPI_COMM_NULL;
  const size_t rn = is.remote.size();
  if (s.theirs.size() < 2 * rn + 1) raise(MPI_ERR_INTERN, "MPI_Comm_split: malformed exchange");
  const std::vector<int64_t> rck(s.theirs.begin(), s.theirs.begin() + static_cast<std::ptrdiff_t>(2 * rn));
  std::vector<int> local = members_with(s.mine, is.local(), color);
  std::vector<int> remote = members_with(rck, is.remote, color);
  if (remote.empty()) return MPI_COMM_NULL;  // MPI: no partner group, no communicator
  const Ids mine = ids_for(s.mine, 2 * static_cast<size_t>(n), color);
  const Ids theirs = ids_for(s.theirs, 2 * rn, color);
  const Ids use = agreed(local[0], remote[0], mine, theirs);
  return make_on(runtime_of(o), std::move(local), std::move(remote), use, o.errhandler);
}

// `group` must be a subgroup of the local group, the same on every local rank; the new
// intercommunicator pairs it with the subgroup the remote side passed.
MPI_Comm create(CommObj& o, MPI_Comm comm, const std::vector<int>& group) {
  const InterState& is = *o.inter;
  const std::vector<int>& in_local = is.local_comm.group_state()->rank_of_world;
  for (int w : group)
    if (in_local[w] < 0)
      raise(MPI_ERR_GROUP, "MPI_Comm_create: world rank " + std::to_string(w) +
                               " of the group is not in the local group of intercommunicator " +
                               std::to_string(comm));
  std::vector<int64_t> msg;
  if (o.comm.rank() == 0) {
    msg = to_vec(fresh_ids(runtime_of(o)));
    msg.insert(msg.end(), group.begin(), group.end());
  }
  const Swapped s = swap_leaders(o, msg);
  const Ids mine = ids_at(s.mine, 0), theirs = ids_at(s.theirs, 0);
  std::vector<int> local(s.mine.begin() + 3, s.mine.end());
  std::vector<int> remote(s.theirs.begin() + 3, s.theirs.end());
  const int me = is.local()[o.comm.rank()];
  if (remote.empty() || std::find(local.begin(), local.end(), me) == local.end()) return MPI_COMM_NULL;
  const Ids use = agreed(local[0], remote[0], mine, theirs);
  return make_on(runtime_of(o), std::move(local), std::move(remote), use, o.errhandler);
}

void release(MPI_Comm handle, CommObj& o) {
  std::shared_ptr<InterState> is = std::move(o.inter);
  if (CommObj* lh = state().comms.get(is->local_handle)) lh->comm.free();
  state().comms.remove(is->local_handle);
  is->local_comm.free();
  is->coll.free();
  o.comm.free();
  state().comms.remove(handle);
}

}  // namespace interlace::mpi::inter
