// Intercommunicators: creation (MPI_Intercomm_create, MPI_Intercomm_create_from_groups,
// MPI_Intercomm_merge), MPI_Comm_remote_size/remote_group, and the leaders' exchange.
// Creation: each group's leader makes ids for the new communicators, the two leaders
// swap their group lists and ids (the lower world rank's ids win, so both sides agree
// without a third party) and each leader hands the result to its group. That traffic
// runs on the world communicator on internal tags, which user receives never match.
#include <algorithm>
#include <string>
#include <vector>

#include "interlace/groups/comm_state.hpp"
#include "interlace/p2p/transport.hpp"
#include "mpi_inter.hpp"

using namespace interlace;
using namespace interlace::mpi;
using groups::CommState;

namespace interlace::mpi::inter {
namespace {

// creation_tag kinds here: 0 leader exchange and 1 leader -> group at creation, 2 and 3
// the same over an existing intercommunicator's own channels.

const std::shared_ptr<CommState>& world() { return comm_of(MPI_COMM_WORLD).group_state(); }

Request send_vec(const std::shared_ptr<CommState>& c, int dest, int tag, const std::vector<int64_t>& v) {
  return p2p::internal_isend(c, v.data(), v.size(), Datatype::int64, dest, tag);
}

std::vector<int64_t> recv_vec(const std::shared_ptr<CommState>& c, int source, int tag) {
  Status st = p2p::internal_probe(*c, source, tag);
  std::vector<int64_t> v(st.count(Datatype::int64));
  p2p::internal_irecv(c, v.data(), v.size(), Datatype::int64, source, tag).wait();
  return v;
}

// Sends `v` to every rank of c but `except` and waits for all the sends.
void send_to_all(const std::shared_ptr<CommState>& c, const std::vector<int>& ranks, int except, int tag,
                 const std::vector<int64_t>& v) {
  std::vector<Request> reqs;
  for (int r : ranks)
    if (r != except) reqs.push_back(send_vec(c, r, tag, v));
  for (Request& q : reqs) q.wait();
}

std::string str(long long v) { return std::to_string(v); }

// Intercomm_create and _from_groups after their own argument checks: `local` holds this
// rank; leader_world() (run at the local leader only) names the remote leader's world rank.
template <class LeaderWorld>
MPI_Comm create_between(const char* call, std::vector<int> local, int local_leader, LeaderWorld leader_world,
                        uint32_t h, MPI_Errhandler eh) {
  const auto& w = world();
  const int me = w->rt->ctx->rank();
  std::vector<int64_t> msg;  // the three ids, then the remote group's world ranks
  if (local[local_leader] == me) {
    int rw = -1;
    try {
      rw = leader_world();
    } catch (const MpiError& e) {
      // The leader's arguments are bad: tell the group (which would wait forever) why.
      send_to_all(w, local, me, creation_tag(1, h), {-1, e.error_class()});
      throw;
    }
    const Ids ids = fresh_ids();
    std::vector<int64_t> out = to_vec(ids);
    out.insert(out.end(), local.begin(), local.end());
    Request s = send_vec(w, rw, creation_tag(0, h), out);
    std::vector<int64_t> theirs = recv_vec(w, rw, creation_tag(0, h));
    s.wait();
    if (theirs.size() < 4) raise(MPI_ERR_INTERN, std::string(call) + ": malformed reply from the remote leader");
    msg = to_vec(agreed(me, rw, ids, ids_at(theirs, 0)));
    msg.insert(msg.end(), theirs.begin() + 3, theirs.end());
    send_to_all(w, local, me, creation_tag(1, h), msg);
  } else {
    msg = recv_vec(w, local[local_leader], creation_tag(1, h));
    if (msg.size() == 2 && msg[0] == -1)
      raise(static_cast<int>(msg[1]), std::string(call) + ": the local leader (rank " + str(local_leader) +
                                          ") refused its arguments (peer_comm, remote_leader or tag)");
  }
  std::vector<int> remote(msg.begin() + 3, msg.end());
  for (int r : remote)
    if (std::find(local.begin(), local.end(), r) != local.end())
      raise(MPI_ERR_COMM, std::string(call) + ": the local and remote groups overlap (world rank " + str(r) +
                              " is in both); they must be disjoint");
  return make(std::move(local), std::move(remote), ids_at(msg, 0), eh);
}

Communicator inter_comm(const std::shared_ptr<CommState>& w, uint64_t id, int local_rank,
                        const std::vector<int>& remote) {
  // The translation tables address the remote group; the rank is ours in the local one
  // (p2p reads only the tables and this).
  auto s = CommState::make(w->rt, id, remote);
  s->rank = local_rank;
  return Communicator::from_group_state(std::move(s));
}

CommObj& inter_obj(MPI_Comm c, const char* call) {
  CommObj& o = comm_obj(c);
  if (!o.inter) raise(MPI_ERR_COMM, std::string(call) + ": communicator " + str(c) + " is not an intercommunicator");
  return o;
}

}  // namespace

int creation_tag(int kind, uint64_t h) {
  return p2p::kTagModelBase - 1000 - kind * 4096 - static_cast<int>(h & 4095u);
}

uint64_t hash64(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

Ids fresh_ids() { return fresh_ids(world()); }

Ids fresh_ids(const std::shared_ptr<CommState>& w) {
  Ids ids;
  ids.p2p = w->new_child_id();
  ids.coll = w->new_child_id();
  ids.local = w->new_child_id();
  return ids;
}

std::vector<int64_t> to_vec(const Ids& ids) {
  return {static_cast<int64_t>(ids.p2p), static_cast<int64_t>(ids.coll), static_cast<int64_t>(ids.local)};
}

Ids ids_at(const std::vector<int64_t>& v, size_t at) {
  if (v.size() < at + 3) raise(MPI_ERR_INTERN, "intercommunicator creation: malformed id message");
  return Ids{static_cast<uint64_t>(v[at]), static_cast<uint64_t>(v[at + 1]), static_cast<uint64_t>(v[at + 2])};
}

Ids agreed(int my_world, int their_world, const Ids& mine, const Ids& theirs) {
  Ids use = my_world < their_world ? mine : theirs;
  use.local = mine.local;
  return use;
}

MPI_Comm make(std::vector<int> local, std::vector<int> remote, const Ids& ids, MPI_Errhandler eh) {
  return make_on(world(), std::move(local), std::move(remote), ids, eh);
}

MPI_Comm make_on(const std::shared_ptr<CommState>& w, std::vector<int> local, std::vector<int> remote,
                 const Ids& ids, MPI_Errhandler eh) {
  auto st = std::make_shared<InterState>();
  st->local_comm = Communicator::from_group_state(CommState::make(w->rt, ids.local, std::move(local)));
  const int lr = st->local_comm.rank();  // -1 when this rank is not in `local`
  if (lr < 0) raise(MPI_ERR_INTERN, "intercommunicator: this rank is not in its local group");
  st->coll = inter_comm(w, ids.coll, lr, remote);
  st->local_handle = new_comm(st->local_comm, MPI_ERRORS_RETURN);
  Communicator p2p = inter_comm(w, ids.p2p, lr, remote);
  st->remote = std::move(remote);
  const MPI_Comm h = new_comm(std::move(p2p), eh);
  state().comms.get(h)->inter = std::move(st);
  return h;
}

Swapped swap_leaders(const CommObj& o, const std::vector<int64_t>& mine) {
  const InterState& s = *o.inter;
  const auto& local = s.local_comm.group_state();
  std::vector<int64_t> msg;  // count of mine, mine, theirs
  if (o.comm.rank() == 0) {
    const auto& chan = s.coll.group_state();
    Request snd = send_vec(chan, 0, creation_tag(2, 0), mine);
    std::vector<int64_t> theirs = recv_vec(chan, 0, creation_tag(2, 0));
    snd.wait();
    msg.push_back(static_cast<int64_t>(mine.size()));
    msg.insert(msg.end(), mine.begin(), mine.end());
    msg.insert(msg.end(), theirs.begin(), theirs.end());
    std::vector<int> ranks(s.local().size());
    for (size_t r = 0; r < ranks.size(); ++r) ranks[r] = static_cast<int>(r);
    send_to_all(local, ranks, 0, creation_tag(3, 0), msg);
  } else {
    msg = recv_vec(local, 0, creation_tag(3, 0));
  }
  Swapped out;
  const size_t n = msg.empty() ? 0 : static_cast<size_t>(msg[0]);
  if (msg.empty() || n + 1 > msg.size()) raise(MPI_ERR_INTERN, "intercommunicator: malformed leader message");
  out.mine.assign(msg.begin() + 1, msg.begin() + 1 + static_cast<std::ptrdiff_t>(n));
  out.theirs.assign(msg.begin() + 1 + static_cast<std::ptrdiff_t>(n), msg.end());
  return out;
}

}  // namespace interlace::mpi::inter

namespace interlace::mpi {

const std::vector<int>& InterState::local() const { return local_comm.group_state()->world_of; }

bool is_inter(MPI_Comm c) noexcept {
  const CommObj* o = state().comms.get(c);
  return o && o->inter;
}

int local_size_of(MPI_Comm c) {
  const CommObj& o = comm_obj(c);
  return o.inter ? o.inter->local_comm.size() : o.comm.size();
}

}  // namespace interlace::mpi

using namespace interlace::mpi::inter;

namespace {
}  // namespace

extern "C" {

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                         int tag, MPI_Comm* newintercomm) {
  const char* call = "MPI_Intercomm_create";
  return guard(call, local_comm, [&] {
    require_initialized(call);
    need(newintercomm, call, "newintercomm");
    CommObj& lc = comm_obj(local_comm);
    if (lc.inter)
      raise(MPI_ERR_COMM, std::string(call) + ": local_comm " + str(local_comm) + " is an intercommunicator");
    const int n = lc.comm.size();
    if (local_leader < 0 || local_leader >= n)
      raise(MPI_ERR_RANK, std::string(call) + ": local_leader " + str(local_leader) +
                              " is not a rank of local_comm (size " + str(n) + ")");
    std::vector<int> local(n);
    for (int r = 0; r < n; ++r) local[r] = lc.comm.world_rank_of(r);
    const MPI_Errhandler eh = lc.errhandler;
    *newintercomm = create_between(call, std::move(local), local_leader, [&] {
      // Significant at the local leader only, as MPI says.
      const Communicator& pc = comm_of(peer_comm);
      if (tag < 0) raise(MPI_ERR_TAG, std::string(call) + ": tag " + str(tag) + " is negative");
      if (remote_leader < 0 || remote_leader >= pc.size())
        raise(MPI_ERR_RANK, std::string(call) + ": remote_leader " + str(remote_leader) +
                                " is not a rank of peer_comm (size " + str(pc.size()) + ")");
      return pc.world_rank_of(remote_leader);
    }, static_cast<uint32_t>(tag), eh);
  });
}

int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                     int remote_leader, const char* stringtag, MPI_Info info,
                                     MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  const char* call = "MPI_Intercomm_create_from_groups";
  (void)info;  // no hints are understood
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    need(newintercomm, call, "newintercomm");
    need(stringtag, call, "stringtag");
    std::vector<int> local = group_obj(local_group).members;
    const std::vector<int> remote = group_obj(remote_group).members;
    const int me = comm_of(MPI_COMM_WORLD).rank();
    if (std::find(local.begin(), local.end(), me) == local.end())
      raise(MPI_ERR_GROUP, std::string(call) + ": this process (world rank " + str(me) +
                               ") is not in local_group " + str(local_group));
    if (local_leader < 0 || local_leader >= static_cast<int>(local.size()))
      raise(MPI_ERR_RANK, std::string(call) + ": local_leader " + str(local_leader) +
                              " is not a rank of local_group (size " + str(local.size()) + ")");
    if (remote_leader < 0 || remote_leader >= static_cast<int>(remote.size()))
      raise(MPI_ERR_RANK, std::string(call) + ": remote_leader " + str(remote_leader) +
                              " is not a rank of remote_group (size " + str(remote.size()) + ")");
    const MPI_Errhandler eh = errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler;
    *newintercomm = create_between(call, std::move(local), local_leader,
                                   [&] { return remote[remote_leader]; }, static_cast<uint32_t>(hash64(stringtag)), eh);
  });
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  const char* call = "MPI_Intercomm_merge";
  return guard(call, intercomm, [&] {
    require_initialized(call);
    need(newintracomm, call, "newintracomm");
    CommObj& o = inter_obj(intercomm, call);
    std::vector<int64_t> mine{high ? 1 : 0, 0};
    // The runtime of the intercommunicator (a spawn connects on a runtime of its own).
    const auto& rt_world = o.inter->local_comm.group_state();
    if (o.comm.rank() == 0) mine[1] = static_cast<int64_t>(rt_world->new_child_id());
    const Swapped s = swap_leaders(o, mine);
    if (s.mine.size() != 2 || s.theirs.size() != 2) raise(MPI_ERR_INTERN, std::string(call) + ": malformed exchange");
    const InterState& is = *o.inter;
    // The group that passed high = false comes first; on a tie, the one whose leader
    // has the lower world rank (MPI leaves the order of a tie to the implementation).
    const bool lh = s.mine[0] != 0, rh = s.theirs[0] != 0;
    const bool local_first = lh != rh ? !lh : is.local()[0] < is.remote[0];
    std::vector<int> members = local_first ? is.local() : is.remote;
    const std::vector<int>& second = local_first ? is.remote : is.local();
    members.insert(members.end(), second.begin(), second.end());
    const uint64_t id = static_cast<uint64_t>(local_first ? s.mine[1] : s.theirs[1]);
    const MPI_Errhandler eh = o.errhandler;
    *newintracomm = new_comm(Communicator::from_group_state(CommState::make(rt_world->rt, id, members)), eh);
  });
}

int MPI_Comm_remote_size(MPI_Comm comm, int* size) {
  const char* call = "MPI_Comm_remote_size";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(size, call, "size");
    *size = static_cast<int>(inter_obj(comm, call).inter->remote.size());
  });
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  const char* call = "MPI_Comm_remote_group";
  return guard(call, comm, [&] {
    require_initialized(call);
    need(group, call, "group");
    std::vector<int> m = inter_obj(comm, call).inter->remote;
    *group = state().groups.add(GroupObj{std::move(m)});
  });
}

}  // extern "C"
